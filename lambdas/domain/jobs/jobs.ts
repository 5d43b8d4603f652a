import { ApiError } from '#platform/errors';
import { isSortableId } from '#platform/ids';
import { jobOfType, type JobOf, type JobType } from './job';
import { findJob } from './job-store';
import { JOB_TYPES } from './job-types';

/** Another organization's job, one of another type and a missing one all look the same: not found. */
export async function getJobOfType<T extends JobType>(
  organizationId: number,
  jobId: string,
  type: T,
): Promise<JobOf<T>> {
  const job = isSortableId(JOB_TYPES[type].idPrefix, jobId)
    ? jobOfType(await findJob(organizationId, jobId), type)
    : undefined;
  if (!job) throw new ApiError('JOB_NOT_FOUND', `No ${type} job ${jobId} exists.`);
  return job;
}
