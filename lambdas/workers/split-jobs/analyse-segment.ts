import { analyseSourceSegment, type SegmentTask } from '#domain/split-jobs/split-steps';
import { workerHandler } from '#platform/invocation';

export const handler = workerHandler('split-jobs/analyse-segment', (task: SegmentTask) => analyseSourceSegment(task));
