import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findAsset, generatedAssetPut } from '#domain/assets/asset-store';
import { copyObject, presignMediaToolRead, putFile } from '#domain/assets/media';
import { finishedRenderObjectKey, renderObjectKey, storedObjectKey } from '#domain/assets/media-layout';
import { isActive, jobOfType, type JobError } from '#domain/jobs/job';
import { JOB_ERRORS } from '#domain/jobs/job-errors';
import { findJob, recordProgress, recordProviderJob } from '#domain/jobs/job-store';
import { finishJob, startJobWork } from '#domain/jobs/lifecycle';
import { mediaBucket } from '#platform/clients/s3';
import { log } from '#platform/log';
import { MediaToolError, mediaToolPath } from '#platform/media-tools';
import { retryableOnTransientFailure } from '#platform/task-failures';
import { sortableId } from '#platform/ids';
import type { JobExecutionInput } from '#workflows';
import { RENDER_FAILURE_MESSAGES, type RenderedVideo, type RenderRequest, type VideoProvider } from './providers/port';
import { finishVideo } from './video-finishing';
import type { RenderSchedule } from './render-schedule';

/**
 * The steps of the video job state machine (state-machines/video-job.asl.json), one per worker.
 * Each takes and returns the execution state below; the state machine only routes on `outcome`.
 */
export interface RenderState extends JobExecutionInput {
  outcome?: 'in_progress' | 'completed' | 'failed' | 'expired' | 'finished' | 'crashed';
  provider_job_id?: string;
  output_asset_id?: string;
  /** Unix milliseconds after which a render still running makes the job `expired`. */
  deadline_at?: number;
  poll_interval_seconds?: number;
  output?: RenderedVideo;
  error?: JobError;
}

/** StartRender: queued → processing, and the render handed to the provider (once, even if retried). */
export async function startRender(
  provider: VideoProvider,
  state: RenderState,
  schedule: RenderSchedule,
  now = Date.now(),
): Promise<RenderState> {
  const job = await startJobWork(state.organization_id, state.job_id, 'video');
  if (!job) return { ...state, outcome: 'finished' };
  const base = {
    organization_id: state.organization_id,
    job_id: state.job_id,
    deadline_at: now + schedule.deadlineSeconds * 1000,
    poll_interval_seconds: schedule.pollIntervalSeconds,
  };
  if (job.providerJobId && job.outputAssetId) {
    return { ...base, outcome: 'in_progress', provider_job_id: job.providerJobId, output_asset_id: job.outputAssetId };
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
        ...base,
        outcome: 'failed',
        error: { code: 'SOURCE_UNAVAILABLE', message: 'The source image is no longer available.' },
      };
    }
    request.sourceImage = { bucket: mediaBucket(), key: source.objectKey, contentType: source.contentType };
  }
  const started = await provider.start(request);
  if (started.state === 'failed') {
    return { ...base, outcome: 'failed', error: { code: started.code, message: started.message } };
  }
  await recordProviderJob(job.organizationId, job.jobId, started.providerJobId, outputAssetId);
  return { ...base, outcome: 'in_progress', provider_job_id: started.providerJobId, output_asset_id: outputAssetId };
}

/** PollRender: the render's status, its progress recorded, or `expired` past the deadline. */
export async function pollRender(provider: VideoProvider, state: RenderState, now = Date.now()): Promise<RenderState> {
  const job = await findJob(state.organization_id, state.job_id);
  if (!job || !isActive(job)) return { ...state, outcome: 'finished' };
  if (!state.provider_job_id) throw new Error(`Job ${state.job_id} is polled before its render started`);
  const status = await provider.poll(state.provider_job_id);
  switch (status.state) {
    case 'completed':
      return { ...state, outcome: 'completed', output: status.output };
    case 'failed':
      return { ...state, outcome: 'failed', error: { code: status.code, message: status.message } };
    case 'in_progress':
      if (now >= (state.deadline_at ?? Infinity)) {
        return {
          ...state,
          outcome: 'expired',
          error: {
            code: 'RENDER_DEADLINE_EXCEEDED',
            message: 'The video was not ready in time; the job expired and its credits were refunded.',
          },
        };
      }
      await recordProgress(state.organization_id, state.job_id, Math.min(99, Math.floor(status.progress)));
      return { ...state, outcome: 'in_progress' };
  }
}

/** Kills a finishing ffmpeg in time to record the failure before the worker's Lambda timeout (workflows.ts). */
const FINISHING_TIMEOUT_MS = 240_000;

/**
 * FinishVideo: the delivered render made into the requested duration and frame (video-finishing.ts),
 * stored beside it; the output then names the finished file. A render ffmpeg cannot make into that
 * fails the job with RENDER_FAILED (refunded), its cause logged.
 */
export async function finishRenderedVideo(state: RenderState): Promise<RenderState> {
  if (state.outcome !== 'completed' || !state.output) return state;
  const job = jobOfType(await findJob(state.organization_id, state.job_id), 'video');
  if (!job || !isActive(job)) return { ...state, outcome: 'finished' };
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
      ...state,
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
export async function finishVideoJob(state: RenderState, now = new Date()): Promise<RenderState> {
  const { organization_id: organizationId, job_id: jobId } = state;
  if (state.outcome === 'completed' && state.output && state.output_asset_id) {
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
    error: state.outcome === 'crashed' || !state.error ? JOB_ERRORS.internal : state.error,
  });
  return { organization_id: organizationId, job_id: jobId, outcome: status };
}
