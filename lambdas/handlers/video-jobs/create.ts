import { operation } from '#contract/operations/createVideoJob';
import { createVideoJob } from '#domain/video-jobs/create-video-job';
import { presentVideoJob } from '#domain/video-jobs/presentation';
import { apiHandler } from '#http/api-handler';

export const handler = apiHandler(operation, async ({ caller, body, headers }) => ({
  status: 201,
  body: presentVideoJob(await createVideoJob(caller, body, headers['idempotency-key'])),
}));
