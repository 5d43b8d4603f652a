import type { ClipsResponse, SplitJobResult } from '#contract/types';
import { getCompletedJobOfType, getJobOfType } from '#domain/jobs/jobs';
import { findClips } from './clip-store';
import { presentClip } from './presentation';

/** GET /split-jobs/{id}/clips: every clip chosen so far, in rank order, in any job status. */
export async function getSplitJobClips(organizationId: number, jobId: string): Promise<ClipsResponse> {
  const job = await getJobOfType(organizationId, jobId, 'split');
  const clips = await findClips(organizationId, jobId);
  const now = new Date();
  return { job_id: job.jobId, clips: await Promise.all(clips.map((clip) => presentClip(clip, job, now))) };
}

/** GET /split-jobs/{id}/result: a completed job's completed clips; 409 while it runs or when it did not complete. */
export async function getSplitJobResult(organizationId: number, jobId: string): Promise<SplitJobResult> {
  const job = await getCompletedJobOfType(organizationId, jobId, 'split');
  const now = new Date();
  const completed = (await findClips(organizationId, jobId)).filter((clip) => clip.status === 'completed');
  return {
    job_id: job.jobId,
    status: job.status,
    clips_count: completed.length,
    clips: await Promise.all(completed.map((clip) => presentClip(clip, job, now))),
  };
}
