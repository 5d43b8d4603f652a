import type { JobExecutionInput } from '#domain/jobs/job-execution';
import { videoProvider } from '#domain/video-jobs/providers/factory';
import { startRender } from '#domain/video-jobs/render-steps';
import { renderScheduleFromSettings, type RenderSchedule } from '#domain/video-jobs/render-schedule';
import { workerHandler } from '#platform/invocation';

let schedule: RenderSchedule | undefined;

export const handler = workerHandler('video-jobs/start-render', (input: JobExecutionInput) =>
  startRender(videoProvider(), input, (schedule ??= renderScheduleFromSettings())),
);
