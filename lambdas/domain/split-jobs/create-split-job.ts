import type { Operations, SplitJobInput } from '#contract/types';
import type { Caller } from '#domain/access/authentication';
import { maxClipsPerSplitJob, TEAM_MAX_CLIPS_PER_SPLIT_JOB } from '#domain/access/organizations';
import { findAsset, recordVideoProbe, type Asset } from '#domain/assets/asset-store';
import { presignMediaToolRead } from '#domain/assets/media';
import { probeVideo, type VideoProbe } from '#domain/assets/video-probe';
import { submitJob } from '#domain/jobs/executions';
import type { JobOf } from '#domain/jobs/job';
import { ApiError } from '#platform/errors';
import { idempotencyClaim } from '#platform/idempotency';
import { log } from '#platform/log';
import { mediaToolPath } from '#platform/media-tools';
import { checkMetadataSize } from '#platform/metadata';
import { splitJobPrice } from './split-pricing';

export type CreateSplitJobRequest = Operations['createSplitJob']['body'];

/** What an omitted field means; `max_clips` defaults to the Team cap, or the organization's cap if lower. */
export const SPLIT_JOB_DEFAULTS = {
  target_platforms: [],
  clip_length_preset: 'auto',
  aspect_ratio: '9:16',
  caption_style: 'clean',
  clip_style: 'balanced',
} as const satisfies Partial<SplitJobInput>;

/** The source a split job takes: at least a second, at most three hours (docs/split-jobs.md). */
export const MIN_SOURCE_SECONDS = 1;
export const MAX_SOURCE_SECONDS = 3 * 3600;

/** ffprobe reads a few ranges of the source's headers; this bounds a stalled read. */
const PROBE_TIMEOUT_MS = 20_000;

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

/**
 * What the source really holds: a video stream and a duration within bounds, or 422
 * SOURCE_NOT_SUPPORTED. Probed once per asset; the verdict on a video is kept on the asset.
 */
export async function probedSource(asset: Asset): Promise<VideoProbe> {
  let probe = asset.videoProbe;
  if (!probe) {
    const url = await presignMediaToolRead(asset.objectKey);
    const verdict = await probeVideo(mediaToolPath('ffprobe'), url, PROBE_TIMEOUT_MS);
    if (verdict.kind === 'not_video') {
      throw new ApiError(
        'SOURCE_NOT_SUPPORTED',
        `source_asset_id ${asset.assetId} is not a video a split job can read: ${verdict.reason}.`,
      );
    }
    probe = verdict.probe;
    await recordVideoProbe(asset, probe).catch((error: unknown) =>
      log('warn', 'Could not keep the probe of a split source; the next job probes it again', {
        assetId: asset.assetId,
        error: String(error),
      }),
    );
  }
  if (probe.durationSeconds < MIN_SOURCE_SECONDS || probe.durationSeconds > MAX_SOURCE_SECONDS) {
    throw new ApiError(
      'SOURCE_NOT_SUPPORTED',
      `source_asset_id ${asset.assetId} lasts ${probe.durationSeconds} s; a split source lasts from ${MIN_SOURCE_SECONDS} s to ${MAX_SOURCE_SECONDS / 3600} hours.`,
    );
  }
  return probe;
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
