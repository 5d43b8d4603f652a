import { createVideoProvider } from '#domain/video-jobs/providers/factory';
import { pollRender, type RenderInProgress } from '#domain/video-jobs/render-steps';
import { s3 } from '#platform/clients/s3';
import { workerHandler } from '#platform/invocation';

const provider = createVideoProvider({ s3: s3() });

export const handler = workerHandler('video-jobs/poll-render', (state: RenderInProgress) =>
  pollRender(provider, state),
);
