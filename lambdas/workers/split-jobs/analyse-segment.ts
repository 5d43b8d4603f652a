import { analyseSourceSegment, type SegmentTask } from '#domain/split-jobs/split-steps';

export const handler = (task: SegmentTask) => analyseSourceSegment(task);
