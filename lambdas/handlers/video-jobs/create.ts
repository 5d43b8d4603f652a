import { apiHandler } from '../../http/api-handler';
import { createVideoJob, presentVideoJob, type CreateVideoJobRequest } from '../../domain/video-jobs';

export const handler = apiHandler('createVideoJob', async ({ caller, body, headers }) => {
  const job = await createVideoJob(caller, body as CreateVideoJobRequest, headers['idempotency-key']);
  return { status: 201, body: presentVideoJob(job) };
});
