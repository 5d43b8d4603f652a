import { assertInputReached, networkInputOptions, runMediaTool } from '#platform/media-tools';

/** What ffprobe says about an uploaded video: enough to price, analyse and frame a split job. */
export interface VideoProbe {
  durationSeconds: number;
  /** As displayed: a phone video recorded upright reports its rotated size. */
  width: number;
  height: number;
  videoCodec: string;
  hasAudio: boolean;
}

export type ProbeVerdict = { kind: 'video'; probe: VideoProbe } | { kind: 'not_video'; reason: string };

interface FfprobeStream {
  codec_type?: string;
  codec_name?: string;
  width?: number;
  height?: number;
  duration?: string;
  disposition?: { attached_pic?: number };
  tags?: { rotate?: string };
  side_data_list?: { rotation?: number }[];
}

export interface FfprobeOutput {
  streams?: FfprobeStream[];
  format?: { duration?: string };
}

function rotation(stream: FfprobeStream): number {
  const fromSideData = stream.side_data_list?.find((data) => typeof data.rotation === 'number')?.rotation;
  return Math.abs(fromSideData ?? Number(stream.tags?.rotate ?? 0)) % 180;
}

function positive(value: string | undefined): number | undefined {
  const number = Number(value);
  return value !== undefined && Number.isFinite(number) && number > 0 ? number : undefined;
}

/** A cover picture (`attached_pic`, as in an MP3 with artwork) is not a video stream. */
export function verdictFromFfprobe(output: FfprobeOutput): ProbeVerdict {
  const streams = output.streams ?? [];
  const video = streams.find(
    (stream) =>
      stream.codec_type === 'video' && stream.disposition?.attached_pic !== 1 && stream.width && stream.height,
  );
  if (!video) return { kind: 'not_video', reason: 'it has no video stream' };
  const durationSeconds = positive(output.format?.duration) ?? positive(video.duration);
  if (durationSeconds === undefined) return { kind: 'not_video', reason: 'its duration cannot be read' };
  const sideways = rotation(video) === 90;
  return {
    kind: 'video',
    probe: {
      durationSeconds: Math.round(durationSeconds * 1000) / 1000,
      width: (sideways ? video.height : video.width) as number,
      height: (sideways ? video.width : video.height) as number,
      videoCodec: video.codec_name ?? 'unknown',
      hasAudio: streams.some((stream) => stream.codec_type === 'audio'),
    },
  };
}

/**
 * Probes a file or a presigned URL. ffprobe reads the container's headers (a few ranged reads, even
 * with the index at the end), never the whole file. A file it cannot parse at all is not a video;
 * one it could not reach throws TransientFailure.
 */
export async function probeVideo(ffprobePath: string, input: string, timeoutMs: number): Promise<ProbeVerdict> {
  const run = await runMediaTool(
    ffprobePath,
    ['-v', 'warning', ...networkInputOptions(input), '-print_format', 'json', '-show_format', '-show_streams', input],
    { timeoutMs, collectStdout: true, maxStdoutBytes: 4 * 1024 * 1024 },
  );
  if (run.timedOut) throw new Error(`ffprobe did not answer within ${timeoutMs} ms`);
  assertInputReached(run, 'ffprobe could not read the file');
  if (run.exitCode !== 0) return { kind: 'not_video', reason: 'it is not a media file ffprobe can read' };
  return verdictFromFfprobe(JSON.parse(run.stdout) as FfprobeOutput);
}
