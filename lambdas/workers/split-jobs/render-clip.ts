import { renderSplitClip, type ClipTask } from '#domain/split-jobs/split-steps';
import { workerHandler } from '#platform/invocation';
import { sharingCores } from '#platform/media-tools';

export const handler = workerHandler('split-jobs/render-clip', (task: ClipTask) =>
  sharingCores(() => renderSplitClip(task)),
);
