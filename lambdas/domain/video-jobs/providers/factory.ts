import { BedrockRuntimeClient } from '@aws-sdk/client-bedrock-runtime';
import type { S3Client } from '@aws-sdk/client-s3';
import { BedrockVideoProvider, NOVA_REEL_MODEL_ID } from './bedrock';
import { LocalRenderer, type LocalRendererOptions } from './local-renderer';
import type { VideoProvider } from './port';
import { s3 } from '#platform/clients/s3';
import {
  optionalSetting,
  choiceSetting,
  BEDROCK_REGION,
  BEDROCK_VIDEO_MODEL_ID,
  LOCAL_RENDERER_PRESET,
  VIDEO_PROVIDER,
} from '#platform/settings';

/** x264's presets, fastest first. */
const LOCAL_RENDERER_PRESETS = ['ultrafast', 'superfast', 'veryfast', 'faster', 'fast', 'medium'] as const;

export const VIDEO_PROVIDER_KINDS = ['local', 'bedrock'] as const;
export type VideoProviderKind = (typeof VIDEO_PROVIDER_KINDS)[number];

export interface VideoProviderConfig {
  /** Defaults to the `videoProvider` setting, which has no default (lambdas/platform/settings.ts). */
  kind?: VideoProviderKind;
  /** The container's shared client (lambdas/platform/clients/s3.ts), which carries the local stack's settings. */
  s3: S3Client;
  /** Defaults to a client in the `bedrockRegion` setting, else the Lambda's region. Nova Reel 1.1 is in us-east-1 only. */
  bedrock?: BedrockRuntimeClient;
  /** Defaults to the `bedrockVideoModelId` setting, else amazon.nova-reel-v1:1. */
  bedrockModelId?: string;
  local?: Omit<LocalRendererOptions, 's3'>;
}

/**
 * Call once per container, on first use, like the SDK clients it creates: a worker's module then
 * loads without reading a setting or making a client, and its cold start stays the SDK's.
 */
export function createVideoProvider(config: VideoProviderConfig): VideoProvider {
  const kind = config.kind ?? choiceSetting(VIDEO_PROVIDER, VIDEO_PROVIDER_KINDS);
  const { s3 } = config;
  if (kind === 'local') {
    const preset = choiceSetting(LOCAL_RENDERER_PRESET, LOCAL_RENDERER_PRESETS, 'veryfast');
    return new LocalRenderer({ preset, ...config.local, s3 });
  }
  const region = optionalSetting(BEDROCK_REGION);
  return new BedrockVideoProvider({
    s3,
    bedrock: config.bedrock ?? new BedrockRuntimeClient(region ? { region } : {}),
    modelId: config.bedrockModelId ?? optionalSetting(BEDROCK_VIDEO_MODEL_ID) ?? NOVA_REEL_MODEL_ID,
  });
}

let containerProvider: VideoProvider | undefined;

/** The container's provider, made from the settings with its shared S3 client on first use. */
export function videoProvider(): VideoProvider {
  containerProvider ??= createVideoProvider({ s3: s3() });
  return containerProvider;
}
