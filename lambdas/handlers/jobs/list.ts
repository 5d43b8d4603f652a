import { operation } from '#contract/operations/listJobs';
import { listJobs } from '#domain/jobs/job-list';
import { presentUnifiedJob } from '#domain/jobs/presentation';
import { apiHandler } from '#http/api-handler';

export const handler = apiHandler(operation, async ({ caller, query }) => {
  const page = await listJobs(caller.organization.organizationId, query);
  return {
    status: 200,
    body: { data: page.jobs.map(presentUnifiedJob), pagination: { next_cursor: page.nextCursor } },
  };
});
