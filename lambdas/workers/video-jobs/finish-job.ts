import { finishVideoJob, type RenderState } from '#domain/video-jobs/render-steps';

export const handler = (state: RenderState) => finishVideoJob(state);
