import { pollTranscription, type SplitReady } from '#domain/split-jobs/split-steps';
import { transcriptionProvider } from '#domain/split-jobs/transcription/factory';
import { workerHandler } from '#platform/invocation';

export const handler = workerHandler('split-jobs/poll-transcription', (state: SplitReady) =>
  pollTranscription(transcriptionProvider(), state),
);
