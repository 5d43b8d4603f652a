import { createWriteStream, openAsBlob } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import console from 'node:console';
import process from 'node:process';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';

/**
 * The whole flow of a split job with plain `fetch` (Node.js 20+): upload a video, split it into
 * clips, wait for the job, download the clips. No dependencies.
 *
 *   API_KEY=svc_test_... node examples/quick-start/split-video.mjs talk.mp4 [out-dir]
 *
 * API_URL defaults to the local stack on PORT, as `npm start` reads it:
 * http://127.0.0.1:$PORT/api/v1/developer, port 3000 when PORT is unset too.
 */

const API_URL = process.env.API_URL ?? `http://127.0.0.1:${process.env.PORT ?? 3000}/api/v1/developer`;
const API_KEY = process.env.API_KEY;

/** One API call; any answer but 2xx throws the error envelope's code and message. */
async function api(method, path, body, headers = {}) {
  const response = await fetch(`${API_URL}${path}`, {
    method,
    headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = await response.json();
  if (!response.ok)
    throw new Error(`${method} ${path}: ${response.status} ${answer.error.code}: ${answer.error.message}`);
  return answer;
}

/**
 * Polls the job until it ends. A key may make 60 requests a minute, shared by everything that
 * uses it: poll every 5 s (12 a minute), or better, let a webhook tell you (`job.completed`).
 */
async function waitForJob(jobId) {
  for (;;) {
    const job = await api('GET', `/split-jobs/${jobId}`);
    console.log(`${job.status} ${job.stage ?? ''} ${job.progress}%`);
    if (!['queued', 'processing'].includes(job.status)) return job;
    await new Promise((resolve) => setTimeout(resolve, 5000));
  }
}

/**
 * Streams a download to `path`, through a `.part` file renamed once complete: a download cut short
 * never leaves a file that looks like a clip.
 */
export async function download(url, path) {
  const response = await fetch(url);
  if (!response.ok || !response.body) throw new Error(`The download of ${path} answered ${response.status}`);
  const partial = `${path}.part`;
  try {
    await pipeline(Readable.fromWeb(response.body), createWriteStream(partial));
    await rename(partial, path);
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  }
}

export async function splitVideo(file, outDir = '.') {
  // The clips' folder first: a folder that cannot be made fails now, not after the job.
  await mkdir(outDir, { recursive: true });
  // 1. Upload: ask for an upload URL, PUT the file to it with the declared type and size, confirm.
  const { size } = await stat(file);
  const upload = await api('POST', '/assets/upload-url', {
    filename: basename(file),
    content_type: 'video/mp4',
    size_bytes: size,
    purpose: 'split_source',
  });
  const put = await fetch(upload.upload_url, {
    method: 'PUT',
    headers: { 'content-type': 'video/mp4' },
    body: await openAsBlob(file),
  });
  if (!put.ok) throw new Error(`The upload answered ${put.status}`);
  await api('POST', '/assets/confirm-upload', { asset_id: upload.asset_id });

  // 2. Create the job. The Idempotency-Key makes a retried create (after a timeout) the same job.
  const created = await api(
    'POST',
    '/split-jobs',
    { source_asset_id: upload.asset_id, target_platforms: ['tiktok'], max_clips: 3 },
    { 'idempotency-key': `split-${upload.asset_id}` },
  );

  // 3. Wait for it, then 4. download each clip through its signed URL (valid 15 minutes).
  const job = await waitForJob(created.id);
  if (job.status !== 'completed') throw new Error(`The job ended ${job.status}: ${job.error?.message}`);
  const { clips } = await api('GET', `/split-jobs/${job.id}/result`);
  const saved = [];
  for (const clip of clips) {
    const path = join(outDir, `${clip.id}.mp4`);
    await download(clip.download_url, path);
    console.log(`${path}: ${clip.duration_seconds} s, score ${clip.score}: ${clip.reasons.join(' ')}`);
    saved.push(path);
  }
  return saved;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (!API_KEY || !process.argv[2]) {
    console.error('Usage: API_KEY=svc_test_... node examples/quick-start/split-video.mjs <video.mp4> [out-dir]');
    process.exit(1);
  }
  await splitVideo(process.argv[2], process.argv[3]);
}
