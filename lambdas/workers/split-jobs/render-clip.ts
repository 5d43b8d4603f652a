import { renderSplitClip, type ClipTask } from '#domain/split-jobs/split-steps';
import { workerHandler } from '#platform/invocation';

export const handler = workerHandler('split-jobs/render-clip', (task: ClipTask) => renderSplitClip(task));
