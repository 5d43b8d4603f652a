import type { JobExecutionInput } from '#domain/jobs/job-execution';
import { createVideoProvider } from '#domain/video-jobs/providers/factory';
import { startRender } from '#domain/video-jobs/render-steps';
import { renderScheduleFromSettings } from '#domain/video-jobs/render-schedule';
import { s3 } from '#platform/clients/s3';
import { workerHandler } from '#platform/invocation';

const provider = createVideoProvider({ s3: s3() });
const schedule = renderScheduleFromSettings();

export const handler = workerHandler('video-jobs/start-render', (input: JobExecutionInput) =>
  startRender(provider, input, schedule),
);
