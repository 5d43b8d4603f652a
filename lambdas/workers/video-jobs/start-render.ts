import type { JobExecutionInput } from '#domain/jobs/job-execution';
import type { VideoModelEntry } from '#domain/models/model-registry';
import { configuredVideoModel, videoProvider } from '#domain/video-jobs/providers/factory';
import { startRender, type RenderDeliveredPart } from '#domain/video-jobs/render-steps';
import { renderScheduleFromSettings, type RenderSchedule } from '#domain/video-jobs/render-schedule';
import { workerHandler } from '#platform/invocation';

let schedule: RenderSchedule | undefined;
let model: VideoModelEntry | undefined;

export const handler = workerHandler('video-jobs/start-render', (input: JobExecutionInput | RenderDeliveredPart) =>
  startRender(videoProvider(), input, (schedule ??= renderScheduleFromSettings()), (model ??= configuredVideoModel())),
);
