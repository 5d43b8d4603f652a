import { languageModel } from '#domain/split-jobs/language/factory';
import { chooseSplitClips, type SplitReady } from '#domain/split-jobs/split-steps';
import { workerHandler } from '#platform/invocation';

export const handler = workerHandler('split-jobs/choose-clips', (state: SplitReady) =>
  chooseSplitClips(languageModel(), state),
);
