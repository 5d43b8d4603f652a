import { chooseSplitClips, type SplitState } from '#domain/split-jobs/split-steps';

export const handler = (state: SplitState) => chooseSplitClips(state);
