import { workerHandler } from '#platform/invocation';
import { finishRenderedVideo, type RenderDelivered } from '#domain/video-jobs/render-steps';

export const handler = workerHandler('video-jobs/finish-video', (state: RenderDelivered) => finishRenderedVideo(state));
