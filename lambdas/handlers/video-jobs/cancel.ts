import { operation } from '#contract/operations/cancelVideoJob';
import { cancelJobOfType } from '#domain/jobs/cancellation';
import { JOB_CLIPS } from '#domain/split-jobs/clip-store';
import { presentVideoJob } from '#domain/video-jobs/presentation';
import { apiHandler } from '#http/api-handler';

export const handler = apiHandler(operation, async ({ caller, pathParameters }) => ({
  status: 200,
  body: presentVideoJob(
    await cancelJobOfType(JOB_CLIPS, caller.organization.organizationId, pathParameters.id, 'video'),
  ),
}));
