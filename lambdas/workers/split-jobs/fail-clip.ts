import { failSplitClip, type ClipTask } from '#domain/split-jobs/split-steps';
import { workerHandler } from '#platform/invocation';

export const handler = workerHandler('split-jobs/fail-clip', (task: ClipTask & { failure?: { Error?: string } }) =>
  failSplitClip(task),
);
