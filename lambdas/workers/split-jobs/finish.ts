import { finishSplitJob, type SplitState } from '#domain/split-jobs/split-steps';

export const handler = (state: SplitState) => finishSplitJob(state);
