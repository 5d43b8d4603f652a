import { finishSplitJob, type SplitEnding } from '#domain/split-jobs/split-steps';
import { workerHandler } from '#platform/invocation';

export const handler = workerHandler('split-jobs/finish', (state: SplitEnding) => finishSplitJob(state));
