import type { Operations, SplitJobInput } from '#contract/types';
import type { Caller } from '#domain/access/authentication';
import { maxClipsPerSplitJob, TEAM_MAX_CLIPS_PER_SPLIT_JOB } from '#domain/access/organizations';
import { findAsset, type Asset } from '#domain/assets/asset-store';
import { submitJob } from '#domain/jobs/submit-job';
import type { JobOf } from '#domain/jobs/job';
import { ApiError } from '#platform/errors';
import { idempotencyClaim } from '#platform/idempotency';
import { checkMetadataSize } from '#platform/metadata';
import { splitJobPrice } from './split-pricing';
import { probedSource } from './split-source';

export type CreateSplitJobRequest = Operations['createSplitJob']['body'];

/** What an omitted field means; `max_clips` defaults to the Team cap, or the organization's cap if lower. */
export const SPLIT_JOB_DEFAULTS = {
  target_platforms: [],
  clip_length_preset: 'auto',
  aspect_ratio: '9:16',
  caption_style: 'clean',
  clip_style: 'balanced',
} as const satisfies Partial<SplitJobInput>;

/** A confirmed `split_source` asset of this organization, or the error that says why not. */
async function splitSource(organizationId: number, assetId: string): Promise<Asset> {
  const asset = await findAsset(organizationId, assetId);
  if (!asset) throw new ApiError('ASSET_NOT_FOUND', `source_asset_id ${assetId} does not exist.`);
  if (asset.purpose !== 'split_source') {
    throw new ApiError(
      'ASSET_NOT_READY',
      `source_asset_id must be an asset with purpose split_source; ${assetId} has purpose ${asset.purpose}.`,
    );
  }
  if (asset.status !== 'uploaded') {
    throw new ApiError('ASSET_NOT_READY', `source_asset_id ${assetId} is ${asset.status}; confirm its upload first.`);
  }
  return asset;
}

export const CREATE_SPLIT_JOB_OPERATION = 'createSplitJob';

export async function createSplitJob(
  caller: Caller,
  request: CreateSplitJobRequest,
  idempotencyKey: string | undefined,
): Promise<JobOf<'split'>> {
  checkMetadataSize(request.metadata);
  const cap = maxClipsPerSplitJob(caller.organization);
  if (request.max_clips !== undefined && request.max_clips > cap) {
    throw new ApiError(
      'VALIDATION_FAILED',
      `max_clips must be at most ${cap} for this organization; got ${request.max_clips}.`,
    );
  }
  const organizationId = caller.organization.organizationId;
  const source = await splitSource(organizationId, request.source_asset_id);
  const probe = await probedSource(source);
  const { metadata, ...accepted } = request;
  return submitJob({
    organizationId,
    type: 'split',
    price: splitJobPrice(probe.durationSeconds),
    limits: caller.limits,
    createdByKey: caller.apiKey.keyPrefix,
    input: {
      ...SPLIT_JOB_DEFAULTS,
      max_clips: Math.min(TEAM_MAX_CLIPS_PER_SPLIT_JOB, cap),
      ...accepted,
      target_platforms: accepted.target_platforms ?? [],
    },
    metadata: metadata ?? null,
    idempotency: idempotencyClaim(CREATE_SPLIT_JOB_OPERATION, idempotencyKey, request),
  });
}
