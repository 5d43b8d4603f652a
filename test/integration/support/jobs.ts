import { call } from './stack';

export interface VideoJob {
  id: string;
  type: 'video' | 'split';
  status: string;
  progress: number;
  credits: { estimated: number; charged: number; refunded: number };
  result: { available: boolean; asset_id: string | null };
  error: { code: string; message: string } | null;
  [field: string]: unknown;
}

/** Polls a job (once a second, well inside the per-key rate limit) until it leaves queued/processing. */
export async function waitForJob<T extends Pick<VideoJob, 'status' | 'progress'> = VideoJob>(
  key: string,
  jobId: string,
  timeoutMs = 60_000,
): Promise<{ job: T; progress: number[] }> {
  const progress: number[] = [];
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const path = `/${jobId.startsWith('split_job_') ? 'split-jobs' : 'video-jobs'}/${jobId}`;
    const response = await call<T>('GET', path, { key });
    if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}`);
    progress.push(response.body.progress);
    if (!['queued', 'processing'].includes(response.body.status)) return { job: response.body, progress };
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  throw new Error(`Job ${jobId} did not finish within ${timeoutMs} ms`);
}
