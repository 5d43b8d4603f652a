import { videoProvider } from '#domain/video-jobs/providers/factory';
import { pollRender, type RenderInProgress } from '#domain/video-jobs/render-steps';
import { workerHandler } from '#platform/invocation';

export const handler = workerHandler('video-jobs/poll-render', (state: RenderInProgress) =>
  pollRender(videoProvider(), state),
);
