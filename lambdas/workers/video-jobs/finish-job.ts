import { finishVideoJob, type RenderEnding } from '#domain/video-jobs/render-steps';
import { workerHandler } from '#platform/invocation';

export const handler = workerHandler('video-jobs/finish-job', (state: RenderEnding) => finishVideoJob(state));
