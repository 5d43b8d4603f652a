import { pollTranscription, type SplitState } from '#domain/split-jobs/split-steps';
import { createTranscriptionProvider } from '#domain/split-jobs/transcription/factory';
import { s3 } from '#platform/clients/s3';
import { transcribe } from '#platform/clients/transcribe';
import { workerHandler } from '#platform/invocation';

const transcription = createTranscriptionProvider({ transcribe, s3 });

export const handler = workerHandler('split-jobs/poll-transcription', (state: SplitState) =>
  pollTranscription(transcription, state),
);
