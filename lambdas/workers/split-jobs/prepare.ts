import type { JobExecutionInput } from '#domain/jobs/job-execution';
import { prepareSplit } from '#domain/split-jobs/split-steps';
import { createTranscriptionProvider } from '#domain/split-jobs/transcription/factory';
import type { TranscriptionProvider } from '#domain/split-jobs/transcription/port';
import { s3 } from '#platform/clients/s3';
import { workerHandler } from '#platform/invocation';

let transcription: TranscriptionProvider | undefined;

export const handler = workerHandler('split-jobs/prepare', (input: JobExecutionInput) =>
  prepareSplit((transcription ??= createTranscriptionProvider(s3())), input),
);
