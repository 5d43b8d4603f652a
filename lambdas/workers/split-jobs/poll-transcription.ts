import { pollTranscription, type SplitReady } from '#domain/split-jobs/split-steps';
import { createTranscriptionProvider } from '#domain/split-jobs/transcription/factory';
import { s3 } from '#platform/clients/s3';
import { workerHandler } from '#platform/invocation';

const transcription = createTranscriptionProvider(s3());

export const handler = workerHandler('split-jobs/poll-transcription', (state: SplitReady) =>
  pollTranscription(transcription, state),
);
