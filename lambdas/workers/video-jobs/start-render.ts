import { createVideoProvider } from '#domain/video-jobs/providers/factory';
import { startRender, type RenderState } from '#domain/video-jobs/render-steps';
import { renderScheduleFromEnvironment } from '#domain/video-jobs/render-schedule';
import { s3 } from '#platform/clients/s3';
import { workerHandler } from '#platform/invocation';

const provider = createVideoProvider({ s3 });
const schedule = renderScheduleFromEnvironment();

export const handler = workerHandler('video-jobs/start-render', (state: RenderState) =>
  startRender(provider, state, schedule),
);
