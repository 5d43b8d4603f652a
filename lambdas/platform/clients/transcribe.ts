import { TranscribeClient } from '@aws-sdk/client-transcribe';

/** One client per container. */
export const transcribe = new TranscribeClient({});
