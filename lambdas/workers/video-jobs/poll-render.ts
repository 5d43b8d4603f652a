import { createVideoProvider } from '#domain/video-jobs/providers/factory';
import type { VideoProvider } from '#domain/video-jobs/providers/port';
import { pollRender, type RenderInProgress } from '#domain/video-jobs/render-steps';
import { s3 } from '#platform/clients/s3';
import { workerHandler } from '#platform/invocation';

let provider: VideoProvider | undefined;

export const handler = workerHandler('video-jobs/poll-render', (state: RenderInProgress) =>
  pollRender((provider ??= createVideoProvider({ s3: s3() })), state),
);
