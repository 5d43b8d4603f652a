import { startSplitTranscription, type SplitReady } from '#domain/split-jobs/split-steps';
import { transcriptionProvider } from '#domain/split-jobs/transcription/factory';
import { workerHandler } from '#platform/invocation';

export const handler = workerHandler('split-jobs/start-transcription', (state: SplitReady) =>
  startSplitTranscription(transcriptionProvider(), state),
);
