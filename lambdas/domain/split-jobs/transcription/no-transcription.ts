import type { TranscriptionProvider, TranscriptionStart, TranscriptionStatus } from './port';

/** For stacks without a speech-to-text service (the local stack): clips get no captions and no transcript-based titles. */
export class NoTranscription implements TranscriptionProvider {
  readonly kind = 'none';

  async start(): Promise<TranscriptionStart> {
    return { state: 'unavailable' };
  }

  /** The workflow polls only transcriptions that started, and none ever does here. */
  async poll(transcriptionId: string): Promise<TranscriptionStatus> {
    throw new Error(`There is no transcription provider, so there is no transcription ${transcriptionId} to poll`);
  }
}
