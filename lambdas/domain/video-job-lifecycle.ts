import { CopyObjectCommand } from '@aws-sdk/client-s3';
import { mediaBucket, s3 } from '../store/s3';
import { findAsset, generatedAssetRecord, renderObjectKey, storedObjectKey } from './assets';
import { sortableId } from './ids';
import {
  ACTIVE_STATUSES,
  findJob,
  finishJob,
  JobAlreadyFinished,
  markProcessing,
  recordProgress,
  recordProviderJob,
  type JobError,
} from './jobs';
import type { VideoProvider, RenderRequest, RenderedVideo } from './video-providers/port';
import type { CreateVideoJobRequest } from './video-jobs';

/**
 * The steps of the video job state machine (state-machines/video-job.asl.json). Each takes and
 * returns the execution state below; the state machine only routes on `outcome`.
 */
export interface LifecycleState {
  organization_id: number;
  job_id: string;
  outcome?: 'in_progress' | 'completed' | 'failed' | 'expired' | 'finished' | 'crashed';
  provider_job_id?: string;
  output_asset_id?: string;
  /** Unix milliseconds after which a render still running makes the job `expired`. */
  deadline_at?: number;
  poll_interval_seconds?: number;
  output?: RenderedVideo;
  error?: JobError;
}

export interface LifecycleSettings {
  renderDeadlineSeconds: number;
  pollIntervalSeconds: number;
}

export function lifecycleSettings(environment = process.env): LifecycleSettings {
  return {
    renderDeadlineSeconds: Number(environment.VIDEO_RENDER_DEADLINE_SECONDS ?? 1800),
    pollIntervalSeconds: Number(environment.VIDEO_RENDER_POLL_SECONDS ?? 10),
  };
}

export async function startRender(
  provider: VideoProvider,
  state: LifecycleState,
  settings: LifecycleSettings,
  now = Date.now(),
): Promise<LifecycleState> {
  let job;
  try {
    job = await markProcessing(state.organization_id, state.job_id);
  } catch (error) {
    if (error instanceof JobAlreadyFinished) return { ...state, outcome: 'finished' };
    throw error;
  }
  const base = {
    organization_id: state.organization_id,
    job_id: state.job_id,
    deadline_at: now + settings.renderDeadlineSeconds * 1000,
    poll_interval_seconds: settings.pollIntervalSeconds,
  };
  if (job.providerJobId && job.outputAssetId) {
    return { ...base, outcome: 'in_progress', provider_job_id: job.providerJobId, output_asset_id: job.outputAssetId };
  }
  const input = job.input as unknown as CreateVideoJobRequest;
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
  if (started.state === 'failed')
    return { ...base, outcome: 'failed', error: { code: started.code, message: started.message } };
  await recordProviderJob(job.organizationId, job.jobId, started.providerJobId, outputAssetId);
  return { ...base, outcome: 'in_progress', provider_job_id: started.providerJobId, output_asset_id: outputAssetId };
}

export async function pollRender(
  provider: VideoProvider,
  state: LifecycleState,
  now = Date.now(),
): Promise<LifecycleState> {
  const job = await findJob(state.organization_id, state.job_id);
  if (!job || !ACTIVE_STATUSES.includes(job.status)) return { ...state, outcome: 'finished' };
  const status = await provider.poll(state.provider_job_id as string);
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

const CRASH_ERROR: JobError = {
  code: 'INTERNAL_ERROR',
  message: 'The job failed because of an internal error; its credits were refunded.',
};

/** Ends the job whichever way the render went; safe to run again for the same job. */
export async function finishRender(state: LifecycleState): Promise<LifecycleState> {
  const { organization_id: organizationId, job_id: jobId } = state;
  if (state.outcome === 'completed' && state.output && state.output_asset_id) {
    await s3.send(
      new CopyObjectCommand({
        Bucket: mediaBucket(),
        Key: storedObjectKey(organizationId, state.output_asset_id),
        CopySource: `${state.output.bucket}/${state.output.key}`,
        ContentType: 'video/mp4',
        MetadataDirective: 'REPLACE',
      }),
    );
    await finishJob(organizationId, jobId, {
      status: 'completed',
      outputAsset: generatedAssetRecord({
        organizationId,
        assetId: state.output_asset_id,
        filename: `${jobId}.mp4`,
        contentType: 'video/mp4',
        sizeBytes: state.output.sizeBytes,
        metadata: { job_id: jobId },
      }),
    });
    return { organization_id: organizationId, job_id: jobId, outcome: 'completed' };
  }
  const status = state.outcome === 'expired' ? 'expired' : 'failed';
  await finishJob(organizationId, jobId, {
    status,
    error: state.outcome === 'crashed' || !state.error ? CRASH_ERROR : state.error,
  });
  return { organization_id: organizationId, job_id: jobId, outcome: status };
}
