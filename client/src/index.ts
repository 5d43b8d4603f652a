export {
  createClient,
  VideoApiClient,
  type ApiMethod,
  type ApiResult,
  type Asset,
  type AssetContentType,
  type AssetPurpose,
  type ClientOptions,
  type JobStatus,
  type SplitJob,
  type UploadFileInput,
  type VideoJob,
  type WaitForJobOptions,
  type WebhookEvent,
} from './client.ts';
export { ApiError, type ErrorCode, type ErrorEnvelope } from './errors.ts';
export { listen, type ListenOptions } from './listen.ts';
export type { RateLimit, RateLimitWindow } from './rate-limits.ts';
export { putToUploadUrl, type UploadChunks } from './uploads.ts';
export {
  newSigningSecret,
  signWebhook,
  verifyWebhook,
  STANDARD_WEBHOOK_HEADERS,
  WEBHOOK_HEADERS,
  type HeadersLike,
  type SignWebhookInput,
  type VerifyFailureReason,
  type VerifyWebhookInput,
  type VerifyWebhookResult,
  type WebhookHeaders,
} from './webhooks.ts';
export type { components, operations, paths, webhooks } from './schema.ts';
