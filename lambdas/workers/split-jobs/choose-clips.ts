import { chooseSplitClips, type SplitReady } from '#domain/split-jobs/split-steps';
import { workerHandler } from '#platform/invocation';

export const handler = workerHandler('split-jobs/choose-clips', (state: SplitReady) => chooseSplitClips(state));
