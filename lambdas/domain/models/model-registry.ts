import type { AspectRatio } from '#contract/types';

/**
 * The model registry: every model the stack calls, with what it can render or read, its documented
 * lifecycle and its price, each fact with the page it comes from. The CDK app picks the configured
 * models from here and refuses one past its end of life; the render workers plan and shape their
 * renders from it, the language step sizes its requests from it; the lifecycle task reads each
 * configured model's status back from Bedrock.
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

/**
 * How the stack reaches a text model: through a cross-Region (system-defined) inference profile,
 * which Bedrock routes to a Region of its geography. The grant names the profile in the stack's
 * Region and the foundation model in whichever Region of the geography serves the call.
 */
export interface InferenceProfile {
  /** The id a Converse request names as its `modelId`. */
  readonly id: string;
  /** The geography the profile keeps requests in. */
  readonly geography: 'US';
  /**
   * The commercial Regions of that geography: where the stack may be deployed to call the
   * profile. Bedrock chooses the destination Region among them for each request.
   */
  readonly regions: readonly string[];
  readonly source: string;
}

/** What a text model's requests may carry, as its documentation says. */
export interface TextRequestCapabilities {
  /** Whether the model takes `temperature` (some newer models refuse sampling parameters). */
  readonly temperature: boolean;
  /**
   * The model's own request fields (Converse `additionalModelRequestFields`) that turn its
   * thinking off, when it thinks by default: a forced tool choice needs it off, and the answer is
   * a structured one that thinking would only make slower and dearer.
   */
  readonly thinkingOff?: Readonly<Record<string, unknown>>;
}

/** On-demand list price of a text model, in US dollars per million tokens. */
export interface TokenPrices {
  readonly inputPerMillionUsd: number;
  readonly outputPerMillionUsd: number;
  /**
   * A dearer tier for long prompts: a request whose input is over `overInputTokens` pays these
   * prices for all its tokens. The language step keeps its requests under it.
   */
  readonly longPrompt?: {
    readonly overInputTokens: number;
    readonly inputPerMillionUsd: number;
    readonly outputPerMillionUsd: number;
  };
}

export interface TextModelEntry {
  readonly kind: 'text';
  /** The foundation model's id (what GetFoundationModel describes). */
  readonly id: string;
  readonly name: string;
  readonly provider: string;
  readonly inferenceProfile: InferenceProfile;
  /** Input and output together, in tokens. */
  readonly contextWindowTokens: number;
  readonly maxOutputTokens: number;
  /** Whether Converse can force a tool call (toolChoice), which the language step's structured answer is. */
  readonly toolUse: true;
  readonly request: TextRequestCapabilities;
  readonly lifecycle: ModelLifecycle;
  readonly prices: TokenPrices;
  readonly priceSource: string;
  /** Third-party models are sold through AWS Marketplace: the subscription an account needs. */
  readonly marketplaceProductId?: string;
  readonly documentation: string;
}

export type ModelEntry = VideoModelEntry | TextModelEntry;

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

const HAIKU_5_5_CARD = `${BEDROCK_GUIDE}/model-card-anthropic-claude-haiku-5-5.html`;

/**
 * Anthropic's Claude Haiku 5.5: Active on Bedrock, with an end of life no sooner than a year after
 * its launch, a 1M-token context (three hours of speech are some 60,000 tokens) and tool use, at
 * the lowest price of the Active text models whose cards state their lifecycle. Its adaptive
 * thinking is on by default and can be turned off; it refuses `temperature` (Anthropic's
 * migration guide: "Remove temperature, top_p, and top_k from your requests").
 */
export const CLAUDE_HAIKU_5_5: TextModelEntry = {
  kind: 'text',
  id: 'anthropic.claude-haiku-5-5',
  name: 'Claude Haiku 5.5',
  provider: 'Anthropic',
  inferenceProfile: {
    id: 'us.anthropic.claude-haiku-5-5',
    geography: 'US',
    regions: ['us-east-1', 'us-east-2', 'us-west-1', 'us-west-2'],
    // Bedrock's id of the model is Anthropic's (migration guide: anthropic.claude-haiku-5-5); a
    // geographic profile's id is the model's prefixed with its geography.
    source: `https://platform.claude.com/docs/en/models/haiku-5-5/migration-guide; ${BEDROCK_GUIDE}/geographic-cross-region-inference.html`,
  },
  contextWindowTokens: 1_000_000,
  maxOutputTokens: 128_000,
  toolUse: true,
  request: { temperature: false, thinkingOff: { thinking: { type: 'disabled' } } },
  lifecycle: {
    status: 'ACTIVE',
    source: `${HAIKU_5_5_CARD} (launched 2026-10-07; EOL no sooner than 2027-10-07; Legacy period 6 months)`,
  },
  // Anthropic's list price for prompts of up to 100,000 tokens ($0.10 and $0.50 per million),
  // plus the 10% a geographic profile costs over the global one (Bedrock's global cross-Region
  // inference page, for Claude). Prompts over 100,000 tokens pay five times as much.
  prices: {
    inputPerMillionUsd: 0.11,
    outputPerMillionUsd: 0.55,
    longPrompt: { overInputTokens: 100_000, inputPerMillionUsd: 0.55, outputPerMillionUsd: 2.75 },
  },
  priceSource:
    'https://platform.claude.com/docs/en/models/haiku-5-5/overview (Pricing) and https://docs.aws.amazon.com/bedrock/latest/userguide/global-cross-region-inference.html (geographic profiles cost about 10% more than global); confirm on https://aws.amazon.com/bedrock/pricing/',
  marketplaceProductId: 'prod-6cyn7tgqazjhu',
  documentation: HAIKU_5_5_CARD,
};

/** Every model the stack can be configured to call. */
export const MODEL_REGISTRY: readonly ModelEntry[] = [LUMA_RAY2, NOVA_REEL_1_1, CLAUDE_HAIKU_5_5];

/** The video model `model: "auto"` renders with unless the deployment names another. */
export const DEFAULT_VIDEO_MODEL_ID = LUMA_RAY2.id;

/** The text model the language step reads transcripts with unless the deployment names another. */
export const DEFAULT_TEXT_MODEL_ID = CLAUDE_HAIKU_5_5.id;

function modelOfKind<Kind extends ModelEntry['kind']>(kind: Kind, id: string): Extract<ModelEntry, { kind: Kind }> {
  const model = MODEL_REGISTRY.find(
    (entry): entry is Extract<ModelEntry, { kind: Kind }> => entry.kind === kind && entry.id === id,
  );
  if (!model) {
    throw new Error(
      `${id} is not a ${kind} model of the registry (lambdas/domain/models/model-registry.ts): ${modelIdsOfKind(kind).join(', ')}`,
    );
  }
  return model;
}

/** The ids of the registry's models of one kind. */
export function modelIdsOfKind(kind: ModelEntry['kind']): string[] {
  return MODEL_REGISTRY.filter((entry) => entry.kind === kind).map((entry) => entry.id);
}

export function videoModelById(id: string): VideoModelEntry {
  return modelOfKind('video', id);
}

export function textModelById(id: string): TextModelEntry {
  return modelOfKind('text', id);
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
