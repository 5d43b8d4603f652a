import type { JobExecutionInput } from '#domain/jobs/job-execution';
import { createVideoProvider } from '#domain/video-jobs/providers/factory';
import type { VideoProvider } from '#domain/video-jobs/providers/port';
import { startRender } from '#domain/video-jobs/render-steps';
import { renderScheduleFromSettings } from '#domain/video-jobs/render-schedule';
import { s3 } from '#platform/clients/s3';
import { workerHandler } from '#platform/invocation';

let provider: VideoProvider | undefined;

export const handler = workerHandler('video-jobs/start-render', (input: JobExecutionInput) =>
  startRender((provider ??= createVideoProvider({ s3: s3() })), input, renderScheduleFromSettings()),
);
