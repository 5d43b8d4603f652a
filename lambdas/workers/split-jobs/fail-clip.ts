import { failSplitClip, type ClipTask } from '#domain/split-jobs/split-steps';

export const handler = (task: ClipTask & { failure?: { Error?: string } }) => failSplitClip(task);
