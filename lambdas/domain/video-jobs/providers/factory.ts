import { BedrockRuntimeClient } from '@aws-sdk/client-bedrock-runtime';
import type { S3Client } from '@aws-sdk/client-s3';
import { DEFAULT_VIDEO_MODEL_ID, videoModelById, type VideoModelEntry } from '#domain/models/model-registry';
import { s3 } from '#platform/clients/s3';
import {
  optionalSetting,
  choiceSetting,
  LOCAL_RENDERER_PRESET,
  VIDEO_MODEL_ID,
  VIDEO_PROVIDER,
} from '#platform/settings';
import { BedrockVideoProvider, type BedrockRequestFormat } from './bedrock';
import { LocalRenderer, type LocalRendererOptions } from './local-renderer';
import { LUMA_RAY_FORMAT } from './luma-ray';
import { NOVA_REEL_FORMAT } from './nova-reel';
import type { VideoProvider } from './port';

/** x264's presets, fastest first. */
const LOCAL_RENDERER_PRESETS = ['ultrafast', 'superfast', 'veryfast', 'faster', 'fast', 'medium'] as const;

export const VIDEO_PROVIDER_KINDS = ['local', 'bedrock'] as const;
export type VideoProviderKind = (typeof VIDEO_PROVIDER_KINDS)[number];

const BEDROCK_FORMATS: Readonly<Record<VideoModelEntry['adapter'], BedrockRequestFormat>> = {
  'luma-ray': LUMA_RAY_FORMAT,
  'nova-reel': NOVA_REEL_FORMAT,
};

/** The model `model: "auto"` renders with: the `videoModelId` setting, else the registry's default. */
export function configuredVideoModel(): VideoModelEntry {
  return videoModelById(optionalSetting(VIDEO_MODEL_ID) ?? DEFAULT_VIDEO_MODEL_ID);
}

export interface VideoProviderConfig {
  /** Defaults to the `videoProvider` setting, which has no default (lambdas/platform/settings.ts). */
  kind?: VideoProviderKind;
  /** The container's shared client (lambdas/platform/clients/s3.ts), which carries the local stack's settings. */
  s3: S3Client;
  /** Defaults to the configured model. */
  model?: VideoModelEntry;
  /** Defaults to a client in the function's region, which is the model's (the CDK app sees to it). */
  bedrock?: BedrockRuntimeClient;
  local?: Omit<LocalRendererOptions, 's3' | 'fps'>;
}

/**
 * Call once per container, on first use, like the SDK clients it creates: a worker's module then
 * loads without reading a setting or making a client, and its cold start stays the SDK's.
 */
export function createVideoProvider(config: VideoProviderConfig): VideoProvider {
  const kind = config.kind ?? choiceSetting(VIDEO_PROVIDER, VIDEO_PROVIDER_KINDS);
  const { s3 } = config;
  const model = config.model ?? configuredVideoModel();
  if (kind === 'local') {
    const preset = choiceSetting(LOCAL_RENDERER_PRESET, LOCAL_RENDERER_PRESETS, 'veryfast');
    return new LocalRenderer({ preset, fps: model.renders.fps, ...config.local, s3 });
  }
  return new BedrockVideoProvider({
    s3,
    bedrock: config.bedrock ?? new BedrockRuntimeClient({}),
    model,
    format: BEDROCK_FORMATS[model.adapter],
  });
}

let containerProvider: VideoProvider | undefined;

/** The container's provider, made from the settings with its shared S3 client on first use. */
export function videoProvider(): VideoProvider {
  containerProvider ??= createVideoProvider({ s3: s3() });
  return containerProvider;
}
