import { execFile, type ChildProcess } from 'node:child_process';
import { subscribe } from 'node:diagnostics_channel';
import { mkdir, rename, stat, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { resolveMediaTool } from '../../local/media-tools';
import { putToUploadUrl } from '@video-automation/client';
import { makeTalkSource } from '../../test/support/people-fixtures';
import {
  PEOPLE_DETECTION_CHANNEL,
  type PeopleDetectionReport,
  type PeopleDetectorLoadReport,
} from '#domain/framing/people-detection';
import { CLIP_FILE_NAME, THUMBNAIL_FILE_NAME } from '#domain/split-jobs/clip-rendering';
import { SUBJECT_FRAMES_FILE_NAME } from '#domain/split-jobs/subject-frames';
import { callsBetween, snapshot, sum } from './call-counter';
import { measureFramingCost, measurePeopleDetectorLoad } from './framing';
import { reapedChildrenCpuSeconds } from './cpu';
import { call, expectStatus } from './http';
import { BENCH_SETTINGS } from './settings';
import { awsSplitModel } from './split-aws-model';
import { megabytes, round } from './statistics';
import { fileParts } from './uploads';

const execFileAsync = promisify(execFile);

/**
 * The two minutes a split source alternates. Each has two scenes of moving patterns (a cut 25 or
 * 30 s in, another where it meets the next minute) and a tone that pauses every 12 or 9 s.
 */
const SPLIT_SOURCE_MINUTES = [
  {
    scenes: [
      { seconds: 25, pattern: 'testsrc2=s=1280x720:r=25' },
      { seconds: 35, pattern: 'life=s=1280x720:r=25:mold=10:ratio=0.1:death_color=#C83232:life_color=#00ff00' },
    ],
    tone: 'if(lt(mod(t,12),0.8),0,0.4*sin(2*PI*440*t)*(0.6+0.4*sin(2*PI*0.3*t)))',
  },
  {
    scenes: [
      // Drawn small and scaled up: mandelbrot computes every pixel on one core.
      { seconds: 30, pattern: 'mandelbrot=s=320x180:r=25,scale=1280:720' },
      { seconds: 30, pattern: 'testsrc2=s=1280x720:r=25,hue=h=150' },
    ],
    tone: 'if(lt(mod(t,9),0.6),0,0.4*sin(2*PI*330*t)*(0.6+0.4*sin(2*PI*0.5*t)))',
  },
];

/**
 * Runs `make` to write `path` unless an earlier run left it there (a directory kept with
 * `--split-sources-dir`). It writes beside it and renames, so that an interrupted run leaves no
 * half-made file to be reused; the temporary name keeps the extension, which names ffmpeg's muxer.
 */
async function madeOnce(path: string, make: (temporaryPath: string) => Promise<unknown>): Promise<void> {
  const exists = await stat(path).then(
    () => true,
    () => false,
  );
  if (exists) return;
  const temporaryPath = `${path}.partial.mp4`;
  await make(temporaryPath);
  await rename(temporaryPath, path);
}

export interface SplitSourceFile {
  seconds: number;
  path: string;
  sizeBytes: number;
}

/** Runs ffmpeg quietly, overwriting its output. */
function runFfmpeg(ffmpegPath: string, args: readonly string[]) {
  return execFileAsync(ffmpegPath, ['-hide_banner', '-loglevel', 'error', '-y', ...args]);
}

/**
 * Joins `files` one after another into `path` with the concat demuxer, without re-encoding, the
 * index at the front; the list it reads is written beside `path`.
 */
async function joinedWithoutReencoding(
  ffmpegPath: string,
  files: readonly string[],
  path: string,
  seconds: number,
): Promise<SplitSourceFile> {
  const list = path.replace(/\.mp4$/, '.txt');
  await writeFile(list, files.map((file) => `file '${file}'\n`).join(''));
  await runFfmpeg(ffmpegPath, [
    '-f',
    'concat',
    '-safe',
    '0',
    '-i',
    list,
    '-c',
    'copy',
    '-movflags',
    '+faststart',
    path,
  ]);
  return { seconds, path, sizeBytes: (await stat(path)).size };
}

/**
 * 1280x720 25 fps H.264 (x264 veryfast, 1 Mb/s) and AAC sources of the given whole minutes: the
 * two minutes above, encoded once, then alternated and joined without re-encoding. Encoding ten
 * minutes of 720p would take longer than the split job it feeds.
 */
export async function makeSplitSources(
  ffmpegPath: string,
  directory: string,
  lengths: readonly number[],
): Promise<SplitSourceFile[]> {
  await mkdir(directory, { recursive: true });
  const ffmpeg = (args: string[]) => runFfmpeg(ffmpegPath, args);
  // Side by side: the pattern sources draw on one core each.
  const minutes = await Promise.all(
    SPLIT_SOURCE_MINUTES.map(async ({ scenes, tone }, index) => {
      const path = join(directory, `minute-${index}.mp4`);
      const concat = `${scenes.map((_, scene) => `[${scene}:v]`).join('')}concat=n=${scenes.length}:v=1:a=0[v]`;
      await madeOnce(path, (output) =>
        ffmpeg([
          ...scenes.flatMap(({ seconds, pattern }) => ['-t', String(seconds), '-f', 'lavfi', '-i', pattern]),
          ...['-f', 'lavfi', '-i', `aevalsrc='${tone}':s=48000:d=60`],
          ...['-filter_complex', concat, '-map', '[v]', '-map', `${scenes.length}:a`],
          ...['-c:v', 'libx264', '-preset', 'veryfast', '-b:v', '1000k', '-pix_fmt', 'yuv420p'],
          ...['-c:a', 'aac', '-b:a', '128k'],
          output,
        ]),
      );
      return path;
    }),
  );
  const sources: SplitSourceFile[] = [];
  for (const seconds of lengths) {
    if (seconds % 60 !== 0) throw new Error(`A split source lasts whole minutes; ${seconds} s does not`);
    const files = Array.from({ length: seconds / 60 }, (_, minute) => minutes[minute % minutes.length]!);
    sources.push(await joinedWithoutReencoding(ffmpegPath, files, join(directory, `source-${seconds}s.mp4`), seconds));
  }
  return sources;
}

/**
 * The scenes of the noisy sources' segment: a cut every 5 to 9 s, 9 a minute, just under the 10 a
 * minute at which `auto` makes under_30 clips (AUTO_FAST_CUTS_PER_MINUTE), so that a job of them
 * renders under_60 clips, the longest a fast-cut source gets. Each pattern is drawn at the
 * source's size (`SIZE`), but mandelbrot, drawn small and scaled up: it computes every pixel on
 * one core.
 */
const NOISY_SCENES = [
  { seconds: 5, pattern: 'testsrc2=s=SIZE:r=30' },
  { seconds: 8, pattern: 'life=s=SIZE:r=30:mold=10:ratio=0.1:death_color=#C83232:life_color=#00ff00' },
  { seconds: 6, pattern: 'smptehdbars=s=SIZE:r=30,hue=H=t*2' },
  { seconds: 9, pattern: 'mandelbrot=s=320x180:r=30,scale=SIZE' },
  { seconds: 5, pattern: 'testsrc2=s=SIZE:r=30,hue=h=150,negate' },
  { seconds: 7, pattern: 'rgbtestsrc=s=SIZE:r=30,hue=H=t' },
];
const NOISY_SEGMENT_SECONDS = NOISY_SCENES.reduce((total, scene) => total + scene.seconds, 0);
/**
 * Grain over every pixel, new in every frame (ffmpeg's `noise`, uniform, temporal, strength 18 of
 * 255): what costs the encoder bits and the decoder work in footage from a small sensor in poor light.
 */
const GRAIN = 'noise=alls=18:allf=t+u';
/** A syllable-rate rhythm with a pause of 0.7 s every 7 s, over the scene cuts rather than with them. */
const NOISY_TONE = 'if(lt(mod(t,7),0.7),0,0.4*sin(2*PI*220*t)*(0.6+0.4*sin(2*PI*3*t)))';

/** The harder sources: phone-like grain and frequent cuts, at 30 fps and a bit rate a phone or a download has. */
export const NOISY_SPLIT_SOURCES = {
  'noisy-720p': { width: 1280, height: 720, videoKbps: 3000 },
  'noisy-1080p': { width: 1920, height: 1080, videoKbps: 6000 },
} as const;
export type NoisySplitSourceKind = keyof typeof NOISY_SPLIT_SOURCES;

/**
 * A noisy source of whole segments (see NOISY_SCENES): one segment encoded (x264 veryfast at the
 * kind's bit rate, AAC), then repeated without re-encoding, as makeSplitSources does.
 */
export async function makeNoisySplitSource(
  ffmpegPath: string,
  directory: string,
  kind: NoisySplitSourceKind,
  seconds: number,
): Promise<SplitSourceFile> {
  if (seconds % NOISY_SEGMENT_SECONDS !== 0) {
    throw new Error(`A noisy split source lasts whole ${NOISY_SEGMENT_SECONDS} s segments; ${seconds} s does not`);
  }
  await mkdir(directory, { recursive: true });
  const { width, height, videoKbps } = NOISY_SPLIT_SOURCES[kind];
  const ffmpeg = (args: string[]) => runFfmpeg(ffmpegPath, args);
  const segment = join(directory, `${kind}-segment.mp4`);
  const scenes = NOISY_SCENES.length;
  const concat = `${NOISY_SCENES.map((_, scene) => `[${scene}:v]`).join('')}concat=n=${scenes}:v=1:a=0`;
  await madeOnce(segment, (output) =>
    ffmpeg([
      ...NOISY_SCENES.flatMap((scene) => [
        ...['-t', String(scene.seconds), '-f', 'lavfi', '-i', scene.pattern.replaceAll('SIZE', `${width}x${height}`)],
      ]),
      ...['-f', 'lavfi', '-i', `aevalsrc='${NOISY_TONE}':s=48000:d=${NOISY_SEGMENT_SECONDS}`],
      ...['-filter_complex', `${concat},${GRAIN},format=yuv420p[v]`, '-map', '[v]', '-map', `${scenes}:a`],
      ...['-c:v', 'libx264', '-preset', 'veryfast', '-b:v', `${videoKbps}k`],
      ...['-maxrate', `${videoKbps}k`, '-bufsize', `${2 * videoKbps}k`],
      ...['-c:a', 'aac', '-b:a', '128k'],
      output,
    ]),
  );
  const segments = new Array<string>(seconds / NOISY_SEGMENT_SECONDS).fill(segment);
  return joinedWithoutReencoding(ffmpegPath, segments, join(directory, `${kind}-${seconds}s.mp4`), seconds);
}

/** A talk (makeTalkSource) of whole minutes, made once in `directory`. */
async function makeTalkSplitSource(
  ffmpegPath: string,
  directory: string,
  kind: TalkSplitSourceKind,
  seconds: number,
): Promise<SplitSourceFile> {
  await mkdir(directory, { recursive: true });
  const path = join(directory, `${kind}-${seconds}s.mp4`);
  await madeOnce(path, (output) => makeTalkSource(output, { ...TALK_SPLIT_SOURCES[kind], seconds, ffmpegPath }));
  return { seconds, path, sizeBytes: (await stat(path)).size };
}

/**
 * A short source of `width`x`height`: a moving test pattern and a steady tone, no scene cut, so
 * a split job of it makes one clip of the whole. For phases that need a split job, not its cost.
 */
export async function makeShortSplitSource(
  path: string,
  { seconds, width, height }: { seconds: number; width: number; height: number },
): Promise<SplitSourceFile> {
  const ffmpeg = await resolveMediaTool('ffmpeg');
  await mkdir(dirname(path), { recursive: true });
  await execFileAsync(ffmpeg.path, [
    ...['-hide_banner', '-loglevel', 'error', '-y'],
    ...['-f', 'lavfi', '-i', `testsrc2=s=${width}x${height}:r=25:d=${seconds}`],
    ...['-f', 'lavfi', '-i', `sine=frequency=440:sample_rate=48000:duration=${seconds}`],
    ...['-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest'],
    ...['-movflags', '+faststart', path],
  ]);
  return { seconds, path, sizeBytes: (await stat(path)).size };
}

/**
 * The floor the split target was set against, measured again on this machine now: 30 s of the
 * source cut and cropped to 720x1280 with x264 veryfast, which took 5.4 s when the target was set.
 * A shared machine's speed varies by a third from hour to hour; this says how fast it was.
 */
export async function referenceEncodeSeconds(
  ffmpegPath: string,
  sourcePath: string,
  outputPath: string,
): Promise<number> {
  const startedAt = performance.now();
  await execFileAsync(ffmpegPath, [
    ...['-hide_banner', '-loglevel', 'error', '-y', '-ss', '60', '-t', '30', '-i', sourcePath],
    ...['-vf', 'crop=405:720,scale=720:1280', '-c:v', 'libx264', '-preset', 'veryfast', '-an', outputPath],
  ]);
  return round((performance.now() - startedAt) / 1000, 2);
}

/** What a split job's media tools ran, told apart by what they write. */
type MediaToolRunKind = 'probe' | 'analysis' | 'clip' | 'thumbnail';

interface MediaToolRunSpan {
  kind: MediaToolRunKind;
  startMs: number;
  endMs: number;
  /**
   * Its CPU time: what the children reaped since the previous child's exit added. Two children
   * reaped at once are told apart only by kind order; the sums per stage are exact.
   */
  cpuSeconds: number;
}

/** ffprobe and ffmpeg processes of this process, as they end; the split phase empties it before each job. */
const mediaToolRuns: MediaToolRunSpan[] = [];
let reapedCpuSeconds = reapedChildrenCpuSeconds();

function mediaToolRunKind(commandLine: readonly string[]): MediaToolRunKind | undefined {
  const tool = basename(commandLine[0] ?? '');
  const output = commandLine.at(-1) ?? '';
  if (tool === 'ffprobe') return 'probe';
  if (tool !== 'ffmpeg') return undefined;
  // The analysis writes to the null muxer, and its sampled frames, when it samples them, last.
  if (output === '-' || basename(output) === SUBJECT_FRAMES_FILE_NAME) return 'analysis';
  if (basename(output) === CLIP_FILE_NAME) return 'clip';
  if (basename(output) === THUMBNAIL_FILE_NAME) return 'thumbnail';
  return undefined;
}

subscribe('child_process', (message) => {
  const { process: child } = message as { process: ChildProcess };
  const startMs = performance.now();
  child.once('exit', () => {
    const reaped = reapedChildrenCpuSeconds();
    const cpuSeconds = reaped - reapedCpuSeconds;
    reapedCpuSeconds = reaped;
    const kind = mediaToolRunKind(child.spawnargs);
    if (kind) mediaToolRuns.push({ kind, startMs, endMs: performance.now(), cpuSeconds });
  });
});

/**
 * What the people detector reported during the current job (the stack's workers run in this
 * process): each segment's detection, and its loading when the job was the first to need it.
 */
const peopleDetection: {
  detections: (PeopleDetectionReport & { endMs: number })[];
  loads: PeopleDetectorLoadReport[];
} = {
  detections: [],
  loads: [],
};

subscribe(PEOPLE_DETECTION_CHANNEL, (message) => {
  const report = message as PeopleDetectionReport | PeopleDetectorLoadReport;
  if (report.kind === 'detected') peopleDetection.detections.push({ ...report, endMs: performance.now() });
  else peopleDetection.loads.push(report);
});

/** Milliseconds of [fromMs, toMs] during which at least one of the spans ran. */
function coveredMs(spans: readonly { startMs: number; endMs: number }[], fromMs: number, toMs: number): number {
  let covered = 0;
  let reachedMs = fromMs;
  for (const span of [...spans].sort((a, b) => a.startMs - b.startMs)) {
    const startMs = Math.max(span.startMs, reachedMs);
    const endMs = Math.min(span.endMs, toMs);
    if (endMs > startMs) covered += endMs - startMs;
    reachedMs = Math.max(reachedMs, endMs);
  }
  return covered;
}

/** CPU seconds of the runs of those kinds. */
function cpuSecondsOf(runs: readonly MediaToolRunSpan[], kinds: readonly MediaToolRunKind[]): number {
  return runs.filter((run) => kinds.includes(run.kind)).reduce((total, run) => total + run.cpuSeconds, 0);
}

/** From the first start to the last end of the runs of those kinds, in seconds. */
function spanSeconds(runs: readonly MediaToolRunSpan[], kinds: readonly MediaToolRunKind[]): number {
  const chosen = runs.filter((run) => kinds.includes(run.kind));
  if (chosen.length === 0) return 0;
  return round((Math.max(...chosen.map((run) => run.endMs)) - Math.min(...chosen.map((run) => run.startMs))) / 1000, 2);
}

/** A split source uploaded as a client would: PUT to its upload URL, then confirmed. */
export async function uploadSplitSource(apiUrl: string, key: string, source: SplitSourceFile): Promise<string> {
  const created = expectStatus(
    await call(`${apiUrl}/assets/upload-url`, 'POST', key, {
      filename: `source-${source.seconds}s.mp4`,
      content_type: 'video/mp4',
      size_bytes: source.sizeBytes,
      purpose: 'split_source',
    }),
    201,
    'POST /assets/upload-url (split source)',
  );
  const { asset_id: assetId, upload_url: uploadUrl } = JSON.parse(created.body) as {
    asset_id: string;
    upload_url: string;
  };
  const put = await putToUploadUrl(
    uploadUrl,
    { 'Content-Type': 'video/mp4' },
    source.sizeBytes,
    fileParts(source.path, BENCH_SETTINGS.splitJobs.readChunkBytes),
  );
  if (put.status !== 200) throw new Error(`PUT of the split source answered ${put.status}: ${put.body}`);
  expectStatus(
    await call(`${apiUrl}/assets/confirm-upload`, 'POST', key, { asset_id: assetId }),
    200,
    'POST /assets/confirm-upload (split source)',
  );
  return assetId;
}

/** A source the split phase runs a job of, by the name `--split-sources` gives it. */
export interface NamedSplitSource extends SplitSourceFile {
  name: string;
}

/** The load average over the last minute, to two decimals: how busy the shared machine was. */
const loadAverage = () => round(loadavg()[0]!, 2);

/**
 * One split job with the default options, from just before its create until the instant it
 * completed. That instant is the job's own `updated_at` (the stack runs on this machine, so its
 * clock is this process's): polls a second apart find the job completed without the wall time
 * waiting for the next poll, and cost the stack less CPU beside the job than polls every 250 ms.
 */
export async function measureSplitJob(apiUrl: string, key: string, assetId: string, source: NamedSplitSource) {
  const settings = BENCH_SETTINGS.splitJobs;
  const jobsUrl = `${apiUrl}/split-jobs`;
  const before = snapshot();
  mediaToolRuns.length = 0;
  peopleDetection.detections.length = 0;
  peopleDetection.loads.length = 0;
  const loadBefore = loadAverage();
  const processCpuBefore = process.cpuUsage();
  const startedAtEpochMs = Date.now();
  const startedAt = performance.now();
  const created = expectStatus(await call(jobsUrl, 'POST', key, { source_asset_id: assetId }), 201, 'POST /split-jobs');
  const jobId = (JSON.parse(created.body) as { id: string }).id;
  let chosenAt: number | undefined;
  let completedAt: number;
  for (;;) {
    const reply = expectStatus(await call(`${jobsUrl}/${jobId}`, 'GET', key), 200, 'GET /split-jobs/{id}');
    const job = JSON.parse(reply.body) as { status: string; progress: number; updated_at: string };
    if (chosenAt === undefined && job.progress >= settings.chosenProgress) chosenAt = performance.now();
    if (job.status === 'completed') {
      completedAt = startedAt + (Date.parse(job.updated_at) - startedAtEpochMs);
      // Seen completed by the poll that first saw the clips chosen too: the choice was before the end.
      chosenAt = Math.min(chosenAt!, completedAt);
      break;
    }
    if (job.status !== 'queued' && job.status !== 'processing') {
      throw new Error(`Split job ${jobId} ended ${job.status}: ${reply.body}`);
    }
    if (performance.now() - startedAt > settings.timeoutMs) {
      throw new Error(`Split job ${jobId} not completed in ${settings.timeoutMs} ms`);
    }
    await sleep(settings.pollMs);
  }
  const loadAfter = loadAverage();
  const processCpu = process.cpuUsage(processCpuBefore);
  const listed = expectStatus(await call(`${jobsUrl}/${jobId}/clips`, 'GET', key), 200, 'GET /split-jobs/{id}/clips');
  const clips = (
    JSON.parse(listed.body) as { clips: { status: string; duration_seconds: number; framing: string | null }[] }
  ).clips.filter((clip) => clip.status === 'completed');
  const runs = [...mediaToolRuns];
  const workerCalls = callsBetween(before, snapshot(), 'background');
  const wallSeconds = (completedAt - startedAt) / 1000;
  const clipSeconds = clips.map((clip) => clip.duration_seconds);
  const outputMinutes = clipSeconds.reduce((total, seconds) => total + seconds, 0) / 60;
  const analysisCpuSeconds = cpuSecondsOf(runs, ['analysis']);
  const renderCpuSeconds = cpuSecondsOf(runs, ['clip', 'thumbnail']);
  const analysisCpuPerSourceMinute = analysisCpuSeconds / (source.seconds / 60);
  const renderCpuPerOutputMinute = outputMinutes > 0 ? renderCpuSeconds / outputMinutes : 0;
  const analysisSpanSeconds = spanSeconds(runs, ['analysis']);
  const detections = [...peopleDetection.detections];
  const [detectorLoad] = peopleDetection.loads;
  const detectorCpuSeconds = detections.reduce((total, report) => total + report.cpuMs, 0) / 1000;
  const processCpuSeconds = (processCpu.user + processCpu.system) / 1e6;
  // Every CPU-second of the job on this machine: its media tools, and this process (the detector's thread in it).
  const jobCpuSeconds = cpuSecondsOf(runs, ['probe', 'analysis', 'clip', 'thumbnail']) + processCpuSeconds;
  return {
    source: source.name,
    source_seconds: source.seconds,
    source_mb: megabytes(source.sizeBytes),
    load_average_1m: { before: loadBefore, after: loadAfter },
    create_ms: round(created.ms),
    wall_s: round(wallSeconds, 2),
    wall_per_source_second: round(wallSeconds / source.seconds, 3),
    clips: clips.length,
    subject_framed_clips: clips.filter((clip) => clip.framing === 'subject').length,
    clip_seconds: round(outputMinutes * 60),
    // Set at the latest by the poll that saw the job completed (progress 100), and no later than the end.
    to_chosen_s: round((chosenAt! - startedAt) / 1000, 2),
    after_chosen_s: round((completedAt - chosenAt!) / 1000, 2),
    analysis_ffmpeg_s: analysisSpanSeconds,
    clip_renders_s: spanSeconds(runs, ['clip', 'thumbnail']),
    clip_encode_s: runs
      .filter((run) => run.kind === 'clip')
      .sort((a, b) => a.startMs - b.startMs)
      .map((run) => round((run.endMs - run.startMs) / 1000, 2)),
    no_media_tool_running_s: round(wallSeconds - coveredMs(runs, startedAt, completedAt) / 1000, 2),
    cpu_s: {
      probe: round(cpuSecondsOf(runs, ['probe']), 2),
      analysis: round(analysisCpuSeconds, 2),
      clip_encodes: round(cpuSecondsOf(runs, ['clip']), 2),
      thumbnails: round(cpuSecondsOf(runs, ['thumbnail']), 2),
      // This process: the stack's workers (the people detector's thread among them), its emulators but DynamoDB Local, the polls.
      stack_process: round(processCpuSeconds, 2),
    },
    people_detector: {
      frames: detections.reduce((total, report) => total + report.frames, 0),
      face_runs: detections.reduce((total, report) => total + report.faceRuns, 0),
      body_runs: detections.reduce((total, report) => total + report.bodyRuns, 0),
      cpu_s: round(detectorCpuSeconds, 2),
      cpu_s_per_source_second: round(detectorCpuSeconds / source.seconds, 4),
      share_of_job_cpu: jobCpuSeconds > 0 ? round(detectorCpuSeconds / jobCpuSeconds, 3) : 0,
      // The wall time during which at least one segment's detection was under way.
      wall_s: round(
        coveredMs(
          detections.map((report) => ({ startMs: report.endMs - report.wallMs, endMs: report.endMs })),
          startedAt,
          completedAt,
        ) / 1000,
        2,
      ),
      load: detectorLoad ? { wall_ms: round(detectorLoad.wallMs), cpu_ms: round(detectorLoad.cpuMs) } : null,
    },
    analysis_cpu_s_per_source_minute: round(analysisCpuPerSourceMinute, 2),
    render_cpu_s_per_output_minute: round(renderCpuPerOutputMinute, 2),
    analysis_cores_used: analysisSpanSeconds > 0 ? round(analysisCpuSeconds / analysisSpanSeconds, 2) : 0,
    aws_model: awsSplitModel({
      // AnalyseSegment finds the people in its segment after its ffmpeg, on the function's vCPUs too.
      analysisCpuSecondsPerSourceMinute: (analysisCpuSeconds + detectorCpuSeconds) / (source.seconds / 60),
      renderCpuSecondsPerOutputMinute: renderCpuPerOutputMinute,
      clipSeconds,
    }),
    worker_sdk_calls_per_job: sum(workerCalls),
    worker_sdk_calls: workerCalls,
  };
}

/**
 * Talks with a person in them (test/support/people-fixtures.ts, makeTalkSource: a real photograph
 * of a presenter beside a whiteboard, a slide now and then), at 25 fps and the bit rate a camera's
 * or a conference recording's file has: about 80 MB for 10 minutes of 720p.
 */
export const TALK_SPLIT_SOURCES = {
  'talk-720p': { width: 1280, height: 720, videoKbps: 1100 },
  'talk-1080p': { width: 1920, height: 1080, videoKbps: 2500 },
} as const;
export type TalkSplitSourceKind = keyof typeof TALK_SPLIT_SOURCES;

export type SplitSourceKind = 'patterns' | NoisySplitSourceKind | TalkSplitSourceKind;

const isTalk = (kind: SplitSourceKind): kind is TalkSplitSourceKind => kind in TALK_SPLIT_SOURCES;

/**
 * A split source's name, as BENCH_SETTINGS.splitJobs.sources and `--split-sources` give it:
 * `patterns-<seconds>s` (makeSplitSources), `noisy-720p-<seconds>s` or `noisy-1080p-<seconds>s`
 * (makeNoisySplitSource), `talk-720p-<seconds>s` or `talk-1080p-<seconds>s` (makeTalkSource).
 * Throws for any other.
 */
export function parseSplitSourceName(name: string): { kind: SplitSourceKind; seconds: number } {
  const parsed = /^(patterns|noisy-720p|noisy-1080p|talk-720p|talk-1080p)-(\d+)s$/.exec(name);
  if (!parsed) {
    throw new Error(
      `A split source is patterns-<seconds>s, noisy-720p-<seconds>s, noisy-1080p-<seconds>s, talk-720p-<seconds>s or talk-1080p-<seconds>s; not '${name}'`,
    );
  }
  const kind = parsed[1] as SplitSourceKind;
  const seconds = Number(parsed[2]);
  // The pattern sources and the talks are joined from whole minutes, the noisy ones from whole segments.
  const piece = kind === 'patterns' || isTalk(kind) ? 60 : NOISY_SEGMENT_SECONDS;
  if (seconds === 0 || seconds % piece !== 0) {
    throw new Error(`A ${kind} split source lasts a whole number of ${piece} s pieces; '${name}' does not`);
  }
  return { kind, seconds };
}

/**
 * The split phase: the named sources made (not timed; the pattern ones and each noisy one side
 * by side), then one job of each, one after another, then the reference encode on a pattern
 * source.
 */
export async function measureSplitJobs({
  apiUrl,
  key,
  dataDir,
  sourceNames,
  sourcesDirectory = join(dataDir, 'split-sources'),
  progress,
}: {
  apiUrl: string;
  key: string;
  dataDir: string;
  sourceNames: readonly string[];
  /** Where the sources are made; the encoded minutes and segments an earlier run left there are reused. */
  sourcesDirectory?: string;
  progress: (message: string) => void;
}) {
  const settings = BENCH_SETTINGS.splitJobs;
  const ffmpeg = await resolveMediaTool('ffmpeg');
  const directory = sourcesDirectory;
  const wanted = sourceNames.map((name) => ({ name, ...parseSplitSourceName(name) }));
  const patternSeconds = wanted.filter((source) => source.kind === 'patterns').map((source) => source.seconds);
  progress(`split jobs: making the sources ${sourceNames.join(', ')} (not timed)`);
  const sourcesStartedAt = performance.now();
  const [patterns, ...noisy] = await Promise.all([
    patternSeconds.length > 0 ? makeSplitSources(ffmpeg.path, directory, patternSeconds) : [],
    ...wanted.map(async (source) => {
      if (source.kind === 'patterns') return undefined;
      const made = isTalk(source.kind)
        ? await makeTalkSplitSource(ffmpeg.path, directory, source.kind, source.seconds)
        : await makeNoisySplitSource(ffmpeg.path, directory, source.kind, source.seconds);
      return { ...made, name: source.name };
    }),
  ]);
  progress(`split jobs: sources made in ${round((performance.now() - sourcesStartedAt) / 1000)} s`);
  const sources: NamedSplitSource[] = wanted.map((source, index) => {
    if (source.kind !== 'patterns') return noisy[index]!;
    return { ...patterns.find((made) => made.seconds === source.seconds)!, name: source.name };
  });
  const runs = [];
  for (const source of sources) {
    progress(`split job of ${source.name} (${megabytes(source.sizeBytes)} MiB): create to completed`);
    const assetId = await uploadSplitSource(apiUrl, key, source);
    runs.push(await measureSplitJob(apiUrl, key, assetId, source));
  }
  // Every pattern source holds the same frames from its 60th second, the reference's 30 s: a run
  // of other sources only makes the shortest for it.
  const [referenceSource] = patterns.length > 0 ? patterns : await makeSplitSources(ffmpeg.path, directory, [120]);
  progress('split jobs: the reference encode (30 s of a pattern source cropped to 720x1280, x264 veryfast)');
  const referenceEncodeS = await referenceEncodeSeconds(
    ffmpeg.path,
    referenceSource!.path,
    join(dataDir, 'reference.mp4'),
  );
  const framingCost: ({ kind: SplitSourceKind; source: string } & Awaited<ReturnType<typeof measureFramingCost>>)[] =
    [];
  for (const source of sources) {
    const { kind } = parseSplitSourceName(source.name);
    if (framingCost.some((measured) => measured.kind === kind)) continue;
    progress(`split jobs: the cost of subject framing on ${settings.framingCostSeconds} s of ${source.name}`);
    const size =
      kind === 'patterns'
        ? { width: 1280, height: 720 }
        : isTalk(kind)
          ? TALK_SPLIT_SOURCES[kind]
          : NOISY_SPLIT_SOURCES[kind];
    const measured = await measureFramingCost(ffmpeg.path, { path: source.path, ...size }, settings.framingCostSeconds);
    framingCost.push({ kind, source: source.name, ...measured });
  }
  progress('split jobs: loading the people detector afresh (its thread, the WebAssembly, both models)');
  const peopleDetector = await measurePeopleDetectorLoad();
  return {
    ffmpeg: ffmpeg.version,
    poll_interval_ms: settings.pollMs,
    reference_encode_s: referenceEncodeS,
    runs,
    framing_cost: framingCost,
    people_detector: peopleDetector,
  };
}
