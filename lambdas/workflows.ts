import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { JobType } from '#contract/types';
import { JOB_STATE_MACHINES } from '#domain/jobs/job-execution';
import type { SplitState } from '#domain/split-jobs/split-steps';
import type { RenderState } from '#domain/video-jobs/render-steps';
import type { Grant, TableAccess } from '#grants';
import type { NamedIn, Setting, SettingSourceNames } from '#platform/settings';

/**
 * The workflow table: for each job type, the state machine that runs its jobs, the worker Lambdas
 * its ASL file names and the outcomes its Choice states route on. The CDK app and the local stack
 * build the state machines from it; the job core, below it, starts them with what it knows of each
 * (JOB_STATE_MACHINES in lambdas/domain/jobs/job-execution.ts), which the table takes from there.
 * In an ASL file, `${Substitution}` stands for the worker's function (its ARN in AWS, its module
 * locally).
 */

/**
 * Groups of settings a worker reads (their variables are the entries of lambdas/platform/settings.ts
 * whose source names the group); the CDK app and the local stack each fill them in.
 */
export type WorkerSetting = 'video-provider' | 'render-schedule' | 'transcription' | 'language-model';

/** The groups lambdas/platform/settings.ts names as set by workers: each one a WorkerSetting. */
export type SettingWorkerSettings = NamedIn<SettingSourceNames['worker-setting'], WorkerSetting>;

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
  /** Draws captions (lambdas/platform/caption-fonts.ts): in AWS, with the caption-fonts layer. */
  readonly captionFonts?: true;
  /** Finds people in frames (lambdas/platform/people-detector-files.ts): in AWS, with the people-detector layer. */
  readonly peopleDetector?: true;
  /** Lambda's /tmp, when the default 512 MB is too small. */
  readonly ephemeralStorageMb?: number;
}

export interface Workflow {
  readonly name: string;
  readonly jobType: JobType;
  /** Path of the ASL file from the repository root. */
  readonly definitionFile: string;
  /** The setting through which the functions granted to start it find the state machine's ARN. */
  readonly arnSetting: Setting;
  /** The grant a route needs to start it. */
  readonly startGrant: Grant;
  /** The grant a function needs to stop its executions (a cancel, a passed deadline). */
  readonly stopGrant: Grant;
  /**
   * The ASL file's top-level TimeoutSeconds, as the job core knows it (JOB_STATE_MACHINES in
   * lambdas/domain/jobs/job-execution.ts); definitionWithWorkers refuses a definition with another.
   */
  readonly executionTimeoutSeconds: number;
  readonly workers: Readonly<Record<string, Worker>>;
  /**
   * Every value the execution state's `outcome` can take: what the workers' steps answer and what
   * the ASL file writes itself (FinishCrashed's `crashed`, SourceUnreadable's `unreadable`).
   * Checked when the definition is read: a Choice comparing `$.outcome` to another value, or a
   * state writing one, is an error.
   */
  readonly outcomes: readonly string[];
}

/**
 * The outcomes of a workflow's execution state (`State['outcome']`), listed: a list that leaves
 * one out, or names one the state cannot carry, does not compile.
 */
function outcomesOf<State extends { outcome: string }>() {
  return <const Listed extends readonly State['outcome'][]>(
    listed: Listed &
      ([Exclude<State['outcome'], Listed[number]>] extends [never]
        ? unknown
        : { unlisted: Exclude<State['outcome'], Listed[number]> }),
  ): readonly string[] => listed;
}

export const WORKFLOWS: readonly Workflow[] = [
  {
    name: 'video-job',
    jobType: 'video',
    definitionFile: 'state-machines/video-job.asl.json',
    arnSetting: JOB_STATE_MACHINES.video.arnSetting,
    startGrant: 'states.video-job:start',
    stopGrant: 'states.video-job:stop',
    // The ASL's time-out covers throttled starts (minutes), two chained renders of at most 20
    // minutes each (their deadline), and the finish's own retries.
    executionTimeoutSeconds: JOB_STATE_MACHINES.video.executionTimeoutSeconds,
    outcomes: outcomesOf<RenderState>()([
      'in_progress',
      'rendered',
      'completed',
      'failed',
      'expired',
      'finished',
      'crashed',
    ]),
    workers: {
      StartRenderFunction: {
        handler: 'video-jobs/start-render',
        // Moves the job to processing (its job-list entries too) and records the render it started.
        table: ['GetItem', 'UpdateItem', 'PutItem', 'DeleteItem'],
        // Reads the source image and the render before; writes the start image, and Bedrock writes
        // the render under renders/ with the rights of the caller of StartAsyncInvoke.
        grants: ['media.assets:get', 'media.renders:get', 'media.renders:put', 'bedrock.video-model:start'],
        // ffmpeg fits a source image of up to 8,000 px a side into the frame (or takes a render's
        // last frame), then the start image is sent base64-encoded: 2048 MB buys more than a vCPU.
        memoryMb: 2048,
        timeoutSeconds: 120,
        settings: ['video-provider', 'render-schedule'],
        mediaTools: true,
      },
      PollRenderFunction: {
        handler: 'video-jobs/poll-render',
        table: ['GetItem', 'UpdateItem'],
        // Writes nothing under renders/: Bedrock writes the render with the rights of its starter.
        // Lists the invocation's folder for the video Bedrock wrote.
        grants: ['media.renders:list', 'bedrock.video-model:poll'],
        // One provider status call, a listing of a finished render's folder and a progress update.
        memoryMb: 512,
        timeoutSeconds: 30,
        settings: ['video-provider'],
      },
      FinishVideoFunction: {
        handler: 'video-jobs/finish-video',
        // Reads the job's requested duration and aspect ratio, and moves the job to its finishing stage.
        table: ['GetItem', 'UpdateItem'],
        grants: ['media.renders:get', 'media.renders:put'],
        // One ffmpeg run joining at most 18 s of 720p renders into 15 s of 720x1280 at most, read
        // through presigned URLs: 2048 MB buys more than one vCPU; the finished file (a few MB) goes to /tmp.
        memoryMb: 2048,
        timeoutSeconds: 300,
        settings: [],
        mediaTools: true,
      },
      FinishJobFunction: {
        handler: 'video-jobs/finish-job',
        table: ['GetItem', 'UpdateItem', 'PutItem', 'DeleteItem'],
        // Copies the finished video under assets/, and deletes the copy when the job ended otherwise meanwhile.
        grants: ['media.renders:get', 'media.assets:put', 'media.assets:delete'],
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
    arnSetting: JOB_STATE_MACHINES.split.arnSetting,
    startGrant: 'states.split-job:start',
    stopGrant: 'states.split-job:stop',
    // Analysis of a 3-hour source in parallel segments (each under 15 minutes), a transcription
    // given up after an hour, rendering, and the retries of each: well inside the ASL's time-out.
    executionTimeoutSeconds: JOB_STATE_MACHINES.split.executionTimeoutSeconds,
    outcomes: outcomesOf<SplitState>()(['ready', 'chosen', 'unreadable', 'failed', 'finished', 'crashed', 'completed']),
    workers: {
      PrepareSplitFunction: {
        handler: 'split-jobs/prepare',
        table: ['GetItem', 'UpdateItem', 'PutItem', 'DeleteItem'],
        grants: ['media.assets:get'],
        // ffprobe over a presigned URL (only when the asset was never probed) and a few table calls.
        memoryMb: 1024,
        timeoutSeconds: 60,
        settings: [],
        mediaTools: true,
      },
      StartTranscriptionFunction: {
        handler: 'split-jobs/start-transcription',
        // Reads the job and its source asset.
        table: ['GetItem'],
        // Transcribe reads the source and writes its output with this function's rights.
        grants: ['media.assets:get', 'media.work:put', 'transcribe.jobs:start'],
        // One call to the provider.
        memoryMb: 512,
        timeoutSeconds: 60,
        settings: ['transcription'],
      },
      AnalyseSegmentFunction: {
        handler: 'split-jobs/analyse-segment',
        // Reads its job while ffmpeg runs (a cancel stops it) and advances the job's progress.
        table: ['GetItem', 'UpdateItem'],
        grants: ['media.assets:get', 'media.work:put'],
        // One ffmpeg decoding pass over up to 20 minutes of source, read through a presigned URL:
        // 3008 MB buys about two vCPUs for the decoder; nothing is written to /tmp but small
        // metadata files.
        memoryMb: 3008,
        timeoutSeconds: 900,
        settings: [],
        mediaTools: true,
        peopleDetector: true,
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
        // Reads the analyses and the transcript; asks the text model for clips by what is said.
        grants: ['media.work:get', 'bedrock.text-model:invoke'],
        // Merges the analyses (a few MB for three hours) and scores candidate windows, and waits
        // for the language model, which is given up after LANGUAGE_REQUEST_TIMEOUT_MS (60 s,
        // lambdas/domain/split-jobs/language/bedrock.ts): the 120 s the rest needed, and that minute.
        memoryMb: 1024,
        timeoutSeconds: 180,
        settings: ['language-model'],
      },
      RenderClipFunction: {
        handler: 'split-jobs/render-clip',
        table: ['GetItem', 'UpdateItem'],
        // Uploads the clip's files, and deletes them when the clip was failed meanwhile.
        grants: ['media.assets:get', 'media.work:get', 'media.clips:put', 'media.clips:delete'],
        // One clip of at most 90 s encoded with x264 at up to 1280 px: two vCPUs, and /tmp for the
        // MP4 (tens of MB) and its thumbnail.
        memoryMb: 3008,
        timeoutSeconds: 600,
        settings: [],
        mediaTools: true,
        captionFonts: true,
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

/** What the checks below read of an ASL file. */
interface Definition {
  TimeoutSeconds?: unknown;
  States?: Readonly<Record<string, DefinitionState>>;
}

/** What the checks read of one state: its Choice rules, the states it holds, and the JSON it builds. */
interface DefinitionState {
  Choices?: readonly ChoiceRule[];
  /** A Map's states (Iterator is the older name of ItemProcessor). */
  ItemProcessor?: Definition;
  Iterator?: Definition;
  /** A Parallel's states. */
  Branches?: readonly Definition[];
  Parameters?: unknown;
  ItemSelector?: unknown;
  ResultSelector?: unknown;
  /** A Pass state's output. */
  Result?: unknown;
}

/** A comparison of one variable, or rules combined. */
interface ChoiceRule {
  Variable?: string;
  StringEquals?: unknown;
  And?: readonly ChoiceRule[];
  Or?: readonly ChoiceRule[];
  Not?: ChoiceRule;
}

/** Where the execution state keeps the outcome of the step before, which the Choice states route on. */
const OUTCOME_VARIABLE = '$.outcome';

/** Every state of the definition by name, those inside a Map or a Parallel too. */
function statesOf(definition: Definition): [string, DefinitionState][] {
  return Object.entries(definition.States ?? {}).flatMap(([name, state]): [string, DefinitionState][] => [
    [name, state],
    ...[state.ItemProcessor, state.Iterator, ...(state.Branches ?? [])].flatMap((nested) =>
      nested ? statesOf(nested) : [],
    ),
  ]);
}

/** The values a Choice rule, and the rules it combines, compare the outcome to with StringEquals. */
function comparedOutcomes(rule: ChoiceRule): unknown[] {
  const combined = [...(rule.And ?? []), ...(rule.Or ?? []), ...(rule.Not ? [rule.Not] : [])];
  return [
    ...(rule.Variable === OUTCOME_VARIABLE && 'StringEquals' in rule ? [rule.StringEquals] : []),
    ...combined.flatMap(comparedOutcomes),
  ];
}

/** The outcomes a state writes itself: every `outcome` field of the JSON it builds (a Pass's, a Task's payload). */
function writtenOutcomes(json: unknown): unknown[] {
  if (typeof json !== 'object' || json === null) return [];
  return Object.entries(json).flatMap(([key, value]) => (key === 'outcome' ? [value] : writtenOutcomes(value)));
}

/** Where the definition names an outcome the workflow's entry does not list, one phrase each. */
function unlistedOutcomes(workflow: Workflow, definition: Definition): string[] {
  const listed = (value: unknown) => typeof value === 'string' && workflow.outcomes.includes(value);
  return statesOf(definition).flatMap(([name, state]) => [
    ...(state.Choices ?? [])
      .flatMap(comparedOutcomes)
      .filter((value) => !listed(value))
      .map(
        (value) =>
          `the Choice state ${name} compares ${OUTCOME_VARIABLE} to ${JSON.stringify(value)}, which no step produces`,
      ),
    ...[state.Parameters, state.ItemSelector, state.ResultSelector, state.Result]
      .flatMap(writtenOutcomes)
      .filter((value) => !listed(value))
      .map((value) => `the state ${name} writes the outcome ${JSON.stringify(value)}, which is not listed`),
  ]);
}

/**
 * The workflow's ASL file with every `${Name}` replaced by its target: the worker's function ARN
 * in the CDK app, its module in the local stack. A name without a worker, a worker no state uses,
 * or an outcome the workflow's entry does not list (compared by a Choice, or written by a state)
 * is an error here, so it fails the synth or the local start rather than an execution.
 */
export function definitionWithWorkers(workflow: Workflow, targets: Readonly<Record<string, string>>): string {
  const text = readFileSync(join(__dirname, '..', workflow.definitionFile), 'utf8');
  let definition: Definition;
  try {
    definition = JSON.parse(text) as Definition;
  } catch (error) {
    throw new Error(`${workflow.definitionFile} is not valid JSON: ${(error as Error).message}`);
  }
  if (definition.TimeoutSeconds !== workflow.executionTimeoutSeconds) {
    throw new Error(
      `${workflow.definitionFile} has TimeoutSeconds ${String(definition.TimeoutSeconds)}, but the ${workflow.name} ` +
        `workflow of lambdas/workflows.ts times out after ${workflow.executionTimeoutSeconds} seconds: its ` +
        `executionTimeoutSeconds must be imported from its own ASL file.`,
    );
  }
  const unlisted = unlistedOutcomes(workflow, definition);
  if (unlisted.length > 0) {
    throw new Error(
      `${workflow.definitionFile}: ${unlisted.join('; ')} (lambdas/workflows.ts lists the outcomes of the ` +
        `${workflow.name} workflow: ${workflow.outcomes.join(', ')}).`,
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
