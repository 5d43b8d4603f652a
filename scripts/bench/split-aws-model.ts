import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { analysisSegments } from '#domain/split-jobs/analysis';
import { ANALYSIS_SEGMENT_SECONDS } from '#domain/split-jobs/split-steps';
import { workflowOfJobType } from '#workflows';
import { round } from './statistics';

/**
 * What a split job's media work would take in AWS, from CPU-seconds measured here: each analysis
 * segment (its ffmpeg, then the people detector on its sampled frames, both on the function's
 * vCPUs) in its own AnalyseSegmentFunction invocation and each clip in its own RenderClipFunction
 * invocation, as many at once as the state machine's Map states allow, each with the vCPUs its
 * memory buys. The figures it reads are the real ones: segment length from split-steps.ts, memory
 * from lambdas/workflows.ts, MaxConcurrency from the ASL file.
 *
 * Assumptions (docs/benchmarks.md): a Lambda vCPU does the work of one core of this machine (both
 * x86-64, the same ffmpeg build); ffmpeg keeps every vCPU of its invocation busy (x264 and the
 * H.264 decoder are threaded; `analysis_cores_used` says how far the analysis does here); the
 * clips of a 60- or 180-minute source are those of the measured source (the count is capped by
 * `max_clips`, the lengths by the preset, not by the source's length). Left out: cold starts,
 * state transitions, Prepare (one ffprobe), ChooseClips, the finish, and the wait for a
 * transcript (the local stack has no transcription; in AWS, Amazon Transcribe runs beside the
 * analysis and ChooseClips waits for it).
 */

/** Lambda gives CPU in proportion to memory: one vCPU's worth at 1,769 MB (AWS Lambda, "Memory and computing power"). */
const MB_PER_VCPU = 1769;

/** The source lengths modelled, in minutes. */
export const MODELLED_SOURCE_MINUTES = [10, 60, 180] as const;

interface MapState {
  MaxConcurrency: number;
}

/** What the model reads of the deployed configuration. */
function splitConfiguration() {
  const workflow = workflowOfJobType('split');
  const definition = JSON.parse(readFileSync(join(__dirname, '..', '..', workflow.definitionFile), 'utf8')) as {
    States: { AnalyseSource: MapState; RenderClips: MapState };
  };
  const vcpusOf = (worker: string) => {
    const memoryMb = workflow.workers[worker]?.memoryMb;
    if (memoryMb === undefined) throw new Error(`lambdas/workflows.ts has no split worker ${worker}`);
    return memoryMb / MB_PER_VCPU;
  };
  return {
    analysisVcpus: vcpusOf('AnalyseSegmentFunction'),
    renderVcpus: vcpusOf('RenderClipFunction'),
    analysisConcurrency: definition.States.AnalyseSource.MaxConcurrency,
    renderConcurrency: definition.States.RenderClips.MaxConcurrency,
  };
}

/**
 * When the last of the items ends, items started in order, each as soon as one of `slots` is
 * free: how a Map state with a MaxConcurrency runs its iterations.
 */
function makespan(durations: readonly number[], slots: number): number {
  const freeAt = new Array<number>(Math.max(1, slots)).fill(0);
  for (const duration of durations) {
    const slot = freeAt.indexOf(Math.min(...freeAt));
    freeAt[slot]! += duration;
  }
  return Math.max(...freeAt);
}

export interface SplitCpuFigures {
  analysisCpuSecondsPerSourceMinute: number;
  renderCpuSecondsPerOutputMinute: number;
  /** The measured job's clips, in seconds. */
  clipSeconds: readonly number[];
}

/** The modelled wall time in AWS of the media work for sources of each modelled length. */
export function awsSplitModel(figures: SplitCpuFigures) {
  const configuration = splitConfiguration();
  const renderSeconds = makespan(
    figures.clipSeconds.map(
      (seconds) => ((seconds / 60) * figures.renderCpuSecondsPerOutputMinute) / configuration.renderVcpus,
    ),
    configuration.renderConcurrency,
  );
  return {
    lambda_vcpus: {
      analysis: round(configuration.analysisVcpus, 2),
      render: round(configuration.renderVcpus, 2),
    },
    map_max_concurrency: {
      analysis: configuration.analysisConcurrency,
      render: configuration.renderConcurrency,
    },
    sources: MODELLED_SOURCE_MINUTES.map((minutes) => {
      const segments = analysisSegments(minutes * 60, ANALYSIS_SEGMENT_SECONDS);
      const analysisSeconds = makespan(
        segments.map(
          (segment) =>
            (((segment.endSeconds - segment.startSeconds) / 60) * figures.analysisCpuSecondsPerSourceMinute) /
            configuration.analysisVcpus,
        ),
        configuration.analysisConcurrency,
      );
      const wallSeconds = analysisSeconds + renderSeconds;
      return {
        source_minutes: minutes,
        analysis_segments: segments.length,
        analysis_s: round(analysisSeconds, 1),
        render_s: round(renderSeconds, 1),
        wall_s: round(wallSeconds, 1),
        wall_per_source_second: round(wallSeconds / (minutes * 60), 4),
      };
    }),
  };
}
