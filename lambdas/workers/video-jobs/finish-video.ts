import { workerHandler } from '#platform/invocation';
import { finishRenderedVideo, type RenderState } from '#domain/video-jobs/render-steps';

export const handler = workerHandler('video-jobs/finish-video', (state: RenderState) => finishRenderedVideo(state));
