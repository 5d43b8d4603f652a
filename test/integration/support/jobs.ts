import { call } from './stack';

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

/** Polls a job (once a second, well inside the per-key rate limit) until it leaves queued/processing. */
export async function waitForJob<T extends Pick<VideoJob, 'status' | 'progress' | 'stage'> = VideoJob>(
  key: string,
  jobId: string,
  timeoutMs = 60_000,
): Promise<{ job: T; progress: number[]; stages: T['stage'][] }> {
  const progress: number[] = [];
  const stages: T['stage'][] = [];
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const path = `/${jobId.startsWith('split_job_') ? 'split-jobs' : 'video-jobs'}/${jobId}`;
    const response = await call<T>('GET', path, { key });
    if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}`);
    progress.push(response.body.progress);
    if (stages.at(-1) !== response.body.stage) stages.push(response.body.stage);
    if (!['queued', 'processing'].includes(response.body.status)) return { job: response.body, progress, stages };
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  throw new Error(`Job ${jobId} did not finish within ${timeoutMs} ms`);
}
