import { workerHandler } from '#platform/invocation';
import { finishRenderedVideo, type RenderCompleted } from '#domain/video-jobs/render-steps';

export const handler = workerHandler('video-jobs/finish-video', (state: RenderCompleted) => finishRenderedVideo(state));
