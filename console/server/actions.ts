import type { IncomingMessage } from 'node:http';
import { putToUploadUrl } from '@video-automation/client';
import type { ApiAnswer, ApiClient } from './api-client';

/**
 * The three things the page may do with the key: upload a source, start a split job on it, and
 * resend a webhook delivery. Each builds its API request from checked fields only, so nothing
 * the browser sends reaches the API unread.
 */

const VIDEO_TYPES = new Set(['video/mp4', 'video/quicktime', 'video/webm']);
/** The API's file name pattern: no path separator or control character. */
// eslint-disable-next-line no-control-regex -- control characters are what it refuses
const FILENAME = /^[^/\\\x00-\x1F\x7F-\x9F]{1,255}$/;
const ASSET_ID = /^asset_[0-9a-hjkmnp-tv-z]{26}$/;
const WEBHOOK_ID = /^webhook_[0-9a-hjkmnp-tv-z]{26}$/;
const DELIVERY_ID = /^dlv_[0-9a-hjkmnp-tv-z]{26}$/;

const refused = (status: number, message: string): ApiAnswer => ({
  status,
  body: { error: { code: 'CONSOLE_REFUSED', message } },
});

/**
 * Streams the request's body (a video file) to a new split source: POST /assets/upload-url, a PUT
 * of the bytes to the presigned URL with its `upload_headers`, POST /assets/confirm-upload.
 * The file passes through chunk by chunk, never whole in memory.
 */
export async function uploadSource(api: ApiClient, request: IncomingMessage, filename: string): Promise<ApiAnswer> {
  const contentType = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  const sizeBytes = Number(request.headers['content-length']);
  const problem = !FILENAME.test(filename)
    ? 'The file name is missing, too long or has a path separator.'
    : !VIDEO_TYPES.has(contentType)
      ? `A split source is an MP4, QuickTime or WebM video; this file is ${contentType || 'of no type'}.`
      : !Number.isInteger(sizeBytes) || sizeBytes < 1
        ? 'The upload must declare its size (Content-Length).'
        : undefined;
  if (problem) return drained(request, refused(400, problem));
  const created = await api.call('POST', '/assets/upload-url', {
    body: { filename, content_type: contentType, size_bytes: sizeBytes, purpose: 'split_source' },
  });
  if (created.status !== 201) return drained(request, created);
  const {
    asset_id: assetId,
    upload_url: uploadUrl,
    upload_headers: uploadHeaders,
  } = created.body as {
    asset_id: string;
    upload_url: string;
    upload_headers: Record<string, string>;
  };
  const put = await putToUploadUrl(uploadUrl, uploadHeaders, sizeBytes, request);
  if (put.status !== 200) {
    return refused(502, `The upload URL answered ${put.status} to the file: ${put.body.slice(0, 200)}`);
  }
  return api.call('POST', '/assets/confirm-upload', { body: { asset_id: assetId } });
}

/** Answers only once the browser has sent all of its body, so it reads the answer, not a reset. */
async function drained(request: IncomingMessage, answer: ApiAnswer): Promise<ApiAnswer> {
  request.resume();
  if (!request.readableEnded) await new Promise((resolve) => request.once('end', resolve).once('error', resolve));
  return answer;
}

const SPLIT_OPTIONS: Record<string, readonly string[]> = {
  clip_length_preset: ['under_30', 'under_60', 'under_90', 'auto'],
  aspect_ratio: ['9:16', '16:9', '1:1'],
  caption_style: ['none', 'clean', 'bold_center', 'karaoke', 'platform_native'],
};

/**
 * POST /split-jobs with the page's choices. `idempotency_key`, made by the page once per form,
 * makes a double submission one job.
 */
export async function createSplitJob(api: ApiClient, fields: Record<string, unknown>): Promise<ApiAnswer> {
  const { source_asset_id: sourceAssetId, max_clips: maxClips, idempotency_key: idempotencyKey, ...options } = fields;
  if (typeof sourceAssetId !== 'string' || !ASSET_ID.test(sourceAssetId)) {
    return refused(400, 'source_asset_id must be an asset id.');
  }
  if (typeof idempotencyKey !== 'string' || !/^[0-9a-zA-Z-]{1,120}$/.test(idempotencyKey)) {
    return refused(400, 'idempotency_key must be 1 to 120 letters, digits or dashes.');
  }
  const body: Record<string, unknown> = { source_asset_id: sourceAssetId };
  if (maxClips !== undefined) {
    if (!Number.isInteger(maxClips)) return refused(400, 'max_clips must be a whole number.');
    body.max_clips = maxClips;
  }
  for (const [name, value] of Object.entries(options)) {
    if (!SPLIT_OPTIONS[name]?.includes(value as string))
      return refused(400, `${name} is not an option the console sets.`);
    body[name] = value;
  }
  return api.call('POST', '/split-jobs', { body, headers: { 'idempotency-key': idempotencyKey } });
}

/** POST /webhooks/{id}/deliveries/{delivery_id}/resend; undefined when an id is not one. */
export function resendDelivery(api: ApiClient, webhookId: string, deliveryId: string): Promise<ApiAnswer> | undefined {
  if (!WEBHOOK_ID.test(webhookId) || !DELIVERY_ID.test(deliveryId)) return undefined;
  return api.call('POST', `/webhooks/${webhookId}/deliveries/${deliveryId}/resend`);
}
