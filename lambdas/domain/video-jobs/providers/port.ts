/**
 * The video provider port: what the video-job state machine needs from whatever renders a video.
 *
 * The state machine calls `start` once, then `poll` in a Wait loop until the status is `completed`
 * or `failed`, or until its own deadline passes (then the job becomes `expired`).
 *
 * Outcomes are values, not exceptions, when they belong to the customer's request: a render that
 * fails, content the model refuses, an unusable source image. Their `message` is written for
 * customers and never carries provider ids, ARNs, bucket names or stack traces.
 * Thrown errors mean something is wrong on our side or transient (throttling, network, a lost
 * render): the state machine retries them or ends the job through its catch-all.
 */

export type DurationSeconds = 5 | 10 | 15;
export type AspectRatio = '9:16' | '16:9' | '1:1';
export type VideoStyle = 'realistic' | 'cinematic' | 'animated';

export interface S3ObjectRef {
  bucket: string;
  key: string;
}

export interface RenderRequest {
  /** Our `video_job_*` id. Adapters use it to make `start` idempotent, because Step Functions may retry it. */
  jobId: string;
  prompt: string;
  durationSeconds: DurationSeconds;
  aspectRatio: AspectRatio;
  style?: VideoStyle;
  /** Present for image-to-video; `contentType` is the asset's MIME type (image/png, image/jpeg, image/webp). */
  sourceImage?: S3ObjectRef & { contentType: string };
  /**
   * Where the MP4 should be stored. An adapter that cannot choose the exact key (Bedrock writes
   * `<prefix>/<invocation id>/output.mp4`) writes next to it; the completed status always names the real object.
   */
  output: S3ObjectRef;
}

/** What was actually delivered, which is not always what was asked for (see docs/video-providers.md). */
export interface RenderedVideo extends S3ObjectRef {
  contentType: 'video/mp4';
  sizeBytes: number;
  durationSeconds: number;
  width: number;
  height: number;
}

/** Safe customer messages, written once so both adapters say the same thing for the same outcome. */
export const RENDER_FAILURE_MESSAGES = {
  RENDER_FAILED: 'The video could not be generated. Please try again.',
  CONTENT_REJECTED:
    'The prompt or source image was rejected by the content policy of the video model. Change it and try again.',
  SOURCE_IMAGE_UNSUPPORTED: 'The source image could not be used for this video.',
} as const;

export type RenderFailureCode = keyof typeof RENDER_FAILURE_MESSAGES;

export interface RenderFailed {
  state: 'failed';
  code: RenderFailureCode;
  /** Safe to show to customers. */
  message: string;
}

export type RenderStatus =
  /** `progress` is 0 to 100 and never goes down for one render; whether it is measured or estimated depends on the adapter. */
  { state: 'in_progress'; progress: number } | { state: 'completed'; output: RenderedVideo } | RenderFailed;

/** A request the provider refuses up front ends like a failed render, without a provider job. */
export type StartResult = { state: 'started'; providerJobId: string } | RenderFailed;

export interface VideoProvider {
  readonly kind: 'local' | 'bedrock';
  start(request: RenderRequest): Promise<StartResult>;
  /** `providerJobId` is opaque: store it as given by `start`, never show it to customers. */
  poll(providerJobId: string): Promise<RenderStatus>;
}

/**
 * The provider refuses work for now (throttling, a quota on renders in flight, a brief outage).
 * Thrown, not returned: the state machine retries the step with backoff (ASL Retry matches the
 * error's name, which is what Lambda reports) instead of failing a job whose render may be fine.
 */
export class ProviderBusy extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ProviderBusy';
  }
}

export function renderFailed(code: RenderFailureCode, message: string = RENDER_FAILURE_MESSAGES[code]): RenderFailed {
  return { state: 'failed', code, message };
}

export const OUTPUT_DIMENSIONS: Record<AspectRatio, { width: number; height: number }> = {
  '9:16': { width: 720, height: 1280 },
  '16:9': { width: 1280, height: 720 },
  '1:1': { width: 720, height: 720 },
};
