import { BedrockRuntimeClient } from '@aws-sdk/client-bedrock-runtime';
import type { S3Client } from '@aws-sdk/client-s3';
import { BedrockVideoProvider, NOVA_REEL_MODEL_ID } from './bedrock';
import { LocalRenderer, type LocalRendererOptions } from './local-renderer';
import type { VideoProvider } from './port';

export const VIDEO_PROVIDER_KINDS = ['local', 'bedrock'] as const;
export type VideoProviderKind = (typeof VIDEO_PROVIDER_KINDS)[number];

export interface VideoProviderConfig {
  /** Defaults to env VIDEO_PROVIDER. There is no silent default: the local renderer cannot work in Lambda, and Bedrock costs money. */
  kind?: VideoProviderKind;
  /** The container's shared client (lambdas/platform/clients/s3.ts), which carries the local stack's settings. */
  s3: S3Client;
  /** Defaults to a client in env BEDROCK_REGION, else the Lambda's region. Nova Reel 1.1 is in us-east-1 only. */
  bedrock?: BedrockRuntimeClient;
  /** Defaults to env BEDROCK_VIDEO_MODEL_ID, else amazon.nova-reel-v1:1. */
  bedrockModelId?: string;
  local?: Omit<LocalRendererOptions, 's3'>;
}

export function videoProviderKindFromEnvironment(value = process.env.VIDEO_PROVIDER): VideoProviderKind {
  if ((VIDEO_PROVIDER_KINDS as readonly (string | undefined)[]).includes(value)) return value as VideoProviderKind;
  throw new Error(
    `VIDEO_PROVIDER must be one of ${VIDEO_PROVIDER_KINDS.join(', ')}, got ${value === undefined ? 'nothing' : `"${value}"`}`,
  );
}

/** Call once per container, at module scope, like the SDK clients it creates. */
export function createVideoProvider(config: VideoProviderConfig): VideoProvider {
  const kind = config.kind ?? videoProviderKindFromEnvironment();
  const { s3 } = config;
  if (kind === 'local') return new LocalRenderer({ ...config.local, s3 });
  const region = process.env.BEDROCK_REGION;
  return new BedrockVideoProvider({
    s3,
    bedrock: config.bedrock ?? new BedrockRuntimeClient(region ? { region } : {}),
    modelId: config.bedrockModelId ?? process.env.BEDROCK_VIDEO_MODEL_ID ?? NOVA_REEL_MODEL_ID,
  });
}
