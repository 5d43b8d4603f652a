import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { subjectSampleSize } from '#domain/framing/subject-window';
import { analyseSegment } from '#domain/split-jobs/analysis';
import { framingOfSampledFrames } from '#domain/split-jobs/subject-frames';
import { reapedChildrenCpuSeconds } from './cpu';
import { round } from './statistics';

/**
 * What subject framing costs, on a stretch of a split source: the analysis run with and without
 * sampling its frames (CPU-seconds of ffmpeg), and finding the people in those frames and
 * planning the framing of a 9:16 clip of the whole stretch (CPU-seconds of this process, the
 * detector's loading included). A job
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
    const cpuBefore = process.cpuUsage();
    const plan = await framingOfSampledFrames(framesPath, size, {
      framing: 'auto',
      aspectRatio: '9:16',
      source,
      clip: range,
      sceneCuts,
    });
    const used = process.cpuUsage(cpuBefore);
    const findingCpuS = (used.user + used.system) / 1e6;
    const samplingCpuS = Math.max(0, sampledCpuS - plainCpuS);
    return {
      seconds,
      samples,
      analysis_cpu_s: round(plainCpuS, 2),
      analysis_with_sampling_cpu_s: round(sampledCpuS, 2),
      sampling_cpu_s_per_source_second: round(samplingCpuS / seconds, 4),
      finding_cpu_s_per_clip_second: round(findingCpuS / seconds, 4),
      finding_ms_per_sample: round((findingCpuS * 1000) / samples, 2),
      cost_per_source_second: round((samplingCpuS + findingCpuS) / seconds, 4),
      framing: plan.framing,
      framing_reason: plan.reason,
    };
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}
