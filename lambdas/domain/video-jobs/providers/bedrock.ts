/**
 * The Amazon Bedrock adapter: a video model of the registry through StartAsyncInvoke /
 * GetAsyncInvoke. What differs between models is only their request body (luma-ray.ts,
 * nova-reel.ts); the rest is Bedrock's and the same for all:
 * - The output lands in the folder of `request.output.key`: Bedrock writes
 *   `<folder>/<invocation id>/…` there, with the caller's rights, and the bucket must be in the
 *   model's region. The completed status names the MP4 it finds under the invocation's folder.
 * - A start image is read from S3 and sent base64-encoded (both models take it inline only).
 * - Progress: Bedrock reports none. It is estimated from the time since submission against the
 *   model's typical generation time for the render's length, capped at 95.
 * - `start` is idempotent per render: its clientRequestToken is a hash of the render id, so a
 *   retried start returns the same invocation instead of paying for a second one.
 * - Failures become our codes with customer-safe messages; provider ids and texts go to the log only.
 */
import { createHash } from 'node:crypto';
import { posix } from 'node:path';
import {
  GetAsyncInvokeCommand,
  StartAsyncInvokeCommand,
  type BedrockRuntimeClient,
  type GetAsyncInvokeResponse,
  type StartAsyncInvokeCommandInput,
} from '@aws-sdk/client-bedrock-runtime';
import { GetObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import type { VideoModelEntry } from '#domain/models/model-registry';
import { log } from '#platform/log';
import { timed } from '#platform/metrics';
import {
  ProviderBusy,
  renderFailed,
  type RenderFailed,
  type RenderRequest,
  type RenderStatus,
  type RenderedVideo,
  type StartImageOrigin,
  type StartResult,
  type VideoProvider,
  type VideoStyle,
} from './port';

/** What a model's request body is made of: the JSON document `modelInput`. */
export type ModelInput = NonNullable<StartAsyncInvokeCommandInput['modelInput']>;

/** A start image as the request carries it: always a JPEG (keyframes.ts makes every one). */
export interface StartImageBytes {
  jpegBase64: string;
}

/** What one model adds to Bedrock's async invoke: its request body, and how long it usually takes. */
export interface BedrockRequestFormat {
  modelInput(request: RenderRequest, image?: StartImageBytes): ModelInput;
  typicalSeconds(renderSeconds: number): number;
}

const MAX_ESTIMATED_PROGRESS = 95;

const STYLE_HINTS: Record<VideoStyle, string> = {
  realistic: 'Photorealistic, natural lighting.',
  cinematic: 'Cinematic, dramatic lighting, shallow depth of field.',
  animated: '3D animated style, vibrant colors.',
};

/** The prompt plus the style hint, cut at a word boundary to the model's limit. */
export function promptWithStyle(request: Pick<RenderRequest, 'prompt' | 'style'>, limit: number): string {
  const hint = request.style ? ` ${STYLE_HINTS[request.style]}` : '';
  const room = limit - hint.length;
  let prompt = request.prompt.trim();
  if (prompt.length > room) {
    const cut = prompt.slice(0, room);
    const lastSpace = cut.lastIndexOf(' ');
    prompt = (lastSpace > room / 2 ? cut.slice(0, lastSpace) : cut).trimEnd();
  }
  return `${prompt}${hint}`;
}

export interface BedrockVideoProviderOptions {
  bedrock: BedrockRuntimeClient;
  /** Reads start images (GetObject) and finds the delivered video (ListObjectsV2). */
  s3: S3Client;
  model: VideoModelEntry;
  format: BedrockRequestFormat;
  /** For progress estimates; tests pin it. */
  now?: () => number;
}

export class BedrockVideoProvider implements VideoProvider {
  readonly kind = 'bedrock';
  private readonly bedrock: BedrockRuntimeClient;
  private readonly s3: S3Client;
  private readonly model: VideoModelEntry;
  private readonly format: BedrockRequestFormat;
  private readonly now: () => number;

  constructor(options: BedrockVideoProviderOptions) {
    this.bedrock = options.bedrock;
    this.s3 = options.s3;
    this.model = options.model;
    this.format = options.format;
    this.now = options.now ?? Date.now;
  }

  async start(request: RenderRequest): Promise<StartResult> {
    const image = request.startImage && (await this.startImageBytes(request.startImage));
    const modelInput = this.format.modelInput(request, image);
    try {
      const { invocationArn } = await timed('providerLatency', { Provider: 'bedrock', Operation: 'start-render' }, () =>
        this.bedrock.send(
          new StartAsyncInvokeCommand({
            modelId: this.model.id,
            clientRequestToken: createHash('sha256').update(request.renderId).digest('hex'),
            modelInput,
            outputDataConfig: { s3OutputDataConfig: { s3Uri: outputFolderUri(request.output) } },
          }),
        ),
      );
      if (!invocationArn) throw new Error('Bedrock StartAsyncInvoke returned no invocationArn');
      return { state: 'started', providerJobId: providerJobIdOf(invocationArn, request) };
    } catch (error) {
      // Only a refused request is the customer's outcome; throttling, quotas, access and outages are thrown.
      if (!isNamed(error, 'ValidationException')) throw busyOrAsIs(error);
      log('info', 'Bedrock refused the video request', {
        job_id: request.jobId,
        render_id: request.renderId,
        error: error.message,
      });
      return failureFor(error.message, request.startImage?.origin);
    }
  }

  async poll(providerJobId: string): Promise<RenderStatus> {
    const { invocationArn, renderSeconds, origin } = parseProviderJobId(providerJobId);
    const invocation = await timed('providerLatency', { Provider: 'bedrock', Operation: 'poll-render' }, () =>
      this.bedrock.send(new GetAsyncInvokeCommand({ invocationArn })),
    ).catch((error: unknown) => {
      throw busyOrAsIs(error);
    });
    switch (invocation.status) {
      case 'InProgress': {
        const typicalMs = this.format.typicalSeconds(renderSeconds) * 1000;
        return { state: 'in_progress', progress: estimatedProgress(invocation.submitTime, typicalMs, this.now()) };
      }
      case 'Completed':
        return { state: 'completed', output: await this.deliveredVideo(invocation, invocationArn) };
      case 'Failed':
        log('warn', 'Bedrock video generation failed', {
          invocation_arn: invocationArn,
          failure_message: invocation.failureMessage,
        });
        return failureFor(invocation.failureMessage ?? '', origin);
      default:
        throw new Error(`Bedrock async invoke ${invocationArn} has unexpected status ${String(invocation.status)}`);
    }
  }

  private async startImageBytes(source: NonNullable<RenderRequest['startImage']>): Promise<StartImageBytes> {
    const object = await this.s3.send(new GetObjectCommand({ Bucket: source.bucket, Key: source.key }));
    if (!object.Body) throw new Error(`Start image s3://${source.bucket}/${source.key} has no body`);
    return { jpegBase64: Buffer.from(await object.Body.transformToByteArray()).toString('base64') };
  }

  /**
   * The MP4 under the invocation's folder. Nova Reel's guide names it `output.mp4` beside a
   * manifest; the Luma guide names no file, so the folder is listed rather than a name assumed.
   */
  private async deliveredVideo(invocation: GetAsyncInvokeResponse, invocationArn: string): Promise<RenderedVideo> {
    const s3Uri = invocation.outputDataConfig?.s3OutputDataConfig?.s3Uri;
    const folder = s3Uri ? /^s3:\/\/([^/]+)\/?(.*)$/.exec(s3Uri) : null;
    if (!folder?.[1]) throw new Error(`Bedrock async invoke ${invocationArn} has no S3 output location`);
    const bucket = folder[1];
    const invocationId = invocationArn.slice(invocationArn.lastIndexOf('/') + 1);
    const prefix = `${posix.join(folder[2] ?? '', invocationId)}/`;
    const listing = await this.s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }));
    const video = listing.Contents?.find((object) => object.Key?.endsWith('.mp4'));
    // A completed invocation without its video is ours to investigate (permissions, lifecycle): thrown.
    if (!video?.Key)
      throw new Error(`Bedrock async invoke ${invocationArn} completed, but s3://${bucket}/${prefix} holds no MP4`);
    return { bucket, key: video.Key, contentType: 'video/mp4', sizeBytes: video.Size ?? 0 };
  }
}

/**
 * The provider job id carries what the poll needs and GetAsyncInvoke does not return: the
 * render's length (for the progress estimate) and where its start image came from (for the
 * failure message).
 */
const MARKER = '#render=';

function providerJobIdOf(invocationArn: string, request: RenderRequest): string {
  return `${invocationArn}${MARKER}${request.renderSeconds}:${request.startImage?.origin ?? 'none'}`;
}

function parseProviderJobId(providerJobId: string): {
  invocationArn: string;
  renderSeconds: number;
  origin?: StartImageOrigin;
} {
  const [invocationArn = providerJobId, marked = ''] = providerJobId.split(MARKER);
  const [seconds, origin] = marked.split(':');
  return {
    invocationArn,
    renderSeconds: Number(seconds) || 5,
    origin: origin === 'source' || origin === 'chain' ? origin : undefined,
  };
}

function outputFolderUri(output: RenderRequest['output']): string {
  const folder = posix.dirname(output.key);
  return folder === '.' ? `s3://${output.bucket}` : `s3://${output.bucket}/${folder}`;
}

function estimatedProgress(submitTime: Date | undefined, typicalMs: number, nowMs: number): number {
  if (!submitTime) return 0;
  const elapsedMs = Math.max(0, nowMs - submitTime.getTime());
  return Math.min(MAX_ESTIMATED_PROGRESS, Math.floor((MAX_ESTIMATED_PROGRESS * elapsedMs) / typicalMs));
}

/**
 * Bedrock's texts are for us; customers get one of our codes and its fixed message. An image the
 * model refuses is the customer's only when it is their image: a frame of our own chain that the
 * model refuses is a failed render.
 */
function failureFor(providerMessage: string, origin: StartImageOrigin | undefined): RenderFailed {
  if (/content filter|blocked|responsible ai|\bRAI\b|moderation/i.test(providerMessage)) {
    return renderFailed('CONTENT_REJECTED');
  }
  if (origin === 'source' && /image|keyframe/i.test(providerMessage)) return renderFailed('SOURCE_IMAGE_UNSUPPORTED');
  return renderFailed('RENDER_FAILED');
}

/** Bedrock's answers that mean "not now": the render (or its start) is retried later, not failed. */
const BUSY_ERRORS = new Set([
  'ThrottlingException',
  'ServiceQuotaExceededException',
  'ServiceUnavailableException',
  'InternalServerException',
]);

function busyOrAsIs(error: unknown): unknown {
  if (error instanceof Error && BUSY_ERRORS.has(error.name)) {
    return new ProviderBusy(`Bedrock is busy: ${error.name}: ${error.message}`, { cause: error });
  }
  return error;
}

function isNamed(error: unknown, name: string): error is Error {
  return error instanceof Error && error.name === name;
}
