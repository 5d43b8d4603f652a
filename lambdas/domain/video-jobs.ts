import { StartExecutionCommand, ExecutionAlreadyExists } from '@aws-sdk/client-sfn';
import { stepFunctions, videoJobStateMachineArn } from '../store/step-functions';
import { ApiError } from './errors';
import { findAsset, presignDownload, getAsset, type Asset } from './assets';
import { sortableId } from './ids';
import { requestFingerprint } from './idempotency';
import { createJob, finishJob, getJob, type Job } from './jobs';
import type { Caller } from './authentication';

export interface CreateVideoJobRequest {
  prompt: string;
  duration_seconds: 5 | 10 | 15;
  source_asset_id?: string;
  aspect_ratio: '9:16' | '16:9' | '1:1';
  model: 'auto';
  style?: 'realistic' | 'cinematic' | 'animated';
  metadata?: Record<string, unknown>;
}

/** Credits per second of output: animating a supplied image costs more than text alone. */
export const VIDEO_CREDITS_PER_SECOND = { text_to_video: 2, image_to_video: 3 } as const;

export function videoJobPrice(request: Pick<CreateVideoJobRequest, 'duration_seconds' | 'source_asset_id'>): number {
  const mode = request.source_asset_id ? 'image_to_video' : 'text_to_video';
  return request.duration_seconds * VIDEO_CREDITS_PER_SECOND[mode];
}

export const MAX_METADATA_BYTES = 8 * 1024;
const IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/webp'];

function checkMetadataSize(metadata: Record<string, unknown> | undefined) {
  if (metadata && Buffer.byteLength(JSON.stringify(metadata), 'utf8') > MAX_METADATA_BYTES) {
    throw new ApiError('VALIDATION_FAILED', `metadata must be at most ${MAX_METADATA_BYTES} bytes as JSON.`);
  }
}

/**
 * An image-to-video source must be this organization's, confirmed, and an image. Purpose
 * `image_source` is the intended one; `general` images are accepted too, since `general`
 * explicitly allows every type.
 */
async function checkSourceImage(organizationId: number, assetId: string): Promise<Asset> {
  const asset = await findAsset(organizationId, assetId);
  if (!asset) throw new ApiError('ASSET_NOT_FOUND', `source_asset_id ${assetId} does not exist.`);
  if (!IMAGE_TYPES.includes(asset.contentType) || !['image_source', 'general'].includes(asset.purpose)) {
    throw new ApiError(
      'ASSET_NOT_READY',
      `source_asset_id must be an image asset with purpose image_source; ${assetId} is ${asset.contentType} with purpose ${asset.purpose}.`,
    );
  }
  if (asset.status !== 'uploaded') {
    throw new ApiError('ASSET_NOT_READY', `source_asset_id ${assetId} is ${asset.status}; confirm its upload first.`);
  }
  return asset;
}

export const CREATE_VIDEO_JOB_OPERATION = 'createVideoJob';

export async function createVideoJob(
  caller: Caller,
  request: CreateVideoJobRequest,
  idempotencyKey: string | undefined,
) {
  checkMetadataSize(request.metadata);
  const organizationId = caller.organization.organizationId;
  if (request.source_asset_id) await checkSourceImage(organizationId, request.source_asset_id);
  const jobId = sortableId('video_job_');
  const { job, replayed } = await createJob({
    organizationId,
    type: 'video',
    jobId,
    price: videoJobPrice(request),
    concurrencyCap: caller.limits.concurrent_video_jobs,
    input: { ...request, metadata: undefined, mode: request.source_asset_id ? 'image_to_video' : 'text_to_video' },
    metadata: request.metadata ?? null,
    idempotency: idempotencyKey
      ? { operation: CREATE_VIDEO_JOB_OPERATION, key: idempotencyKey, fingerprint: requestFingerprint(request) }
      : undefined,
  });
  if (!replayed) await startLifecycle(job);
  return job;
}

/**
 * Hands the job to its state machine, named after the job so a retried start cannot run it
 * twice. If Step Functions refuses, the job ends failed at once (refunded, slot released)
 * rather than waiting in `queued` for ever.
 */
async function startLifecycle(job: Job) {
  try {
    await stepFunctions.send(
      new StartExecutionCommand({
        stateMachineArn: videoJobStateMachineArn(),
        name: job.jobId,
        input: JSON.stringify({ organization_id: job.organizationId, job_id: job.jobId }),
      }),
    );
  } catch (error) {
    if (error instanceof ExecutionAlreadyExists) return;
    await finishJob(job.organizationId, job.jobId, {
      status: 'failed',
      error: { code: 'START_FAILED', message: 'The job could not be started; its credits were refunded.' },
    });
    throw error;
  }
}

export function presentVideoJob(job: Job) {
  const available = job.status === 'completed';
  return {
    id: job.jobId,
    type: 'video' as const,
    status: job.status,
    progress: job.progress,
    created_at: job.createdAt,
    updated_at: job.updatedAt,
    credits: job.credits,
    input: job.input,
    result: {
      available,
      asset_id: available ? job.outputAssetId : null,
      clips_count: null,
      download_url_available: available,
    },
    error: job.error,
    metadata: job.metadata,
  };
}

export async function getVideoJob(organizationId: number, jobId: string) {
  return getJob(organizationId, jobId, 'video');
}

export async function getVideoJobResult(organizationId: number, jobId: string) {
  const job = await getVideoJob(organizationId, jobId);
  if (job.status === 'queued' || job.status === 'processing') {
    throw new ApiError(
      'JOB_NOT_READY',
      `Video job ${jobId} is ${job.status} (${job.progress}% done); poll it and try again when completed.`,
    );
  }
  if (job.status !== 'completed' || !job.outputAssetId) {
    throw new ApiError(
      'JOB_FAILED',
      `Video job ${jobId} ended ${job.status} and has no result${job.error ? `: ${job.error.message}` : '.'}`,
    );
  }
  const asset = await getAsset(organizationId, job.outputAssetId);
  const download = await presignDownload(asset);
  return {
    job_id: job.jobId,
    status: job.status,
    asset: {
      asset_id: asset.assetId,
      content_type: asset.contentType,
      download_url: download.url,
      expires_at: download.expiresAt,
    },
  };
}
