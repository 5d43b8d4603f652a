/**
 * The Amazon Bedrock adapter: Amazon Nova Reel through StartAsyncInvoke / GetAsyncInvoke.
 *
 * What Nova Reel can do, and how our request maps onto it (details and reasons in docs/video-providers.md):
 * - `amazon.nova-reel-v1:0` makes one 6 s shot (TEXT_VIDEO). `amazon.nova-reel-v1:1` (us-east-1 only)
 *   adds MULTI_SHOT_AUTOMATED (12 to 120 s in steps of 6, text only, prompt up to 4000 characters) and
 *   MULTI_SHOT_MANUAL (2 to 20 shots of 6 s, each with up to 512 characters and an optional image).
 *   Every output is 1280x720 at 24 fps.
 * - Duration: rendered as the nearest supported length at or above the request, 5 -> 6 s (TEXT_VIDEO),
 *   10 -> 12 s and 15 -> 18 s (MULTI_SHOT_AUTOMATED; MULTI_SHOT_MANUAL with the image on the first shot
 *   for image-to-video); aspect ratio: always 1280x720 (nova-reel.ts). The completed status reports
 *   what Bedrock delivered; the workflow's finishing step (video-finishing.ts) trims and frames it to
 *   the request.
 * - Image-to-video: the image must be a 1280x720 PNG or JPEG (no transparent pixels). Anything else
 *   ends the render before it starts with SOURCE_IMAGE_UNSUPPORTED, and a message naming that requirement.
 * - Progress: Bedrock does not report any. It is estimated from the time since submission against a
 *   typical generation time (about 90 s for one shot, about 50 s for each further shot), capped at 95.
 * - Output: Bedrock picks the object key, `<s3Uri>/<invocation id>/output.mp4`, with s3Uri the folder of
 *   `request.output.key`; the completed status returns that key.
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
import { GetObjectCommand, HeadObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { log } from '#platform/log';
import { timed } from '#platform/metrics';
import {
  ProviderBusy,
  renderFailed,
  type RenderFailed,
  type RenderRequest,
  type RenderStatus,
  type RenderedVideo,
  type StartResult,
  type VideoProvider,
  type VideoStyle,
} from './port';
import { NOVA_REEL_FRAME, NOVA_REEL_SHOT_SECONDS, NOVA_REEL_SHOTS } from './nova-reel';

export const NOVA_REEL_MODEL_ID = 'amazon.nova-reel-v1:1';

const SHOT_TEXT_LIMIT = 512;
const AUTOMATED_TEXT_LIMIT = 4000;
/** From AWS's figures: about 90 s for a 6 s video, 14 to 17 minutes for 2 minutes (20 shots). */
const TYPICAL_FIRST_SHOT_SECONDS = 90;
const TYPICAL_NEXT_SHOT_SECONDS = 50;
const MAX_ESTIMATED_PROGRESS = 95;

export const SOURCE_IMAGE_REQUIREMENT_MESSAGE =
  'The source image must be a 1280x720 PNG or JPEG image without transparency for this video model.';

const STYLE_HINTS: Record<VideoStyle, string> = {
  realistic: 'Photorealistic, natural lighting.',
  cinematic: 'Cinematic, dramatic lighting, shallow depth of field.',
  animated: '3D animated style, vibrant colors.',
};

export interface BedrockVideoProviderOptions {
  bedrock: BedrockRuntimeClient;
  /** Reads source images (GetObject) and the size of finished videos (HeadObject). */
  s3: S3Client;
  modelId?: string;
  /** For progress estimates; tests pin it. */
  now?: () => number;
}

// Type aliases, not interfaces: the SDK types modelInput as a JSON document, which needs index-signature compatibility.
type NovaImage = { format: 'png' | 'jpeg'; source: { bytes: string } };
type NovaReelInput = NonNullable<StartAsyncInvokeCommandInput['modelInput']>;

type SourceImageResult = { state: 'loaded'; image: NovaImage } | RenderFailed;

export class BedrockVideoProvider implements VideoProvider {
  readonly kind = 'bedrock';
  private readonly bedrock: BedrockRuntimeClient;
  private readonly s3: S3Client;
  private readonly modelId: string;
  private readonly now: () => number;

  constructor(options: BedrockVideoProviderOptions) {
    this.bedrock = options.bedrock;
    this.s3 = options.s3;
    this.modelId = options.modelId ?? NOVA_REEL_MODEL_ID;
    this.now = options.now ?? Date.now;
  }

  async start(request: RenderRequest): Promise<StartResult> {
    const shots = NOVA_REEL_SHOTS[request.durationSeconds];
    let image: NovaImage | undefined;
    if (request.sourceImage) {
      const loaded = await this.loadSourceImage(request.sourceImage);
      if (loaded.state === 'failed') return loaded;
      image = loaded.image;
    }

    try {
      const { invocationArn } = await timed('providerLatency', { Provider: 'bedrock', Operation: 'start-render' }, () =>
        this.bedrock.send(
          new StartAsyncInvokeCommand({
            modelId: this.modelId,
            // Step Functions may retry this task; the same token returns the same invocation instead of a second one.
            clientRequestToken: createHash('sha256').update(request.jobId).digest('hex').slice(0, 64),
            modelInput: novaReelInput(request, shots, image),
            outputDataConfig: { s3OutputDataConfig: { s3Uri: outputFolderUri(request.output) } },
          }),
        ),
      );
      if (!invocationArn) throw new Error('Bedrock StartAsyncInvoke returned no invocationArn');
      return { state: 'started', providerJobId: `${invocationArn}${SHOTS_MARKER}${shots}` };
    } catch (error) {
      // Only a refused request is the customer's outcome; throttling, quotas, access and outages are thrown.
      if (!isNamed(error, 'ValidationException')) throw busyOrAsIs(error);
      log('info', 'Bedrock refused the video request', { job_id: request.jobId, error: error.message });
      return failureFor(error.message);
    }
  }

  async poll(providerJobId: string): Promise<RenderStatus> {
    const { invocationArn, shots } = parseProviderJobId(providerJobId);
    const invocation = await timed('providerLatency', { Provider: 'bedrock', Operation: 'poll-render' }, () =>
      this.bedrock.send(new GetAsyncInvokeCommand({ invocationArn })),
    ).catch((error: unknown) => {
      throw busyOrAsIs(error);
    });
    switch (invocation.status) {
      case 'InProgress':
        return { state: 'in_progress', progress: estimatedProgress(invocation.submitTime, shots, this.now()) };
      case 'Completed':
        return { state: 'completed', output: await this.completedVideo(invocation, invocationArn, shots) };
      case 'Failed':
        log('warn', 'Bedrock video generation failed', {
          invocation_arn: invocationArn,
          failure_message: invocation.failureMessage,
        });
        return failureFor(invocation.failureMessage ?? '');
      default:
        throw new Error(`Bedrock async invoke ${invocationArn} has unexpected status ${String(invocation.status)}`);
    }
  }

  private async loadSourceImage(source: NonNullable<RenderRequest['sourceImage']>): Promise<SourceImageResult> {
    const object = await this.s3.send(new GetObjectCommand({ Bucket: source.bucket, Key: source.key }));
    if (!object.Body) throw new Error(`Source image s3://${source.bucket}/${source.key} has no body`);
    const bytes = await object.Body.transformToByteArray();
    const image = imageInfo(bytes);
    if (!image || image.width !== NOVA_REEL_FRAME.width || image.height !== NOVA_REEL_FRAME.height) {
      return renderFailed('SOURCE_IMAGE_UNSUPPORTED', SOURCE_IMAGE_REQUIREMENT_MESSAGE);
    }
    return {
      state: 'loaded',
      image: { format: image.format, source: { bytes: Buffer.from(bytes).toString('base64') } },
    };
  }

  private async completedVideo(
    invocation: GetAsyncInvokeResponse,
    invocationArn: string,
    shots: number,
  ): Promise<RenderedVideo> {
    const s3Uri = invocation.outputDataConfig?.s3OutputDataConfig?.s3Uri;
    const folder = s3Uri ? /^s3:\/\/([^/]+)\/?(.*)$/.exec(s3Uri) : null;
    if (!folder?.[1]) throw new Error(`Bedrock async invoke ${invocationArn} has no S3 output location`);
    const bucket = folder[1];
    const invocationId = invocationArn.slice(invocationArn.lastIndexOf('/') + 1);
    const key = posix.join(folder[2] ?? '', invocationId, 'output.mp4');
    // Bedrock does not report the size; a missing object here is our problem (permissions, lifecycle), so it throws.
    const head = await this.s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
    return {
      bucket,
      key,
      contentType: 'video/mp4',
      sizeBytes: head.ContentLength ?? 0,
      durationSeconds: shots * NOVA_REEL_SHOT_SECONDS,
      width: NOVA_REEL_FRAME.width,
      height: NOVA_REEL_FRAME.height,
    };
  }
}

/** The provider job id carries the shot count, which the progress estimate needs and GetAsyncInvoke does not return. */
const SHOTS_MARKER = '#shots=';

function parseProviderJobId(providerJobId: string): { invocationArn: string; shots: number } {
  const at = providerJobId.lastIndexOf(SHOTS_MARKER);
  if (at < 0) return { invocationArn: providerJobId, shots: 1 };
  return {
    invocationArn: providerJobId.slice(0, at),
    shots: Number(providerJobId.slice(at + SHOTS_MARKER.length)) || 1,
  };
}

export function novaReelInput(request: RenderRequest, shots: number, image?: NovaImage): NovaReelInput {
  const seed = createHash('sha256').update(request.jobId).digest().readUInt32BE(0) % 2147483647;
  const config = { fps: NOVA_REEL_FRAME.fps, dimension: NOVA_REEL_FRAME.dimension, seed };
  if (shots === 1) {
    return {
      taskType: 'TEXT_VIDEO',
      textToVideoParams: { text: promptText(request, SHOT_TEXT_LIMIT), ...(image ? { images: [image] } : {}) },
      videoGenerationConfig: { durationSeconds: NOVA_REEL_SHOT_SECONDS, ...config },
    };
  }
  if (image) {
    // Only TEXT_VIDEO and MULTI_SHOT_MANUAL take images: the image opens the first shot, the same prompt drives them all.
    const text = promptText(request, SHOT_TEXT_LIMIT);
    return {
      taskType: 'MULTI_SHOT_MANUAL',
      multiShotManualParams: {
        shots: Array.from({ length: shots }, (_, i): NovaReelInput => (i === 0 ? { text, image } : { text })),
      },
      videoGenerationConfig: config,
    };
  }
  return {
    taskType: 'MULTI_SHOT_AUTOMATED',
    multiShotAutomatedParams: { text: promptText(request, AUTOMATED_TEXT_LIMIT) },
    videoGenerationConfig: { durationSeconds: shots * NOVA_REEL_SHOT_SECONDS, ...config },
  };
}

/** The prompt plus the style hint, cut at a word boundary to the task's limit (our prompts reach 1000 characters). */
function promptText(request: RenderRequest, limit: number): string {
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

function outputFolderUri(output: RenderRequest['output']): string {
  const folder = posix.dirname(output.key);
  return folder === '.' ? `s3://${output.bucket}` : `s3://${output.bucket}/${folder}`;
}

function estimatedProgress(submitTime: Date | undefined, shots: number, nowMs: number): number {
  if (!submitTime) return 0;
  const typicalMs = (TYPICAL_FIRST_SHOT_SECONDS + TYPICAL_NEXT_SHOT_SECONDS * (shots - 1)) * 1000;
  const elapsedMs = Math.max(0, nowMs - submitTime.getTime());
  return Math.min(MAX_ESTIMATED_PROGRESS, Math.floor((MAX_ESTIMATED_PROGRESS * elapsedMs) / typicalMs));
}

/** Bedrock's texts are for us; customers get one of our codes and its fixed message. */
function failureFor(providerMessage: string): RenderFailed {
  if (/content filter|blocked|responsible ai|\bRAI\b/i.test(providerMessage)) return renderFailed('CONTENT_REJECTED');
  if (/image/i.test(providerMessage)) return renderFailed('SOURCE_IMAGE_UNSUPPORTED', SOURCE_IMAGE_REQUIREMENT_MESSAGE);
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

/** Format and size from the file's own header (PNG IHDR, JPEG SOFn), not from the declared content type. */
export function imageInfo(bytes: Uint8Array): { format: 'png' | 'jpeg'; width: number; height: number } | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (bytes.length >= 24 && PNG_SIGNATURE.every((byte, i) => bytes[i] === byte)) {
    return { format: 'png', width: view.getUint32(16), height: view.getUint32(20) };
  }
  if (bytes.length >= 4 && bytes[0] === 0xff && bytes[1] === 0xd8) {
    let offset = 2;
    while (offset + 9 < bytes.length) {
      if (bytes[offset] !== 0xff) return undefined;
      const marker = bytes[offset + 1] ?? 0;
      if (marker === 0xff) {
        offset += 1; // fill byte
        continue;
      }
      // SOF0..SOF15 carry the frame size; C4 (DHT), C8 (JPG) and CC (DAC) share the range but do not.
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
        return { format: 'jpeg', height: view.getUint16(offset + 5), width: view.getUint16(offset + 7) };
      }
      offset += 2 + view.getUint16(offset + 2);
    }
  }
  return undefined;
}
