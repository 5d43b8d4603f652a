import { operation } from '#contract/operations/cancelJob';
import { cancelAnyJob } from '#domain/jobs/cancellation';
import { presentUnifiedJobDetail } from '#domain/jobs/presentation';
import { JOB_CLIPS } from '#domain/split-jobs/clip-store';
import { apiHandler } from '#http/api-handler';

export const handler = apiHandler(operation, async ({ caller, pathParameters }) => ({
  status: 200,
  body: presentUnifiedJobDetail(await cancelAnyJob(JOB_CLIPS, caller, pathParameters.id)),
}));
