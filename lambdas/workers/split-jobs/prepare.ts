import type { JobExecutionInput } from '#domain/jobs/job-execution';
import { prepareSplit } from '#domain/split-jobs/split-steps';
import { workerHandler } from '#platform/invocation';

export const handler = workerHandler('split-jobs/prepare', (input: JobExecutionInput) => prepareSplit(input));
