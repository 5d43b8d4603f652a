import type { S3Client } from '@aws-sdk/client-s3';
import { TranscribeClient } from '@aws-sdk/client-transcribe';
import { choiceSetting, requiredSetting, POCKETSPHINX_PATH, TRANSCRIPTION_PROVIDER } from '#platform/settings';
import { AmazonTranscribe } from './amazon-transcribe';
import { NoTranscription } from './no-transcription';
import { Pocketsphinx } from './pocketsphinx';
import type { TranscriptionProvider } from './port';
import { s3 } from '#platform/clients/s3';

export const TRANSCRIPTION_PROVIDER_KINDS = ['amazon-transcribe', 'pocketsphinx', 'none'] as const;
export type TranscriptionProviderKind = (typeof TRANSCRIPTION_PROVIDER_KINDS)[number];

/**
 * What a deployment may choose. The local recognizer needs a binary no function has and a process
 * that outlives the invocation that starts it: the local stack's only.
 */
export const DEPLOYED_TRANSCRIPTION_PROVIDER_KINDS = [
  'amazon-transcribe',
  'none',
] as const satisfies readonly TranscriptionProviderKind[];
export type DeployedTranscriptionProviderKind = (typeof DEPLOYED_TRANSCRIPTION_PROVIDER_KINDS)[number];

/**
 * The `transcriptionProvider` setting. Unset means none: unlike a video provider, a missing
 * transcription only costs captions and titles.
 */
function transcriptionProviderKind(): TranscriptionProviderKind {
  return choiceSetting(TRANSCRIPTION_PROVIDER, TRANSCRIPTION_PROVIDER_KINDS, 'none');
}

/**
 * Call once per container, on first use, like the SDK clients: Amazon Transcribe's adapter makes
 * the container's Transcribe client. `s3` is the container's shared client
 * (lambdas/platform/clients/s3.ts).
 */
export function createTranscriptionProvider(
  s3: S3Client,
  kind: TranscriptionProviderKind = transcriptionProviderKind(),
): TranscriptionProvider {
  switch (kind) {
    case 'amazon-transcribe':
      return new AmazonTranscribe({ transcribe: new TranscribeClient({}), s3 });
    case 'pocketsphinx':
      return new Pocketsphinx({ s3, recognizerPath: requiredSetting(POCKETSPHINX_PATH) });
    case 'none':
      return new NoTranscription();
  }
}

let containerProvider: TranscriptionProvider | undefined;

/** The container's provider, made from the settings with its shared S3 client on first use. */
export function transcriptionProvider(): TranscriptionProvider {
  containerProvider ??= createTranscriptionProvider(s3());
  return containerProvider;
}
