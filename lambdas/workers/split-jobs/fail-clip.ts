import { failSplitClip, type ClipTask } from '#domain/split-jobs/split-steps';
import { workerHandler } from '#platform/invocation';
import type { CaughtFailure } from '#platform/task-failures';

export const handler = workerHandler('split-jobs/fail-clip', (task: ClipTask & { failure?: CaughtFailure }) =>
  failSplitClip(task),
);
