import { operation as getVideoJob } from '#contract/operations/getVideoJob';
import type { VideoJob } from '#contract/types';
import { apiHandler } from '#http/api-handler';

/**
 * Type tests, checked by `tsc --noEmit` in `npm test` and never run: a handler must answer one of
 * its operation's documented responses, typed from docs/openapi.yaml. Each `@ts-expect-error`
 * fails the check if the line after it compiles, that is, if a handler could answer a shape the
 * document does not allow. (TypeScript does not check an arrow function's returned object for
 * excess properties; the presenters, typed by their declared return types, do.)
 */

const videoJob: VideoJob = {
  id: 'video_job_1',
  type: 'video',
  status: 'queued',
  stage: 'queued',
  progress: 0,
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
  credits: { estimated: 10, charged: 10, refunded: 0 },
  input: { prompt: 'p', duration_seconds: 5, aspect_ratio: '9:16', model: 'auto', mode: 'text_to_video' },
  result: { available: false, asset_id: null, clips_count: null, download_url_available: false },
  error: null,
  metadata: null,
};

apiHandler(getVideoJob, async ({ pathParameters }) => ({ status: 200, body: { ...videoJob, id: pathParameters.id } }));

// @ts-expect-error the body lacks every VideoJob field but id
apiHandler(getVideoJob, async () => ({ status: 200, body: { id: 'video_job_1' } }));

// @ts-expect-error 201 is not a documented status of GET /video-jobs/{id}
apiHandler(getVideoJob, async () => ({ status: 201, body: videoJob }));

// @ts-expect-error status must be one of the JobStatus values
apiHandler(getVideoJob, async () => ({ status: 200, body: { ...videoJob, status: 'done' } }));

// @ts-expect-error a split job's result summary is no video job's (asset_id, clips_count, download_url_available)
apiHandler(getVideoJob, async () => ({
  status: 200,
  body: { ...videoJob, result: { available: true, clips_available: true } },
}));

apiHandler(getVideoJob, async ({ body }) => {
  // @ts-expect-error GET /video-jobs/{id} takes no body
  body.prompt.trim();
  return { status: 200, body: videoJob };
});

// @ts-expect-error an operation the contract does not have
apiHandler({ operationId: 'getEverything' }, async () => ({ status: 200, body: {} }));
