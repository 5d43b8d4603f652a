import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { JobType } from '#contract/types';
import type { Grant, TableAccess } from '#grants';
import type { SettingName } from '#platform/settings';

/**
 * The workflow table: for each job type, the state machine that runs its jobs, how an execution
 * of it starts, and the worker Lambdas its ASL file names. The CDK app, the create path and the
 * local stack all read it here. In an ASL file, `${Substitution}` stands for the worker's
 * function (its ARN in AWS, its module locally).
 */

/** What every job execution starts with; each worker's state carries it on. */
export interface JobExecutionInput {
  organization_id: number;
  job_id: string;
}

/**
 * Groups of settings a worker reads (their variables are the entries of lambdas/platform/settings.ts
 * whose source names the group); the CDK app and the local stack each fill them in.
 */
export type WorkerSetting = 'video-provider' | 'render-schedule' | 'transcription';

/** `table` is what the worker does with the table, `grants` what it may touch in AWS beyond it. */
export interface Worker extends TableAccess {
  /** Module under lambdas/workers that exports `handler`. */
  readonly handler: string;
  readonly grants: readonly Grant[];
  readonly memoryMb: number;
  readonly timeoutSeconds: number;
  readonly settings: readonly WorkerSetting[];
  /** Runs ffmpeg or ffprobe (lambdas/platform/media-tools.ts): in AWS, with the media-tools layer. */
  readonly mediaTools?: true;
  /** Lambda's /tmp, when the default 512 MB is too small. */
  readonly ephemeralStorageMb?: number;
}

export interface Workflow {
  readonly name: string;
  readonly jobType: JobType;
  /** Path of the ASL file from the repository root. */
  readonly definitionFile: string;
  /** The setting through which the functions granted to start it find the state machine's ARN. */
  readonly arnSetting: SettingName;
  /** The grant a route needs to start it. */
  readonly startGrant: Grant;
  /**
   * The ASL file's top-level TimeoutSeconds (checked when the definition is read): an execution
   * still running then ends TIMED_OUT, and its job expires through the execution-ended task.
   */
  readonly executionTimeoutSeconds: number;
  /** The execution's input for one job; its name is always the job id. */
  executionInput(job: { organizationId: number; jobId: string }): JobExecutionInput;
  readonly workers: Readonly<Record<string, Worker>>;
}

const jobExecutionInput = (job: { organizationId: number; jobId: string }): JobExecutionInput => ({
  organization_id: job.organizationId,
  job_id: job.jobId,
});

export const WORKFLOWS: readonly Workflow[] = [
  {
    name: 'video-job',
    jobType: 'video',
    definitionFile: 'state-machines/video-job.asl.json',
    arnSetting: 'videoJobStateMachineArn',
    startGrant: 'states.video-job:start',
    // Throttled starts (minutes), the 30-minute render deadline, and the finish's own retries.
    executionTimeoutSeconds: 3600,
    executionInput: jobExecutionInput,
    workers: {
      StartRenderFunction: {
        handler: 'video-jobs/start-render',
        // Moves the job to processing (its job-list entries too) and records the render it started.
        table: ['GetItem', 'UpdateItem', 'PutItem', 'DeleteItem'],
        // Bedrock writes the render under renders/ with the rights of the caller of StartAsyncInvoke.
        grants: ['media.assets:get', 'media.renders:put', 'bedrock.video-model:start'],
        // Reads and base64-encodes the source image of image-to-video in memory.
        memoryMb: 1024,
        timeoutSeconds: 60,
        settings: ['video-provider', 'render-schedule'],
      },
      PollRenderFunction: {
        handler: 'video-jobs/poll-render',
        table: ['GetItem', 'UpdateItem'],
        // Writes nothing under renders/: Bedrock writes the render with the rights of its starter.
        grants: ['media.renders:get', 'bedrock.video-model:poll'],
        // One provider status call, a HeadObject of a finished video and a progress update.
        memoryMb: 512,
        timeoutSeconds: 30,
        settings: ['video-provider'],
      },
      FinishVideoFunction: {
        handler: 'video-jobs/finish-video',
        // Reads the job's requested duration and aspect ratio.
        table: ['GetItem'],
        grants: ['media.renders:get', 'media.renders:put'],
        // One ffmpeg run over at most 18 s of 1280x720 into 720x1280 at most, read through a presigned
        // URL: 2048 MB buys more than one vCPU; the finished file (a few MB) goes to /tmp.
        memoryMb: 2048,
        timeoutSeconds: 300,
        settings: [],
        mediaTools: true,
      },
      FinishJobFunction: {
        handler: 'video-jobs/finish-job',
        table: ['GetItem', 'UpdateItem', 'PutItem', 'DeleteItem'],
        grants: ['media.renders:get', 'media.assets:put'],
        // A server-side CopyObject of the finished video (tens of MB) and one transaction.
        memoryMb: 512,
        timeoutSeconds: 60,
        settings: [],
      },
    },
  },
  {
    name: 'split-job',
    jobType: 'split',
    definitionFile: 'state-machines/split-job.asl.json',
    arnSetting: 'splitJobStateMachineArn',
    startGrant: 'states.split-job:start',
    // Analysis of a 3-hour source in parallel segments (each under 15 minutes), a transcription
    // given up after an hour, rendering, and the retries of each: well inside four hours.
    executionTimeoutSeconds: 14400,
    executionInput: jobExecutionInput,
    workers: {
      PrepareSplitFunction: {
        handler: 'split-jobs/prepare',
        table: ['GetItem', 'UpdateItem', 'PutItem', 'DeleteItem'],
        // Transcribe reads the source and writes its output with this function's rights.
        grants: ['media.assets:get', 'media.work:put', 'transcribe.jobs:start'],
        // ffprobe over a presigned URL (only when the asset was never probed) and a few table calls.
        memoryMb: 1024,
        timeoutSeconds: 60,
        settings: ['transcription'],
        mediaTools: true,
      },
      AnalyseSegmentFunction: {
        handler: 'split-jobs/analyse-segment',
        table: ['UpdateItem'],
        grants: ['media.assets:get', 'media.work:put'],
        // One ffmpeg decoding pass over up to 20 minutes of source, read through a presigned URL:
        // 3008 MB buys about two vCPUs for the decoder; nothing is written to /tmp but small
        // metadata files.
        memoryMb: 3008,
        timeoutSeconds: 900,
        settings: [],
        mediaTools: true,
      },
      PollTranscriptionFunction: {
        handler: 'split-jobs/poll-transcription',
        // The execution's state carries the transcription; the table is not used.
        table: [],
        grants: ['transcribe.jobs:poll', 'media.work:get', 'media.work:put'],
        // Holds a transcript of up to 20 MB while it converts it.
        memoryMb: 512,
        timeoutSeconds: 60,
        settings: ['transcription'],
      },
      ChooseClipsFunction: {
        handler: 'split-jobs/choose-clips',
        table: ['GetItem', 'Query', 'UpdateItem', 'PutItem', 'ConditionCheckItem'],
        grants: ['media.work:get'],
        // Merges the analyses (a few MB for three hours) and scores candidate windows.
        memoryMb: 1024,
        timeoutSeconds: 120,
        settings: [],
      },
      RenderClipFunction: {
        handler: 'split-jobs/render-clip',
        table: ['GetItem', 'UpdateItem'],
        grants: ['media.assets:get', 'media.work:get', 'media.clips:put'],
        // One clip of at most 90 s encoded with x264 at up to 1280 px: two vCPUs, and /tmp for the
        // MP4 (tens of MB) and its thumbnail.
        memoryMb: 3008,
        timeoutSeconds: 600,
        settings: [],
        mediaTools: true,
        ephemeralStorageMb: 2048,
      },
      FailClipFunction: {
        handler: 'split-jobs/fail-clip',
        table: ['UpdateItem'],
        grants: [],
        // One conditional update.
        memoryMb: 256,
        timeoutSeconds: 30,
        settings: [],
      },
      FinishSplitFunction: {
        handler: 'split-jobs/finish',
        table: ['GetItem', 'Query', 'UpdateItem', 'PutItem', 'DeleteItem'],
        grants: [],
        // A query of at most ten clips, their updates and one transaction.
        memoryMb: 512,
        timeoutSeconds: 60,
        settings: [],
      },
    },
  },
];

/** The workflow that runs jobs of the type. */
export function workflowOfJobType(jobType: JobType): Workflow {
  const workflow = WORKFLOWS.find((candidate) => candidate.jobType === jobType);
  if (!workflow) throw new Error(`lambdas/workflows.ts has no workflow for ${jobType} jobs`);
  return workflow;
}

/** `${Name}` in an ASL file: where the worker named Name goes. */
const SUBSTITUTION = /\$\{([A-Za-z0-9_]+)\}/g;

/**
 * The workflow's ASL file with every `${Name}` replaced by its target: the worker's function ARN
 * in the CDK app, its module in the local stack. A name without a worker, or a worker no state
 * uses, is an error here, so it fails the synth or the local start rather than an execution.
 */
export function definitionWithWorkers(workflow: Workflow, targets: Readonly<Record<string, string>>): string {
  const text = readFileSync(join(__dirname, '..', workflow.definitionFile), 'utf8');
  let definition: { TimeoutSeconds?: unknown };
  try {
    definition = JSON.parse(text) as { TimeoutSeconds?: unknown };
  } catch (error) {
    throw new Error(`${workflow.definitionFile} is not valid JSON: ${(error as Error).message}`);
  }
  if (definition.TimeoutSeconds !== workflow.executionTimeoutSeconds) {
    throw new Error(
      `${workflow.definitionFile} has TimeoutSeconds ${String(definition.TimeoutSeconds)}, but lambdas/workflows.ts ` +
        `says the ${workflow.name} workflow times out after ${workflow.executionTimeoutSeconds} seconds.`,
    );
  }
  const used = new Set([...text.matchAll(SUBSTITUTION)].map((match) => match[1] as string));
  const unknown = [...used].filter((name) => !(name in workflow.workers));
  const unused = Object.keys(workflow.workers).filter((name) => !used.has(name));
  if (unknown.length > 0 || unused.length > 0) {
    throw new Error(
      `${workflow.definitionFile} and the ${workflow.name} workers of lambdas/workflows.ts disagree: ` +
        `no worker for ${unknown.map((name) => `\${${name}}`).join(', ') || 'nothing'}; ` +
        `not used by any state: ${unused.join(', ') || 'nothing'}.`,
    );
  }
  return text.replace(SUBSTITUTION, (_, name: string) => targets[name] as string);
}
