/**
 * `npm run console:screenshots`: the pictures of docs/console.md, docs/console/*.png. Starts a
 * local stack on a fresh data dir (as `npm start` does: the demo organization and its key), gives
 * it something to show (two split jobs, one of them started from the page, a video job, a
 * webhook endpoint that answers and one that does not, a resend), runs the console against it
 * with the demo key, and photographs each view in the browser tests' Chromium (Debian's when
 * installed: test/integration/support/chromium.ts). Takes about two minutes.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { startConsole } from '../console/server/console-server';
import { launchChromium } from '../test/integration/support/chromium';
import { eventually } from '../test/integration/support/eventually';
import { makeSplitSource, type SplitSourcePlan } from '../test/integration/support/media';
import { startStackProcess, stopStackProcess } from '../test/integration/support/stack-process';
import { WebhookReceiver } from '../test/integration/support/webhook-receiver';

const OUTPUT = join(__dirname, '..', 'docs', 'console');

/** Six scenes of colour with two pauses: a split job finds clips of differing scores in it. */
const SOURCE: SplitSourcePlan = {
  durationSeconds: 75,
  width: 640,
  height: 360,
  scenes: ['red', 'green', 'blue', 'yellow', 'magenta', 'cyan'].map((colour, index) => ({
    colour,
    startSeconds: [0, 12, 27, 41, 55, 66][index]!,
  })),
  silences: [
    { startSeconds: 20, endSeconds: 21 },
    { startSeconds: 47.5, endSeconds: 48.5 },
  ],
};

type Json = Record<string, unknown>;

function apiOf(apiUrl: string, key: string) {
  return async <T = Json>(method: string, path: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${apiUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as T;
  };
}

async function main() {
  const dataDir = await mkdtemp(join(tmpdir(), 'console-screenshots-'));
  const receiver = await new WebhookReceiver().start();
  const down = await new WebhookReceiver().start();
  down.answerWith(() => ({ status: 503, body: '{"error":"deploy in progress"}' }));
  const stack = await startStackProcess(dataDir);
  try {
    const key = /Demo test key[^:]*: (svc_test_\S+)/.exec(stack.output())?.[1];
    if (!key) throw new Error(`The local stack printed no demo key:\n${stack.output()}`);
    const api = apiOf(stack.apiUrl, key);

    await api('POST', '/webhooks', {
      url: receiver.url,
      events: ['job.completed', 'job.failed'],
      description: 'Production receiver',
    });
    const failing = await api<{ id: string }>('POST', '/webhooks', {
      url: down.url.replace('/hooks', '/staging'),
      events: ['job.completed'],
      description: 'Staging receiver, down for a deploy',
    });
    const source = makeSplitSource(SOURCE);
    const upload = await api<{ asset_id: string; upload_url: string; upload_headers: Record<string, string> }>(
      'POST',
      '/assets/upload-url',
      { filename: 'team-offsite.mp4', content_type: 'video/mp4', size_bytes: source.length, purpose: 'split_source' },
    );
    const put = await fetch(upload.upload_url, { method: 'PUT', headers: upload.upload_headers, body: source });
    if (put.status !== 200) throw new Error(`The upload URL answered ${put.status}`);
    await api('POST', '/assets/confirm-upload', { asset_id: upload.asset_id });
    const split = await api<{ id: string }>('POST', '/split-jobs', {
      source_asset_id: upload.asset_id,
      max_clips: 3,
      clip_length_preset: 'under_30',
    });
    const video = await api<{ id: string }>('POST', '/video-jobs', {
      prompt: 'A lighthouse on a cliff at dusk, waves breaking below',
      duration_seconds: 5,
      aspect_ratio: '16:9',
    });
    for (const id of [split.id, video.id]) {
      const job = await eventually(
        () => api<{ status: string }>('GET', `/jobs/${id}`),
        (read) => read.status !== 'queued' && read.status !== 'processing',
        { timeoutMs: 180_000, everyMs: 1000 },
      );
      if (job.status !== 'completed') throw new Error(`${id} ended ${job.status}`);
    }
    // The staging endpoint's delivery fails after its six attempts (seconds, on a test stack).
    await eventually(
      () => api<{ data: { status: string }[] }>('GET', `/webhooks/${failing.id}/deliveries`),
      (read) => read.data.some((delivery) => delivery.status === 'failed'),
      { timeoutMs: 60_000, everyMs: 1000 },
    );

    const running = await startConsole({ apiUrl: stack.apiUrl, apiKey: key, port: 0, readsPerMinute: 30 });
    const browser = await launchChromium();
    try {
      const context = await browser.newContext({
        viewport: { width: 1280, height: 900 },
        locale: 'en-US',
        timezoneId: 'UTC',
        colorScheme: 'light',
      });
      const page = await context.newPage();
      await page.goto(running.url);
      await mkdir(OUTPUT, { recursive: true });
      await photographJobs(page, source);
      await photographSplitJob(page, split.id);
      await photographVideoJob(page, video.id);
      await photographWebhooks(page, failing.id);
      await photographUsage(page);
    } finally {
      await browser.close();
      await running.close();
    }
    console.log(`Screenshots written to ${OUTPUT}`);
  } finally {
    await stopStackProcess(stack);
    await Promise.all([receiver.stop(), down.stop()]);
    await rm(dataDir, { recursive: true, force: true });
  }
}

const shoot = (page: Page, name: string) => page.screenshot({ path: join(OUTPUT, `${name}.png`), fullPage: true });

/** The jobs view while a split job started from the page runs: its stage and progress live. */
async function photographJobs(page: Page, source: Buffer) {
  await page.getByLabel('Video file').setInputFiles({ name: 'keynote.mp4', mimeType: 'video/mp4', buffer: source });
  await page.getByRole('button', { name: 'Upload' }).click();
  await page.getByText(/^Uploaded keynote\.mp4/).waitFor();
  await page.getByRole('button', { name: 'Start split job' }).click();
  await page.waitForURL(/#\/jobs\/split_job_/);
  await page.getByRole('link', { name: 'Jobs', exact: true }).click();
  await page.locator('table.jobs .badge-processing').waitFor({ timeout: 60_000 });
  const progress = page.locator('table.jobs tbody tr', { has: page.locator('.badge-processing') }).locator('progress');
  await eventually(
    async () => Number(await progress.first().getAttribute('value')),
    (value) => value > 0,
    { timeoutMs: 60_000 },
  );
  await shoot(page, 'jobs');
}

/** What the script does with a player in the page (the project's types have no DOM). */
interface Player {
  readyState: number;
  currentTime: number;
  play(): Promise<void>;
  pause(): void;
  addEventListener(event: string, listener: () => void, options: { once: boolean }): void;
}

/**
 * Shows each player's frame at `seconds`, loaded: played a moment, paused and sought, so no
 * player is caught in Chromium's loading spinner.
 */
async function framesShown(page: Page, seconds: number) {
  for (const video of await page.locator('video').all()) {
    // The element is the page's <video>; Player is what of it this function uses.
    await video.evaluate(async (player: Player, at) => {
      await player.play();
      player.pause();
      const sought = new Promise<void>((resolve) => player.addEventListener('seeked', resolve, { once: true }));
      player.currentTime = at;
      await sought;
      if (player.readyState < 3) {
        await new Promise<void>((resolve) => player.addEventListener('canplay', resolve, { once: true }));
      }
    }, seconds);
  }
}

async function photographSplitJob(page: Page, id: string) {
  await page.goto(`${new URL(page.url()).origin}/#/jobs/${id}`);
  await page.locator('.clip video').first().waitFor();
  await framesShown(page, 1);
  await shoot(page, 'split-job');
}

async function photographVideoJob(page: Page, id: string) {
  await page.goto(`${new URL(page.url()).origin}/#/jobs/${id}`);
  const video = page.locator('.output-section video');
  await video.waitFor();
  await framesShown(page, 2.5);
  await shoot(page, 'video-job');
}

/** Both endpoints, the failed delivery's attempts open. */
async function photographWebhooks(page: Page, failingId: string) {
  await page.getByRole('link', { name: 'Webhooks' }).click();
  const failed = page.locator(`[data-key="${failingId}"] tr`, { hasText: 'failed' }).first();
  await failed.waitFor();
  await page.locator('table.deliveries').nth(1).waitFor();
  // A resend from the page, answered by the production receiver.
  const first = page.locator('table.deliveries').first().locator('tbody tr').first();
  await first.getByRole('button', { name: /^Resend delivery/ }).click();
  await page
    .locator('tr', { hasText: /resend of dlv_/ })
    .getByText('succeeded')
    .waitFor();
  await failed.locator('summary').click();
  await shoot(page, 'webhooks');
}

async function photographUsage(page: Page) {
  await page.getByRole('link', { name: 'Usage' }).click();
  // Both charts whole: seven days each.
  await eventually(
    () => page.locator('.chart-value').count(),
    (count) => count === 14,
    { timeoutMs: 60_000 },
  );
  await shoot(page, 'usage');
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
