import type { RenderFrame } from '#domain/models/model-registry';

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

/** Where a render's start image comes from: the job's source image, or the render before it in a chain. */
export type StartImageOrigin = 'source' | 'chain';

/**
 * One render: a video job is made of one or more (render-plan.ts), each asked of the provider
 * with this request and finished into one video by the workflow.
 */
export interface RenderRequest {
  /**
   * Unique per render of a job (`<job id>` for the first, `<job id>/2` for the second, …). Adapters
   * use it to make `start` idempotent, because Step Functions may retry it.
   */
  renderId: string;
  /** Our `video_job_*` id, for the log. */
  jobId: string;
  prompt: string;
  /** One of the model's render lengths (the model registry's `renderSeconds`). */
  renderSeconds: number;
  /** The frame to render: the model's own for the job's aspect ratio (the model registry's `frames`). */
  frame: RenderFrame;
  style?: VideoStyle;
  /**
   * The image the render starts from, a JPEG of exactly `frame`'s size (keyframes.ts): the
   * customer's image, fitted, for the first render of an image-to-video job; the last frame of
   * the render before for every later render of a chain.
   */
  startImage?: S3ObjectRef & { origin: StartImageOrigin };
  /**
   * Where the MP4 should be stored. An adapter that cannot choose the exact key (Bedrock writes
   * `<folder>/<invocation id>/output.mp4`) writes into the key's folder; the completed status always
   * names the real object.
   */
  output: S3ObjectRef;
}

/**
 * The file a render delivered. Its length and frame are measured where they are used (the
 * finishing step probes every render), not taken on the provider's word.
 */
export interface RenderedVideo extends S3ObjectRef {
  contentType: 'video/mp4';
  sizeBytes: number;
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
