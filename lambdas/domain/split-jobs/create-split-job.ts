import type { Operations, SplitJobInput } from '#contract/types';
import type { Caller } from '#domain/access/authentication';
import { maxClipsPerSplitJob, TEAM_MAX_CLIPS_PER_SPLIT_JOB } from '#domain/access/organizations';
import { jobSourceAsset, type JobSourceNeeds } from '#domain/assets/assets';
import { submitJob } from '#domain/jobs/submit-job';
import type { JobOf } from '#domain/jobs/job';
import { ApiError } from '#platform/errors';
import { idempotencyClaim } from '#platform/idempotency';
import { checkMetadataSize } from '#platform/metadata';
import { splitJobPrice } from './split-pricing';
import { probedSource } from './split-source';

export type CreateSplitJobRequest = Operations['createSplitJob']['body'];

/**
 * What an omitted field means; `max_clips` defaults to the Team cap, or the organization's cap if
 * lower, and `burn_captions` to whether there is a caption style.
 */
export const SPLIT_JOB_DEFAULTS = {
  target_platforms: [],
  clip_length_preset: 'auto',
  aspect_ratio: '9:16',
  caption_style: 'clean',
  framing: 'auto',
  clip_style: 'balanced',
} as const satisfies Partial<SplitJobInput>;

/** A split job cuts a confirmed `split_source` asset, which only a video can be. */
export const SPLIT_SOURCE: JobSourceNeeds = { purposes: ['split_source'] };

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
  const captionStyle = request.caption_style ?? SPLIT_JOB_DEFAULTS.caption_style;
  if (request.burn_captions === true && captionStyle === 'none') {
    throw new ApiError('VALIDATION_FAILED', 'burn_captions needs a caption_style other than none.');
  }
  const organizationId = caller.organization.organizationId;
  const source = await jobSourceAsset(organizationId, request.source_asset_id, SPLIT_SOURCE);
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
      burn_captions: accepted.burn_captions ?? captionStyle !== 'none',
    },
    metadata: metadata ?? null,
    idempotency: idempotencyClaim(CREATE_SPLIT_JOB_OPERATION, idempotencyKey, request),
  });
}
