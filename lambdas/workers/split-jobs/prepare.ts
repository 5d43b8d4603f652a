import { prepareSplit } from '#domain/split-jobs/split-steps';
import { createTranscriptionProvider } from '#domain/split-jobs/transcription/factory';
import { s3 } from '#platform/clients/s3';
import { workerHandler } from '#platform/invocation';
import type { JobExecutionInput } from '#workflows';

const transcription = createTranscriptionProvider(s3());

export const handler = workerHandler('split-jobs/prepare', (input: JobExecutionInput) =>
  prepareSplit(transcription, input),
);
