/**
 * The variable that chooses the transcription adapter, apart from the adapters themselves so that
 * the CDK app and the local stack can set it without loading an SDK client.
 */
export const TRANSCRIPTION_PROVIDER_ENV = 'TRANSCRIPTION_PROVIDER';
export const TRANSCRIPTION_PROVIDER_KINDS = ['amazon-transcribe', 'none'] as const;
export type TranscriptionProviderKind = (typeof TRANSCRIPTION_PROVIDER_KINDS)[number];
