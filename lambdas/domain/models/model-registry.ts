import type { AspectRatio } from '#contract/types';

/**
 * The model registry: every model the stack calls, with what it can render, its documented
 * lifecycle and its price, each fact with the page it comes from. The CDK app picks the configured
 * model from here and refuses one past its end of life; the render workers plan and shape their
 * renders from it; the lifecycle task reads each configured model's status back from Bedrock.
 * A table of facts rather than an SDK's provider registry: what matters here (render lengths,
 * chaining, end-of-life dates, price per second) is what such registries do not hold.
 */

/** Bedrock's lifecycle states (GetFoundationModel's `modelLifecycle.status`), plus the end it leads to. */
export type LifecycleStatus = 'ACTIVE' | 'LEGACY' | 'EOL';

export interface ModelLifecycle {
  readonly status: LifecycleStatus;
  /** ISO date the model became Legacy, if it has. */
  readonly legacySince?: string;
  /** ISO date after which calls to the model fail; absent while none is announced. */
  readonly endOfLife?: string;
  /** Where the status and dates come from. */
  readonly source: string;
}

/**
 * The frame one render of a model has, for a requested aspect ratio: always one of the contract's
 * frames (OUTPUT_DIMENSIONS), so that what fits a picture into the contract's frames fits it here.
 */
export interface RenderFrame {
  /** The aspect ratio the model is asked for: the request's when the model renders it natively. */
  readonly aspectRatio: AspectRatio;
  readonly width: number;
  readonly height: number;
}

/** What a video model can render, as its documentation says. */
export interface VideoCapabilities {
  /** The frame of a render for each aspect ratio the API offers; a ratio it cannot render maps to the frame it renders instead. */
  readonly frames: Readonly<Record<AspectRatio, RenderFrame>>;
  /** The lengths one render can have, in seconds, shortest first. */
  readonly renderSeconds: readonly number[];
  /** Frames per second of a render (what the plan counts frames with). */
  readonly fps: number;
  /** Whether a render can start from a given image, so that renders can be chained into one continuous video. */
  readonly chaining: boolean;
  /** The most characters a prompt may have. */
  readonly promptCharacters: number;
  /** The images a render can start from. */
  readonly startImage: {
    readonly contentTypes: readonly ('image/jpeg' | 'image/png')[];
    readonly minSide: number;
    readonly maxSide: number;
  };
  readonly resolution: string;
}

export interface VideoModelEntry {
  readonly kind: 'video';
  readonly id: string;
  readonly name: string;
  readonly provider: string;
  /** The adapter that speaks the model's request format (lambdas/domain/video-jobs/providers). */
  readonly adapter: 'luma-ray' | 'nova-reel';
  /** The regions whose Bedrock endpoint serves the model; its output bucket must be in the same region. */
  readonly regions: readonly string[];
  readonly renders: VideoCapabilities;
  readonly lifecycle: ModelLifecycle;
  /** On-demand list price per second of video the model delivers, in US dollars. */
  readonly pricePerOutputSecondUsd: number;
  readonly priceSource: string;
  /** Third-party models are sold through AWS Marketplace: the subscription an account needs. */
  readonly marketplaceProductId?: string;
  readonly documentation: string;
}

export type ModelEntry = VideoModelEntry;

const BEDROCK_GUIDE = 'https://docs.aws.amazon.com/bedrock/latest/userguide';

const NATIVE_720P: Readonly<Record<AspectRatio, RenderFrame>> = {
  '9:16': { aspectRatio: '9:16', width: 720, height: 1280 },
  '16:9': { aspectRatio: '16:9', width: 1280, height: 720 },
  '1:1': { aspectRatio: '1:1', width: 720, height: 720 },
};

const LANDSCAPE_720P: RenderFrame = { aspectRatio: '16:9', width: 1280, height: 720 };

export const LUMA_RAY2: VideoModelEntry = {
  kind: 'video',
  id: 'luma.ray-v2:0',
  name: 'Luma Ray2',
  provider: 'Luma AI',
  adapter: 'luma-ray',
  regions: ['us-west-2'],
  renders: {
    frames: NATIVE_720P,
    renderSeconds: [5, 9],
    fps: 24,
    chaining: true,
    promptCharacters: 5000,
    startImage: { contentTypes: ['image/jpeg', 'image/png'], minSide: 512, maxSide: 4096 },
    resolution: '720p',
  },
  lifecycle: { status: 'ACTIVE', source: `${BEDROCK_GUIDE}/model-card-luma-ai-ray2.html` },
  pricePerOutputSecondUsd: 1.5,
  priceSource: 'https://aws.amazon.com/bedrock/pricing/ (Luma AI, Ray2, 720p)',
  marketplaceProductId: 'prod-bi33bxqeqavl6',
  documentation: `${BEDROCK_GUIDE}/model-parameters-luma.html`,
};

export const NOVA_REEL_1_1: VideoModelEntry = {
  kind: 'video',
  id: 'amazon.nova-reel-v1:1',
  name: 'Amazon Nova Reel 1.1',
  provider: 'Amazon',
  adapter: 'nova-reel',
  regions: ['us-east-1'],
  renders: {
    frames: { '9:16': LANDSCAPE_720P, '16:9': LANDSCAPE_720P, '1:1': LANDSCAPE_720P },
    // One TEXT_VIDEO shot, or a MULTI_SHOT request of 2 or 3 shots of 6 s.
    renderSeconds: [6, 12, 18],
    fps: 24,
    chaining: false,
    promptCharacters: 512,
    startImage: { contentTypes: ['image/jpeg', 'image/png'], minSide: 720, maxSide: 1280 },
    resolution: '720p',
  },
  lifecycle: {
    status: 'LEGACY',
    legacySince: '2026-03-30',
    endOfLife: '2026-09-30',
    source: `${BEDROCK_GUIDE}/model-lifecycle.html`,
  },
  pricePerOutputSecondUsd: 0.08,
  priceSource: 'https://aws.amazon.com/bedrock/pricing/ (Amazon, Nova Reel)',
  documentation: 'https://docs.aws.amazon.com/nova/latest/userguide/video-generation.html',
};

/** Every model the stack can be configured to call. */
export const MODEL_REGISTRY: readonly ModelEntry[] = [LUMA_RAY2, NOVA_REEL_1_1];

/** The video model `model: "auto"` renders with unless the deployment names another. */
export const DEFAULT_VIDEO_MODEL_ID = LUMA_RAY2.id;

export function videoModelById(id: string): VideoModelEntry {
  const model = MODEL_REGISTRY.find((entry) => entry.kind === 'video' && entry.id === id);
  if (!model) {
    throw new Error(
      `${id} is not a video model of the registry (lambdas/domain/models/model-registry.ts): ${MODEL_REGISTRY.map((entry) => entry.id).join(', ')}`,
    );
  }
  return model;
}

/** How far ahead of an end of life a model is reported: the warning at synth and the alarm in AWS. */
export const END_OF_LIFE_NOTICE_DAYS = 90;

/**
 * How often AWS reads the configured models' lifecycles (lifecycle-watch.ts): a few times a day,
 * so that a day of the alarm's always holds readings and a missed run never reads as no data.
 */
export const LIFECYCLE_WATCH_SCHEDULE = { everyMinutes: 360 } as const;

const DAY_MS = 86_400_000;

/** Days left until an ISO end-of-life date, that day counted: 1 on the day itself, 0 or less after it. */
export function daysUntil(endOfLife: string, now: Date): number {
  return Math.ceil((Date.parse(`${endOfLife}T23:59:59Z`) - now.getTime()) / DAY_MS);
}

/**
 * Where a model stands on a day, from its documented lifecycle: `ended` once its end of life
 * has passed, `ending` within the notice period of it or while Legacy (new accounts cannot use a
 * Legacy model), `active` otherwise.
 */
export type LifecycleVerdict =
  { state: 'active' } | { state: 'ending'; reason: string; daysLeft?: number } | { state: 'ended'; reason: string };

export function lifecycleVerdict(lifecycle: ModelLifecycle, now: Date): LifecycleVerdict {
  if (lifecycle.endOfLife !== undefined) {
    const daysLeft = daysUntil(lifecycle.endOfLife, now);
    if (daysLeft <= 0 || lifecycle.status === 'EOL') {
      return { state: 'ended', reason: `its end of life was ${lifecycle.endOfLife}` };
    }
    if (daysLeft <= END_OF_LIFE_NOTICE_DAYS) {
      return { state: 'ending', reason: `its end of life is ${lifecycle.endOfLife}, in ${daysLeft} days`, daysLeft };
    }
  }
  if (lifecycle.status === 'EOL') return { state: 'ended', reason: 'it is at its end of life' };
  if (lifecycle.status === 'LEGACY') {
    return { state: 'ending', reason: `it is Legacy${lifecycle.legacySince ? ` since ${lifecycle.legacySince}` : ''}` };
  }
  return { state: 'active' };
}
