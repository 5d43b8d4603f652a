import { renderSplitClip, type ClipTask } from '#domain/split-jobs/split-steps';

export const handler = (task: ClipTask) => renderSplitClip(task);
