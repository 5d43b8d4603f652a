import console from 'node:console';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import process from 'node:process';
import { createClient } from '@video-automation/client';
import { download } from './split-video.mjs';

/**
 * split-video.mjs with the client package (client/README.md): upload, split, wait, download.
 *
 *   API_KEY=svc_test_... node examples/quick-start/split-video-client.mjs talk.mp4 [out-dir]
 *
 * The client retries what is safe to retry, after Retry-After, gives the create an
 * Idempotency-Key, and throws ApiError (status, code, request id) for any failure.
 */
const [file, outDir = '.'] = process.argv.slice(2);
if (!process.env.API_KEY || !file) {
  console.error('Usage: API_KEY=svc_test_... node examples/quick-start/split-video-client.mjs <video.mp4> [out-dir]');
  process.exit(1);
}
// The clips' folder first: a folder that cannot be made fails now, not after the job.
await mkdir(outDir, { recursive: true });
const client = createClient({
  apiKey: process.env.API_KEY,
  // The local stack on PORT (3000 when unset), as split-video.mjs says.
  baseUrl: process.env.API_URL ?? `http://127.0.0.1:${process.env.PORT ?? 3000}/api/v1/developer`,
});

// 1. Upload: the upload URL, the PUT of the file and the confirmation, in one call.
const asset = await client.uploadFile({ path: file, purpose: 'split_source' });

// 2. Create the job; a retried create is the same job.
const { data: created } = await client.POST('/split-jobs', {
  body: { source_asset_id: asset.id, target_platforms: ['tiktok'], max_clips: 3 },
});

// 3. Wait for it: a poll every 5 s, within the key's rate limit (or take the job.completed webhook).
const job = await client.waitForJob(created.id, {
  onPoll: ({ status, stage, progress }) => console.log(`${status} ${stage ?? ''} ${progress}%`),
});
if (job.status !== 'completed') throw new Error(`The job ended ${job.status}: ${job.error?.message}`);

// 4. Download each clip through its signed URL (valid 15 minutes).
const { data: result } = await client.GET('/split-jobs/{id}/result', { params: { path: { id: job.id } } });
for (const clip of result.clips) {
  const path = join(outDir, `${clip.id}.mp4`);
  await download(clip.download_url, path);
  console.log(`${path}: ${clip.duration_seconds} s, score ${clip.score}: ${clip.reasons.join(' ')}`);
}
