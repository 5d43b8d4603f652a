import { finishSplitJob, type SplitState } from '#domain/split-jobs/split-steps';
import { workerHandler } from '#platform/invocation';

export const handler = workerHandler('split-jobs/finish', (state: SplitState) => finishSplitJob(state));
