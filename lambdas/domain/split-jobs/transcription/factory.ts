import type { S3Client } from '@aws-sdk/client-s3';
import type { TranscribeClient } from '@aws-sdk/client-transcribe';
import { AmazonTranscribe } from './amazon-transcribe';
import { NoTranscription } from './no-transcription';
import type { TranscriptionProvider } from './port';
import {
  TRANSCRIPTION_PROVIDER_ENV,
  TRANSCRIPTION_PROVIDER_KINDS,
  type TranscriptionProviderKind,
} from './provider-setting';

export interface TranscriptionClients {
  /** The container's shared clients (lambdas/platform/clients/transcribe.ts and s3.ts). */
  transcribe: TranscribeClient;
  s3: S3Client;
}

/**
 * Call once per container, at module scope. Unset means none: unlike a video provider, a missing
 * transcription only costs captions and titles, and the local stack has no speech-to-text service.
 */
export function createTranscriptionProvider(
  clients: TranscriptionClients,
  env: Readonly<Record<string, string | undefined>> = process.env,
): TranscriptionProvider {
  const kind = transcriptionProviderKind(env[TRANSCRIPTION_PROVIDER_ENV]);
  return kind === 'amazon-transcribe' ? new AmazonTranscribe(clients) : new NoTranscription();
}

function transcriptionProviderKind(value: string | undefined): TranscriptionProviderKind {
  if (value === undefined || value === '') return 'none';
  if ((TRANSCRIPTION_PROVIDER_KINDS as readonly string[]).includes(value)) return value as TranscriptionProviderKind;
  throw new Error(
    `${TRANSCRIPTION_PROVIDER_ENV} must be one of ${TRANSCRIPTION_PROVIDER_KINDS.join(', ')}, got "${value}"`,
  );
}
