import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findAsset, generatedAssetPut } from '#domain/assets/asset-store';
import { copyObject, presignMediaToolRead, putFile } from '#domain/assets/media';
import { finishedRenderObjectKey, renderObjectKey, storedObjectKey } from '#domain/assets/media-layout';
import { isActive, jobOfType, type JobError } from '#domain/jobs/job';
import { executionInputOf, type JobExecutionInput } from '#domain/jobs/job-execution';
import { JOB_ERRORS } from '#domain/jobs/job-errors';
import { enterWorkStage, findJob, recordProgress, recordProviderJob } from '#domain/jobs/job-store';
import { finishJob, startJobWork } from '#domain/jobs/lifecycle';
import { mediaBucket } from '#platform/clients/s3';
import { log } from '#platform/log';
import { MediaToolError, mediaToolPath } from '#platform/media-tools';
import { retryableOnTransientFailure } from '#platform/task-failures';
import { sortableId } from '#platform/ids';
import { RENDER_FAILURE_MESSAGES, type RenderedVideo, type RenderRequest, type VideoProvider } from './providers/port';
import { finishVideo } from './video-finishing';
import type { RenderSchedule } from './render-schedule';

/**
 * The steps of the video job state machine (state-machines/video-job.asl.json), one per worker.
 * Each takes and returns one of the execution states below; the state machine only routes on
 * `outcome`.
 */

/** StartRender's and PollRender's answer while the provider renders: what the next poll needs. */
export interface RenderInProgress extends JobExecutionInput {
  outcome: 'in_progress';
  provider_job_id: string;
  output_asset_id: string;
  /** Unix milliseconds after which a render still running makes the job `expired`. */
  deadline_at: number;
  poll_interval_seconds: number;
}

/** PollRender's answer for a delivered render, and FinishVideo's once it has finished it: what the finish stores. */
export interface RenderCompleted extends JobExecutionInput {
  outcome: 'completed';
  output_asset_id: string;
  output: RenderedVideo;
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
  RenderInProgress | RenderCompleted | RenderFailed | RenderExpired | RenderFinished | RenderCrashed | RenderEnded;

/** StartRender: queued → processing, and the render handed to the provider (once, even if retried). */
export async function startRender(
  provider: VideoProvider,
  state: JobExecutionInput,
  schedule: RenderSchedule,
  now = Date.now(),
): Promise<RenderInProgress | RenderFailed | RenderFinished> {
  const job = await startJobWork(state.organization_id, state.job_id, 'video');
  if (!job) return { ...executionInputOf(state), outcome: 'finished' };
  const polling = {
    ...executionInputOf(state),
    deadline_at: now + schedule.deadlineSeconds * 1000,
    poll_interval_seconds: schedule.pollIntervalSeconds,
  };
  if (job.providerJobId && job.outputAssetId) {
    return {
      ...polling,
      outcome: 'in_progress',
      provider_job_id: job.providerJobId,
      output_asset_id: job.outputAssetId,
    };
  }
  const { input } = job;
  const outputAssetId = sortableId('asset_', now);
  const request: RenderRequest = {
    jobId: job.jobId,
    prompt: input.prompt,
    durationSeconds: input.duration_seconds,
    aspectRatio: input.aspect_ratio,
    style: input.style,
    output: { bucket: mediaBucket(), key: renderObjectKey(job.organizationId, job.jobId) },
  };
  if (input.source_asset_id) {
    const source = await findAsset(job.organizationId, input.source_asset_id);
    if (!source || source.status !== 'uploaded') {
      return {
        ...executionInputOf(state),
        outcome: 'failed',
        error: { code: 'SOURCE_UNAVAILABLE', message: 'The source image is no longer available.' },
      };
    }
    request.sourceImage = { bucket: mediaBucket(), key: source.objectKey, contentType: source.contentType };
  }
  const started = await provider.start(request);
  if (started.state === 'failed') {
    return { ...executionInputOf(state), outcome: 'failed', error: { code: started.code, message: started.message } };
  }
  // A job cancelled or expired while its render started has nothing left to poll.
  if (!(await recordProviderJob(job.organizationId, job.jobId, started.providerJobId, outputAssetId))) {
    return { ...executionInputOf(state), outcome: 'finished' };
  }
  return { ...polling, outcome: 'in_progress', provider_job_id: started.providerJobId, output_asset_id: outputAssetId };
}

/** PollRender: the render's status, its progress recorded, or `expired` past the deadline. */
export async function pollRender(
  provider: VideoProvider,
  state: RenderInProgress,
  now = Date.now(),
): Promise<RenderInProgress | RenderCompleted | RenderFailed | RenderExpired | RenderFinished> {
  const job = await findJob(state.organization_id, state.job_id);
  if (!job || !isActive(job)) return { ...executionInputOf(state), outcome: 'finished' };
  const status = await provider.poll(state.provider_job_id);
  switch (status.state) {
    case 'completed':
      return {
        ...executionInputOf(state),
        outcome: 'completed',
        output_asset_id: state.output_asset_id,
        output: status.output,
      };
    case 'failed':
      return { ...executionInputOf(state), outcome: 'failed', error: { code: status.code, message: status.message } };
    case 'in_progress':
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
      await recordProgress(state.organization_id, state.job_id, Math.min(99, Math.floor(status.progress)));
      return state;
  }
}

/** Where finishing begins on the progress bar: the render is done, and only the end moves a job to 100. */
const FINISHING_PROGRESS = 99;

/** Kills a finishing ffmpeg in time to record the failure before the worker's Lambda timeout (workflows.ts). */
const FINISHING_TIMEOUT_MS = 240_000;

/**
 * FinishVideo: the delivered render made into the requested duration and frame (video-finishing.ts),
 * stored beside it; the output then names the finished file. A render ffmpeg cannot make into that
 * fails the job with RENDER_FAILED (refunded), its cause logged.
 */
export async function finishRenderedVideo(
  state: RenderCompleted,
): Promise<RenderCompleted | RenderFailed | RenderFinished> {
  const job = jobOfType(await findJob(state.organization_id, state.job_id), 'video');
  if (!job || !isActive(job)) return { ...executionInputOf(state), outcome: 'finished' };
  await enterWorkStage(job.organizationId, job.jobId, 'finishing', FINISHING_PROGRESS);
  const directory = await mkdtemp(join(tmpdir(), 'finish-'));
  try {
    const finished = await finishVideo({
      ffmpegPath: mediaToolPath('ffmpeg'),
      ffprobePath: mediaToolPath('ffprobe'),
      input: await presignMediaToolRead(state.output.key),
      source: { width: state.output.width, height: state.output.height },
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
      ...state,
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
 * copied under assets/ and recorded as the job's output asset. Safe to run again for the same job.
 */
export async function finishVideoJob(state: RenderEnding, now = new Date()): Promise<RenderEnded> {
  const { organization_id: organizationId, job_id: jobId } = state;
  if (state.outcome === 'completed') {
    const assetId = state.output_asset_id;
    const objectKey = storedObjectKey(organizationId, assetId);
    await copyObject(state.output, objectKey, 'video/mp4');
    await finishJob(organizationId, jobId, {
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
    return { organization_id: organizationId, job_id: jobId, outcome: 'completed' };
  }
  const status = state.outcome === 'expired' ? 'expired' : 'failed';
  await finishJob(organizationId, jobId, {
    status,
    error: state.outcome === 'failed' || state.outcome === 'expired' ? state.error : JOB_ERRORS.internal,
  });
  return { organization_id: organizationId, job_id: jobId, outcome: status };
}
