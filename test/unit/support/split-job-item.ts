import { SPLIT_JOB_INPUT } from '../../support/split-job-input';

/** A split job's item as job-store.ts writes it, processing and charged 10, for tests that fake the table. */
export function splitJobItem(organizationId: number, jobId: string, overrides: Record<string, unknown> = {}) {
  return {
    pk: `ORG#${organizationId}`,
    sk: `JOB#${jobId}`,
    job_id: jobId,
    organization_id: organizationId,
    type: 'split',
    status: 'processing',
    progress: 60,
    created_at: '2026-03-01T11:50:00.000Z',
    updated_at: '2026-03-01T11:59:00.000Z',
    credits: { estimated: 10, charged: 10, refunded: 0 },
    input: SPLIT_JOB_INPUT,
    metadata: null,
    tracked: true,
    ...overrides,
  };
}

/** A 5 s clip of the job as clip-store.ts writes it: ranked `rank`, starting at `startSeconds`. */
export function clipItem(clip: {
  organizationId: number;
  jobId: string;
  rank: number;
  status: string;
  startSeconds: number;
}) {
  return {
    clip_id: `clip_${clip.jobId.slice('split_job_'.length)}_0${clip.rank}`,
    organization_id: clip.organizationId,
    job_id: clip.jobId,
    rank: clip.rank,
    status: clip.status,
    title: null,
    start_seconds: clip.startSeconds,
    end_seconds: clip.startSeconds + 5,
    score: 0.5,
    updated_at: '2026-03-01T11:59:00.000Z',
  };
}
