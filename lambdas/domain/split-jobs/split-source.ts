import { recordVideoProbe, type Asset } from '#domain/assets/asset-store';
import { presignMediaToolRead } from '#domain/assets/media';
import { probeVideo, type VideoProbe } from '#domain/assets/video-probe';
import { ApiError } from '#platform/errors';
import { log } from '#platform/log';
import { mediaToolPath } from '#platform/media-tools';

/** The source a split job takes: at least a second, at most three hours (docs/split-jobs.md). */
export const MIN_SOURCE_SECONDS = 1;
export const MAX_SOURCE_SECONDS = 3 * 3600;

/** ffprobe reads a few ranges of the source's headers; this bounds a stalled read. */
const PROBE_TIMEOUT_MS = 20_000;

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
        asset_id: asset.assetId,
        error,
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
