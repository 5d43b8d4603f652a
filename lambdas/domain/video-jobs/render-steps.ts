import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findAsset, generatedAssetPut } from '#domain/assets/asset-store';
import { copyObject, discardObjects, presignMediaToolRead, putFile } from '#domain/assets/media';
import { finishedRenderObjectKey, renderObjectKey, storedObjectKey } from '#domain/assets/media-layout';
import { isActive, jobOfType, type JobError, type JobOf } from '#domain/jobs/job';
import { executionInputOf, type JobExecutionInput } from '#domain/jobs/job-execution';
import { JOB_ERRORS } from '#domain/jobs/job-errors';
import { enterWorkStage, findJob, recordProgress, recordProviderJob } from '#domain/jobs/job-store';
import { finishJob, startJobWork } from '#domain/jobs/lifecycle';
import { mediaBucket } from '#platform/clients/s3';
import { log } from '#platform/log';
import { MediaToolError, mediaToolPath } from '#platform/media-tools';
import { retryableOnTransientFailure } from '#platform/task-failures';
import { sortableId } from '#platform/ids';
import type { RenderFrame, VideoModelEntry } from '#domain/models/model-registry';
import { extractLastFrame, prepareSourceKeyframe } from './keyframes';
import {
  RENDER_FAILURE_MESSAGES,
  type RenderFailed as ProviderRenderFailed,
  type RenderedVideo,
  type RenderRequest,
  type StartImageOrigin,
  type VideoProvider,
} from './providers/port';
import { renderPlan } from './render-plan';
import type { RenderSchedule } from './render-schedule';
import { finishVideo } from './video-finishing';

/**
 * The steps of the video job state machine (state-machines/video-job.asl.json), one per worker.
 * Each takes and returns one of the execution states below; the state machine only routes on
 * `outcome`.
 */

/**
 * Where a job's renders stand: its plan of render lengths (render-plan.ts), the render under way
 * or next, and those delivered, in order. Carried from state to state; the renders after the
 * first are chained, each starting from the last frame of the one before.
 */
export interface RenderChain {
  render_plan: number[];
  /** Index in `render_plan` of the render under way (or, after one was delivered, of the next). */
  render_index: number;
  renders: RenderedVideo[];
}

/** StartRender's and PollRender's answer while the provider renders: what the next poll needs. */
export interface RenderInProgress extends JobExecutionInput, RenderChain {
  outcome: 'in_progress';
  provider_job_id: string;
  output_asset_id: string;
  /** Unix milliseconds after which the render still running makes the job `expired`. */
  deadline_at: number;
  poll_interval_seconds: number;
}

/** PollRender's answer for a render delivered while the plan has more: StartRender starts the next. */
export interface RenderDeliveredPart extends JobExecutionInput, RenderChain {
  outcome: 'rendered';
  output_asset_id: string;
}

/** PollRender's answer for the last render of the plan delivered: what FinishVideo joins and finishes. */
export interface RenderDelivered extends JobExecutionInput {
  outcome: 'completed';
  output_asset_id: string;
  renders: RenderedVideo[];
}

/** The video FinishVideo made, measured: what FinishJob stores as the job's output. */
export interface FinishedVideoFile extends RenderedVideo {
  durationSeconds: number;
  width: number;
  height: number;
}

/** FinishVideo's answer for a finished video: what the finish stores. */
export interface RenderCompleted extends JobExecutionInput {
  outcome: 'completed';
  output_asset_id: string;
  output: FinishedVideoFile;
}

/** A render that could not start, that the provider failed, or that FinishVideo could not finish. */
export interface RenderFailed extends JobExecutionInput {
  outcome: 'failed';
  error: JobError;
}

/** PollRender's answer for a render still running past its deadline. */
export interface RenderExpired extends JobExecutionInput {
  outcome: 'expired';
  error: JobError;
}

/** A step's answer when the job has already ended: nothing is left to do. */
export interface RenderFinished extends JobExecutionInput {
  outcome: 'finished';
}

/** What the state machine's FinishCrashed hands FinishJob when a step failed past its retries. */
export interface RenderCrashed extends JobExecutionInput {
  outcome: 'crashed';
}

/** FinishJob's answer: how it ended the job. */
export interface RenderEnded extends JobExecutionInput {
  outcome: 'completed' | 'failed' | 'expired';
}

/** What reaches FinishJob (or FinishCrashed): every way the work on a job can stop. */
export type RenderEnding = RenderCompleted | RenderFailed | RenderExpired | RenderFinished | RenderCrashed;

/**
 * Every state an execution of the video job state machine carries from one state to the next, one
 * shape per outcome: the Choice states route on the outcome, and it says which fields come with
 * it, so a step answers only what its outcome carries and a reader narrows by it. The workflow's
 * entry in lambdas/workflows.ts lists the outcomes, and refuses an ASL file that compares
 * `$.outcome` to any other value.
 */
export type RenderState =
  | RenderInProgress
  | RenderDeliveredPart
  | RenderDelivered
  | RenderCompleted
  | RenderFailed
  | RenderExpired
  | RenderFinished
  | RenderCrashed
  | RenderEnded;

/** Bounds ffmpeg's work on a start image: one picture, read through a presigned URL. */
const KEYFRAME_TIMEOUT_MS = 60_000;

/** The renders of a job are numbered from 1 in its media folder and in their ids. */
const renderNumberOf = (chain: Pick<RenderChain, 'render_index'>) => chain.render_index + 1;

/** Unique per render, and the job id itself for the first: what providers make `start` idempotent by. */
const renderIdOf = (jobId: string, chain: Pick<RenderChain, 'render_index'>) =>
  chain.render_index === 0 ? jobId : `${jobId}/${renderNumberOf(chain)}`;

/**
 * The image the render starts from, stored beside its output: the job's source image fitted to
 * the frame for the first render of an image-to-video job, the last frame of the render before for
 * every later render of a chain, none for the first render of a text-to-video job.
 */
async function startImageFor(
  job: JobOf<'video'>,
  chain: RenderChain,
  frame: RenderFrame,
): Promise<{ state: 'ready'; startImage?: RenderRequest['startImage'] } | ProviderRenderFailed | 'source_gone'> {
  const previous = chain.renders[chain.render_index - 1];
  const sourceAssetId = job.input.source_asset_id;
  if (!previous && !sourceAssetId) return { state: 'ready' };
  const directory = await mkdtemp(join(tmpdir(), 'keyframe-'));
  try {
    const tools = {
      ffmpegPath: mediaToolPath('ffmpeg'),
      ffprobePath: mediaToolPath('ffprobe'),
      timeoutMs: KEYFRAME_TIMEOUT_MS,
      frame,
      directory,
    };
    let path: string;
    let origin: StartImageOrigin;
    if (previous) {
      path = await extractLastFrame({ ...tools, input: await presignMediaToolRead(previous.key) });
      origin = 'chain';
    } else {
      const source = await findAsset(job.organizationId, sourceAssetId!);
      if (!source || source.status !== 'uploaded') return 'source_gone';
      const prepared = await prepareSourceKeyframe({ ...tools, input: await presignMediaToolRead(source.objectKey) });
      if (prepared.state === 'failed') return prepared;
      path = prepared.path;
      origin = 'source';
    }
    const key = renderObjectKey(job.organizationId, job.jobId, renderNumberOf(chain), 'keyframe.jpg');
    await retryableOnTransientFailure("Storing a render's start image", () => putFile(key, path, 'image/jpeg'));
    return { state: 'ready', startImage: { bucket: mediaBucket(), key, origin } };
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

/**
 * StartRender: for the first render, queued → processing and the job's plan made from the model;
 * for every render, its start image made and the render handed to the provider (once, even if
 * the step is retried).
 */
export async function startRender(
  provider: VideoProvider,
  state: JobExecutionInput | RenderDeliveredPart,
  schedule: RenderSchedule,
  model: VideoModelEntry,
  now = Date.now(),
): Promise<RenderInProgress | RenderFailed | RenderFinished> {
  const job = await startJobWork(state.organization_id, state.job_id, 'video');
  if (!job) return { ...executionInputOf(state), outcome: 'finished' };
  const { input } = job;
  const chain: RenderChain =
    'render_plan' in state
      ? { render_plan: state.render_plan, render_index: state.render_index, renders: state.renders }
      : { render_plan: renderPlan(model.renders, input.duration_seconds), render_index: 0, renders: [] };
  const polling = {
    ...executionInputOf(state),
    ...chain,
    deadline_at: now + schedule.deadlineSeconds * 1000,
    poll_interval_seconds: schedule.pollIntervalSeconds,
  };
  // A retried first start finds the render it started: a later one starts it again, which the
  // provider answers with the same render (its start is idempotent per render id).
  if (chain.render_index === 0 && job.providerJobId && job.outputAssetId) {
    return {
      ...polling,
      outcome: 'in_progress',
      provider_job_id: job.providerJobId,
      output_asset_id: job.outputAssetId,
    };
  }
  const outputAssetId = 'output_asset_id' in state ? state.output_asset_id : sortableId('asset_', now);
  const frame = model.renders.frames[input.aspect_ratio];
  const start = await startImageFor(job, chain, frame);
  if (start === 'source_gone') {
    return {
      ...executionInputOf(state),
      outcome: 'failed',
      error: { code: 'SOURCE_UNAVAILABLE', message: 'The source image is no longer available.' },
    };
  }
  if (start.state === 'failed') {
    return { ...executionInputOf(state), outcome: 'failed', error: { code: start.code, message: start.message } };
  }
  const renderSeconds = chain.render_plan[chain.render_index];
  if (renderSeconds === undefined) throw new Error(`Job ${job.jobId} has no render ${chain.render_index} in its plan`);
  const started = await provider.start({
    renderId: renderIdOf(job.jobId, chain),
    jobId: job.jobId,
    prompt: input.prompt,
    renderSeconds,
    frame,
    style: input.style,
    startImage: start.startImage,
    output: {
      bucket: mediaBucket(),
      key: renderObjectKey(job.organizationId, job.jobId, renderNumberOf(chain), 'output.mp4'),
    },
  });
  if (started.state === 'failed') {
    return { ...executionInputOf(state), outcome: 'failed', error: { code: started.code, message: started.message } };
  }
  // A job cancelled or expired while its render started has nothing left to poll.
  if (!(await recordProviderJob(job.organizationId, job.jobId, started.providerJobId, outputAssetId))) {
    return { ...executionInputOf(state), outcome: 'finished' };
  }
  return { ...polling, outcome: 'in_progress', provider_job_id: started.providerJobId, output_asset_id: outputAssetId };
}

/** Rendering's share of the progress bar; finishing starts at FINISHING_PROGRESS. */
const RENDERING_PROGRESS = 98;

/**
 * PollRender: the render's status, the job's progress recorded over its whole plan, `rendered`
 * while the plan has more renders, or `expired` past the deadline.
 */
export async function pollRender(
  provider: VideoProvider,
  state: RenderInProgress,
  now = Date.now(),
): Promise<RenderInProgress | RenderDeliveredPart | RenderDelivered | RenderFailed | RenderExpired | RenderFinished> {
  const job = await findJob(state.organization_id, state.job_id);
  if (!job || !isActive(job)) return { ...executionInputOf(state), outcome: 'finished' };
  const status = await provider.poll(state.provider_job_id);
  switch (status.state) {
    case 'completed': {
      const renders = [...state.renders, status.output];
      if (renders.length < state.render_plan.length) {
        return {
          ...executionInputOf(state),
          outcome: 'rendered',
          output_asset_id: state.output_asset_id,
          render_plan: state.render_plan,
          render_index: renders.length,
          renders,
        };
      }
      return { ...executionInputOf(state), outcome: 'completed', output_asset_id: state.output_asset_id, renders };
    }
    case 'failed':
      return { ...executionInputOf(state), outcome: 'failed', error: { code: status.code, message: status.message } };
    case 'in_progress': {
      if (now >= state.deadline_at) {
        return {
          ...executionInputOf(state),
          outcome: 'expired',
          error: {
            code: 'RENDER_DEADLINE_EXCEEDED',
            message: 'The video was not ready in time; the job expired and its credits were refunded.',
          },
        };
      }
      const overall = (state.render_index * 100 + status.progress) / state.render_plan.length;
      await recordProgress(
        state.organization_id,
        state.job_id,
        Math.min(RENDERING_PROGRESS, Math.floor((overall * RENDERING_PROGRESS) / 100)),
      );
      return state;
    }
  }
}

/** Where finishing begins on the progress bar: the render is done, and only the end moves a job to 100. */
const FINISHING_PROGRESS = 99;

/** Kills a finishing ffmpeg in time to record the failure before the worker's Lambda timeout (workflows.ts). */
const FINISHING_TIMEOUT_MS = 240_000;

/**
 * FinishVideo: the delivered renders joined and made into the requested duration and frame
 * (video-finishing.ts), stored beside them; the output then names the finished file. Renders ffmpeg
 * cannot make into that fail the job with RENDER_FAILED (refunded), its cause logged.
 */
export async function finishRenderedVideo(
  state: RenderDelivered,
): Promise<RenderCompleted | RenderFailed | RenderFinished> {
  const job = jobOfType(await findJob(state.organization_id, state.job_id), 'video');
  if (!job || !isActive(job)) return { ...executionInputOf(state), outcome: 'finished' };
  await enterWorkStage(job.organizationId, job.jobId, 'finishing', FINISHING_PROGRESS);
  const directory = await mkdtemp(join(tmpdir(), 'finish-'));
  try {
    const finished = await finishVideo({
      ffmpegPath: mediaToolPath('ffmpeg'),
      ffprobePath: mediaToolPath('ffprobe'),
      inputs: await Promise.all(state.renders.map((render) => presignMediaToolRead(render.key))),
      durationSeconds: job.input.duration_seconds,
      aspectRatio: job.input.aspect_ratio,
      outputDirectory: directory,
      timeoutMs: FINISHING_TIMEOUT_MS,
    });
    const key = finishedRenderObjectKey(job.organizationId, job.jobId);
    const sizeBytes = await retryableOnTransientFailure('Storing the finished video', () =>
      putFile(key, finished.path, 'video/mp4'),
    );
    const { durationSeconds, width, height } = finished;
    return {
      ...executionInputOf(state),
      outcome: 'completed',
      output_asset_id: state.output_asset_id,
      output: { bucket: mediaBucket(), key, contentType: 'video/mp4', sizeBytes, durationSeconds, width, height },
    };
  } catch (error) {
    if (!(error instanceof MediaToolError)) throw error;
    log('warn', 'A rendered video could not be finished', { error });
    return {
      ...executionInputOf(state),
      outcome: 'failed',
      error: { code: 'RENDER_FAILED', message: RENDER_FAILURE_MESSAGES.RENDER_FAILED },
    };
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

/**
 * FinishJob (and FinishCrashed): ends the job whichever way the render went, the finished video
 * copied under assets/ and recorded as the job's output asset. The copy comes first, so that the
 * job never completes with an asset whose bytes are not there; when the job ended otherwise
 * meanwhile (a cancel, its deadline, the reconciler), the copy is deleted, as no asset points at
 * it and no lifecycle rule expires assets/. Safe to run again for the same job: a copy whose asset
 * an earlier run of it recorded is kept.
 */
export async function finishVideoJob(state: RenderEnding, now = new Date()): Promise<RenderEnded> {
  const { organization_id: organizationId, job_id: jobId } = state;
  if (state.outcome === 'completed') {
    const assetId = state.output_asset_id;
    const objectKey = storedObjectKey(organizationId, assetId);
    await copyObject(state.output, objectKey, 'video/mp4');
    const ended = await finishJob(organizationId, jobId, {
      status: 'completed',
      outputAssetId: assetId,
      outputs: [
        {
          name: 'video',
          write: generatedAssetPut({
            organizationId,
            assetId,
            filename: `${jobId}.mp4`,
            contentType: 'video/mp4',
            sizeBytes: state.output.sizeBytes,
            // What was delivered, in the asset's own words (GET /assets/{id}); the finishing step made it the request.
            metadata: {
              job_id: jobId,
              duration_seconds: state.output.durationSeconds,
              width: state.output.width,
              height: state.output.height,
            },
            createdAt: now.toISOString(),
            objectKey,
          }),
        },
      ],
    });
    if (!ended && !(await findAsset(organizationId, assetId))) await discardObjects([objectKey]);
    return { organization_id: organizationId, job_id: jobId, outcome: 'completed' };
  }
  const status = state.outcome === 'expired' ? 'expired' : 'failed';
  await finishJob(organizationId, jobId, {
    status,
    error: state.outcome === 'failed' || state.outcome === 'expired' ? state.error : JOB_ERRORS.internal,
  });
  return { organization_id: organizationId, job_id: jobId, outcome: status };
}
