import { operation } from '#contract/operations/cancelJob';
import { cancelAnyJob } from '#domain/jobs/cancellation';
import { presentUnifiedJobDetail } from '#domain/jobs/presentation';
import { apiHandler } from '#http/api-handler';

export const handler = apiHandler(operation, async ({ caller, pathParameters }) => ({
  status: 200,
  body: presentUnifiedJobDetail(await cancelAnyJob(caller, pathParameters.id)),
}));
