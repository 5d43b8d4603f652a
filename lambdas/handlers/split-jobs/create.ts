import { operation } from '#contract/operations/createSplitJob';
import { createSplitJob } from '#domain/split-jobs/create-split-job';
import { presentSplitJob } from '#domain/split-jobs/presentation';
import { apiHandler } from '#http/api-handler';

export const handler = apiHandler(operation, async ({ caller, body, headers }) => ({
  status: 201,
  body: presentSplitJob(await createSplitJob(caller, body, headers['idempotency-key'])),
}));
