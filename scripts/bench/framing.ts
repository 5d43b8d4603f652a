import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  loadPeopleDetector,
  PEOPLE_DETECTION_CHANNEL,
  type PeopleDetectionReport,
  type PeopleDetectorLoadReport,
} from '#domain/framing/people-detection';
import { subjectSampleSize } from '#domain/framing/subject-window';
import { peopleDetectorFiles } from '#platform/people-detector-files';
import { analyseSegment } from '#domain/split-jobs/analysis';
import { framingOfSampledFrames } from '#domain/split-jobs/subject-frames';
import { reapedChildrenCpuSeconds } from './cpu';
import { median, round } from './statistics';

/**
 * What subject framing costs, on a stretch of a split source: the analysis run with and without
 * sampling its frames (CPU-seconds of ffmpeg), and finding the people in those frames and
 * planning the framing of a 9:16 clip of the whole stretch (CPU-seconds of this process, the
 * detector's thread and its loading included; and the detector's own, by its reports). A job
 * pays the sampling on the whole source and the finding on its clips only; the cost is reported
 * per second of source as if the clips covered all of it, the most a job can pay.
 */
export async function measureFramingCost(
  ffmpegPath: string,
  source: { path: string; width: number; height: number },
  seconds: number,
) {
  const directory = await mkdtemp(join(tmpdir(), 'bench-framing-'));
  try {
    const range = { startSeconds: 0, endSeconds: seconds };
    const options = { ffmpegPath, input: source.path, range, hasAudio: true, timeoutMs: 10 * 60_000 };
    const analysisCpu = async (subjectFrames?: { path: string; width: number; height: number }) => {
      const before = reapedChildrenCpuSeconds();
      const { sceneCuts } = await analyseSegment({ ...options, subjectFrames });
      return { cpuS: reapedChildrenCpuSeconds() - before, sceneCuts };
    };
    const size = subjectSampleSize(source);
    const framesPath = join(directory, 'frames.rgb');
    const { cpuS: plainCpuS } = await analysisCpu();
    const { cpuS: sampledCpuS, sceneCuts } = await analysisCpu({ path: framesPath, ...size });

    const rgb = await readFile(framesPath);
    const samples = Math.floor(rgb.length / (size.width * size.height * 3));
    const detections: PeopleDetectionReport[] = [];
    const listener = (message: unknown) => {
      const report = message as PeopleDetectionReport | PeopleDetectorLoadReport;
      if (report.kind === 'detected') detections.push(report);
    };
    subscribe(PEOPLE_DETECTION_CHANNEL, listener);
    const cpuBefore = process.cpuUsage();
    const plan = await framingOfSampledFrames(framesPath, size, {
      framing: 'auto',
      aspectRatio: '9:16',
      source,
      clip: range,
      sceneCuts,
    });
    const used = process.cpuUsage(cpuBefore);
    unsubscribe(PEOPLE_DETECTION_CHANNEL, listener);
    // This process's CPU, the detector's thread included (its loading too, on the first run).
    const findingCpuS = (used.user + used.system) / 1e6;
    const detectorCpuS = detections.reduce((total, report) => total + report.cpuMs, 0) / 1000;
    const samplingCpuS = Math.max(0, sampledCpuS - plainCpuS);
    return {
      seconds,
      samples,
      analysis_cpu_s: round(plainCpuS, 2),
      analysis_with_sampling_cpu_s: round(sampledCpuS, 2),
      sampling_cpu_s_per_source_second: round(samplingCpuS / seconds, 4),
      finding_cpu_s_per_clip_second: round(findingCpuS / seconds, 4),
      finding_ms_per_sample: round((findingCpuS * 1000) / samples, 2),
      detector_ms_per_sample: round((detectorCpuS * 1000) / samples, 2),
      detector_face_runs: detections.reduce((total, report) => total + report.faceRuns, 0),
      detector_body_runs: detections.reduce((total, report) => total + report.bodyRuns, 0),
      cost_per_source_second: round((samplingCpuS + findingCpuS) / seconds, 4),
      framing: plan.framing,
      framing_reason: plan.reason,
    };
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

/**
 * The people detector as a function instance meets it: its directory's files (the layer's
 * contents, unzipped) and the loading of a detector of its own (its thread started, the engine,
 * the WebAssembly and both models), `rounds` times, each then closed; the median of each figure.
 */
export async function measurePeopleDetectorLoad(rounds = 3) {
  const files = peopleDetectorFiles();
  const directory = dirname(files.engine);
  const sizeOf = async (path: string): Promise<number> => {
    const entry = await stat(path);
    if (!entry.isDirectory()) return entry.size;
    const sizes = await Promise.all((await readdir(path)).map((name) => sizeOf(join(path, name))));
    return sizes.reduce((total, size) => total + size, 0);
  };
  const loads: PeopleDetectorLoadReport[] = [];
  const listener = (message: unknown) => {
    const report = message as PeopleDetectionReport | PeopleDetectorLoadReport;
    if (report.kind === 'loaded') loads.push(report);
  };
  subscribe(PEOPLE_DETECTION_CHANNEL, listener);
  try {
    for (let round = 0; round < rounds; round += 1) await (await loadPeopleDetector(files)).close();
  } finally {
    unsubscribe(PEOPLE_DETECTION_CHANNEL, listener);
  }
  // Decimal megabytes, as Lambda's limits are stated.
  const mb = async (path: string) => round((await sizeOf(path)) / 1e6, 2);
  return {
    rounds,
    load_wall_ms: round(median(loads.map((load) => load.wallMs))),
    load_cpu_ms: round(median(loads.map((load) => load.cpuMs))),
    files_mb: {
      engine: await mb(files.engine),
      worker: await mb(files.worker),
      wasm: await mb(files.wasmDirectory),
      models: await mb(files.modelsDirectory),
      total: await mb(directory),
    },
  };
}
