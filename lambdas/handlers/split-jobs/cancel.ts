import { operation } from '#contract/operations/cancelSplitJob';
import { cancelJobOfType } from '#domain/jobs/cancellation';
import { JOB_CLIPS } from '#domain/split-jobs/clip-store';
import { presentSplitJob } from '#domain/split-jobs/presentation';
import { apiHandler } from '#http/api-handler';

export const handler = apiHandler(operation, async ({ caller, pathParameters }) => ({
  status: 200,
  body: presentSplitJob(
    await cancelJobOfType(JOB_CLIPS, caller.organization.organizationId, pathParameters.id, 'split'),
  ),
}));
