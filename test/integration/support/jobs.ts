import { createClient, type SplitJob, type VideoJob as ClientVideoJob } from '@video-automation/client';
import { apiUrl } from './stack';

export interface VideoJob {
  id: string;
  type: 'video' | 'split';
  status: string;
  stage: string | null;
  progress: number;
  credits: { estimated: number; charged: number; refunded: number };
  result: { available: boolean; asset_id: string | null };
  error: { code: string; message: string } | null;
  [field: string]: unknown;
}

/** The stages of each job type, in the order a job goes through them; null is the end. */
export const STAGE_ORDER = {
  video: ['queued', 'rendering', 'finishing', null],
  split: ['queued', 'preparing', 'analysing', 'rendering', null],
} as const;

/** Whether the stages seen, each once, came in the type's order (a poll may miss short ones). */
export function inStageOrder(type: keyof typeof STAGE_ORDER, stages: readonly (string | null)[]): boolean {
  const positions = stages.map((stage) => (STAGE_ORDER[type] as readonly (string | null)[]).indexOf(stage));
  return positions.every((position, index) => position >= 0 && (index === 0 || position > positions[index - 1]!));
}

/** A job as the client answers it: its type tells which. */
export type Job = ClientVideoJob | SplitJob;

/**
 * Polls a job until it leaves queued/processing, as an integrator's code does with the client's
 * waitForJob: about once a second, less often when the key's minute window runs low, and after a
 * 429 only once its Retry-After has passed. Answers the job, and the progress and stages seen.
 */
export async function waitForJob(
  key: string,
  jobId: string,
  timeoutMs = 60_000,
): Promise<{ job: Job; progress: number[]; stages: Job['stage'][] }> {
  const progress: number[] = [];
  const stages: Job['stage'][] = [];
  const client = createClient({ apiKey: key, baseUrl: apiUrl() });
  const job = await client
    .waitForJob(jobId, {
      intervalMs: 1000,
      signal: AbortSignal.timeout(timeoutMs),
      onPoll: (polled) => {
        progress.push(polled.progress);
        if (stages.at(-1) !== polled.stage) stages.push(polled.stage);
      },
    })
    .catch((error: unknown) => {
      if ((error as Error).name === 'TimeoutError')
        throw new Error(`Job ${jobId} did not finish within ${timeoutMs} ms`);
      throw error;
    });
  return { job, progress, stages };
}

/** waitForJob for a split job: the job it answers is checked to be one. */
export async function waitForSplitJob(key: string, jobId: string, timeoutMs?: number) {
  const waited = await waitForJob(key, jobId, timeoutMs);
  if (waited.job.type !== 'split') throw new Error(`Job ${jobId} was answered as a ${waited.job.type} job`);
  return { ...waited, job: waited.job };
}
