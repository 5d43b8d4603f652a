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
  start_time?: string;
  duration?: string;
  disposition?: { attached_pic?: number };
  tags?: { rotate?: string };
  side_data_list?: { rotation?: number }[];
}

export interface FfprobeOutput {
  streams?: FfprobeStream[];
  format?: { start_time?: string; duration?: string };
}

function rotation(stream: FfprobeStream): number {
  const fromSideData = stream.side_data_list?.find((data) => typeof data.rotation === 'number')?.rotation;
  return Math.abs(fromSideData ?? Number(stream.tags?.rotate ?? 0)) % 180;
}

function finite(value: string | undefined): number | undefined {
  const number = Number(value);
  return value !== undefined && Number.isFinite(number) ? number : undefined;
}

function positive(value: string | undefined): number | undefined {
  const number = Number(value);
  return value !== undefined && Number.isFinite(number) && number > 0 ? number : undefined;
}

const isCoverPicture = (stream: FfprobeStream) => stream.disposition?.attached_pic === 1;

/**
 * How long the file plays, from its start: where its last picture or sound stream ends, when every
 * one of them says, else the container's duration. The streams' durations count what decodes,
 * edit lists applied; the container's may not: an MP4 whose movie header counts the AAC encoder's
 * priming samples, as ffmpeg 4.1 writes it (20.024 s for 20 s of picture and sound), is 20.024 s
 * long to ffprobe 5.1, which reads that header, and 20 s to the 2023 build, which reads the streams.
 */
function playedSeconds(streams: readonly FfprobeStream[], format: FfprobeOutput['format']): number | undefined {
  const origin = finite(format?.start_time) ?? 0;
  const ends = streams
    .filter((stream) => (stream.codec_type === 'video' || stream.codec_type === 'audio') && !isCoverPicture(stream))
    .map((stream) => {
      const duration = positive(stream.duration);
      return duration === undefined ? undefined : (finite(stream.start_time) ?? origin) + duration - origin;
    });
  const known = ends.filter((end) => end !== undefined);
  const longest = known.length > 0 ? Math.max(...known) : 0;
  if (longest > 0 && known.length === ends.length) return longest;
  return positive(format?.duration) ?? (longest > 0 ? longest : undefined);
}

/** A cover picture (`attached_pic`, as in an MP3 with artwork) is not a video stream. */
export function verdictFromFfprobe(output: FfprobeOutput): ProbeVerdict {
  const streams = output.streams ?? [];
  const video = streams.find(
    (stream) => stream.codec_type === 'video' && !isCoverPicture(stream) && stream.width && stream.height,
  );
  if (!video) return { kind: 'not_video', reason: 'it has no video stream' };
  const durationSeconds = playedSeconds(streams, output.format);
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
