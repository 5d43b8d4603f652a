import { analyseSourceSegment, type SegmentTask } from '#domain/split-jobs/split-steps';
import { workerHandler } from '#platform/invocation';
import { sharingCores } from '#platform/media-tools';

export const handler = workerHandler('split-jobs/analyse-segment', (task: SegmentTask) =>
  sharingCores(() => analyseSourceSegment(task)),
);
