import { finishVideoJob, type RenderState } from '#domain/video-jobs/render-steps';
import { workerHandler } from '#platform/invocation';

export const handler = workerHandler('video-jobs/finish-job', (state: RenderState) => finishVideoJob(state));
