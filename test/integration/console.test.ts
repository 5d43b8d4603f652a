import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium } from './support/chromium';
import { eventually } from './support/eventually';
import { makeSplitSource, SHORT_SPLIT_SOURCE } from './support/media';
import { apiUrl, call, createKey, createOrganization, type TestOrganization } from './support/stack';
import { WebhookReceiver } from './support/webhook-receiver';

/** `npm run console` as a person runs it: the key in API_KEY, the link it prints. */
class ConsoleProcess {
  private output = '';
  private readonly child: ChildProcessWithoutNullStreams;

  constructor(apiKey: string) {
    this.child = spawn(process.execPath, ['--import', 'tsx', 'console/main.ts', '--port', '0', '--api-url', apiUrl()], {
      env: { ...process.env, API_KEY: apiKey },
    });
    this.child.stdout.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    this.child.stderr.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
  }

  /** The link it printed, once it printed it. */
  async link(): Promise<URL> {
    const printed = await eventually(
      async () => /^Open (\S+)$/m.exec(this.output)?.[1],
      (link) => link !== undefined || this.child.exitCode !== null,
      { timeoutMs: 20_000 },
    );
    if (!printed) throw new Error(`npm run console printed no link:\n${this.output}`);
    return new URL(printed);
  }

  get printed(): string {
    return this.output;
  }

  stop(): Promise<void> {
    if (this.child.exitCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      this.child.once('exit', () => resolve());
      this.child.kill('SIGINT');
    });
  }
}

/** What the test reads of a <video> in the page (the project's types have no DOM). */
interface MediaElement {
  duration: number;
  readyState: number;
  currentTime: number;
  play(): Promise<void>;
}

interface Clip {
  id: string;
  duration_seconds: number;
  score: number;
  reasons: string[];
  score_breakdown: Record<string, { value: number; weight: number }>;
}

const SOURCE = makeSplitSource(SHORT_SPLIT_SOURCE);

const figures = new Intl.NumberFormat('en-US');

describe('the console, driven in Chromium', () => {
  const receiver = new WebhookReceiver();
  let org: TestOrganization;
  /** A second key of the organization, for the test's own reads: the console's key keeps its minute to itself. */
  let reader: string;
  let endpointId: string;
  let videoJobId: string;
  let consoleProcess: ConsoleProcess;
  let link: URL;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  /** Everything the browser sent to the console server and got from it, but the event streams. */
  const traffic: string[] = [];
  let splitJobId: string;

  beforeAll(async () => {
    await receiver.start();
    org = await createOrganization({ credits: 1000 });
    reader = (await createKey(org.organizationId)).key;
    const endpoint = await call<{ id: string }>('POST', '/webhooks', {
      key: reader,
      body: { url: receiver.url, events: ['job.completed'] },
    });
    endpointId = endpoint.body.id;
    const video = await call<{ id: string }>('POST', '/video-jobs', {
      key: reader,
      body: { prompt: 'A lighthouse at dusk', duration_seconds: 5 },
    });
    videoJobId = video.body.id;
    consoleProcess = new ConsoleProcess(org.key);
    link = await consoleProcess.link();
    browser = await launchChromium();
    context = await browser.newContext({ locale: 'en-US', timezoneId: 'UTC', viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    page.on('request', (request) => {
      if (!request.url().startsWith(link.origin)) return;
      traffic.push(request.url(), JSON.stringify(request.headers()), request.postData() ?? '');
    });
    page.on('response', async (response) => {
      if (!response.url().startsWith(link.origin)) return;
      const headers = await response.allHeaders();
      traffic.push(JSON.stringify(headers));
      if (headers['content-type'] !== 'text/event-stream') traffic.push(await response.text().catch(() => ''));
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await consoleProcess?.stop();
    await receiver.stop();
  });

  it('lets in only the browser that opened its link, and serves it a page under a strict policy', async () => {
    expect(consoleProcess.printed).not.toContain(org.key);
    expect((await fetch(link.origin)).status).toBe(401);
    const entry = await fetch(link, { redirect: 'manual' });
    expect(entry.status).toBe(303);
    expect(entry.headers.get('location')).toBe('/');
    expect(entry.headers.get('set-cookie')).toMatch(/HttpOnly; SameSite=Strict/);
    expect((await fetch(`${link.origin}/?token=not-the-token`, { redirect: 'manual' })).status).toBe(401);

    const opened = await page.goto(link.href);
    expect(page.url()).toBe(`${link.origin}/`);
    const policy = opened!.headers()['content-security-policy'];
    expect(policy).toContain("script-src 'self'");
    expect(policy).toContain("connect-src 'self'");
    expect(policy).not.toContain('unsafe-inline');
    await page.getByRole('heading', { name: 'Jobs' }).waitFor();
    expect(await page.evaluate<string>('document.cookie')).toBe('');
  });

  it('refuses routes outside its allowlist, other hosts, and actions from other origins', async () => {
    const cookie = (await context.cookies()).map(({ name, value }) => `${name}=${value}`).join('; ');
    const send = (path: string, init: RequestInit = {}) =>
      fetch(`${link.origin}${path}`, { ...init, headers: { cookie, ...init.headers } });
    const sameOrigin = { origin: link.origin, 'x-requested-by': 'console', 'content-type': 'application/json' };
    const asked = { source_asset_id: 'asset_06h1qwka94ks8hp45rb1h7wzkc', idempotency_key: 'console-test' };

    expect((await send('/api/v1/developer/me')).status).toBe(404);
    expect((await send('/api/jobs')).status).toBe(404);
    expect((await send('/api/stream?view=me')).status).toBe(400);
    expect((await send('/api/stream?view=job&id=../../me')).status).toBe(400);
    expect((await send('/api/uploads')).status).toBe(405);
    // fetch sets Host itself; a DNS-rebinding page's requests name its own host.
    const rebound = await new Promise<number>((resolve, reject) =>
      httpRequest(link.origin, { headers: { host: 'console.example', cookie } }, (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      })
        .on('error', reject)
        .end(),
    );
    expect(rebound).toBe(421);
    const crossSite = await send('/api/split-jobs', {
      method: 'POST',
      headers: { ...sameOrigin, origin: 'https://attacker.example' },
      body: JSON.stringify(asked),
    });
    expect(crossSite.status).toBe(403);
    const noHeader = await send('/api/split-jobs', {
      method: 'POST',
      headers: { origin: link.origin, 'content-type': 'text/plain' },
      body: JSON.stringify(asked),
    });
    expect(noHeader.status).toBe(403);
    const extraField = await send('/api/split-jobs', {
      method: 'POST',
      headers: sameOrigin,
      body: JSON.stringify({ ...asked, url: 'https://example.com/talk.mp4' }),
    });
    expect(extraField.status).toBe(400);
    const notADelivery = await send('/api/webhooks/webhook_x/deliveries/anything/resend', {
      method: 'POST',
      headers: sameOrigin,
    });
    expect(notADelivery.status).toBe(404);
    // Nothing of the above reached the API as a job.
    const jobs = await call<{ data: { type: string }[] }>('GET', '/jobs', { key: reader });
    expect(jobs.body.data.map((job) => job.type)).toEqual(['video']);
  });

  it('uploads a source, starts a split job on it, shows it finish, and plays its clip', async () => {
    await page.getByLabel('Video file').setInputFiles({ name: 'talk.mp4', mimeType: 'video/mp4', buffer: SOURCE });
    await page.getByRole('button', { name: 'Upload' }).click();
    await page.getByText(/^Uploaded talk\.mp4 as asset_/).waitFor();
    await page.getByLabel('Clips at most').selectOption('2');
    await page.getByRole('button', { name: 'Start split job' }).click();
    await page.waitForURL(/#\/jobs\/split_job_/);
    splitJobId = new URL(page.url()).hash.slice('#/jobs/'.length);

    await page.locator('[data-figure=status]').getByText('completed').waitFor({ timeout: 60_000 });
    expect(await page.locator('.progress-figure').first().textContent()).toBe('100 %');
    expect(await page.locator('#announcer').textContent()).toContain('completed');

    const clips = await call<{ clips: Clip[] }>('GET', `/split-jobs/${splitJobId}/clips`, { key: reader });
    const [first] = clips.body.clips;
    const card = page.locator(`[data-clip="${first!.id}"]`);
    expect(await card.locator('[data-figure=score]').textContent()).toBe(first!.score.toFixed(2));
    expect(await card.locator('.reasons li').allTextContents()).toEqual(first!.reasons);
    expect(await card.locator('.breakdown tbody tr').count()).toBe(Object.keys(first!.score_breakdown).length);
    const video = card.locator('video');
    await video.evaluate((element: MediaElement) => element.play());
    await page.waitForFunction(
      (element) => (element as MediaElement).readyState >= 2 && (element as MediaElement).currentTime > 0,
      await video.elementHandle(),
    );
    const duration = await video.evaluate((element: MediaElement) => element.duration);
    expect(Math.abs(duration - first!.duration_seconds)).toBeLessThanOrEqual(0.1);
  }, 90_000);

  it("plays a video job's output", async () => {
    await page.goto(`${link.origin}/#/jobs/${videoJobId}`);
    await page.locator('[data-figure=status]').getByText('completed').waitFor({ timeout: 60_000 });
    const video = page.locator('.output-section video');
    await page.waitForFunction((element) => (element as MediaElement).readyState >= 1, await video.elementHandle());
    expect(Math.round(await video.evaluate((element: MediaElement) => element.duration))).toBe(5);
  }, 90_000);

  it('shows the delivery of the split job’s event, and resends it from the keyboard', async () => {
    await receiver.waitFor((received) => received.some((delivery) => delivery.rawBody.includes(splitJobId)));
    const eventId = String(
      receiver.received.find((delivery) => delivery.rawBody.includes(splitJobId))!.headers['service-webhook-id'],
    );
    const deliveries = await call<{ data: { id: string; event_id: string }[] }>(
      'GET',
      `/webhooks/${endpointId}/deliveries`,
      { key: reader },
    );
    const delivery = deliveries.body.data.find((entry) => entry.event_id === eventId)!;

    await page.getByRole('link', { name: 'Webhooks' }).click();
    const row = page.locator(`tr[data-delivery="${delivery.id}"]`);
    await row.getByText('succeeded').waitFor();
    expect(await row.textContent()).toContain('job.completed');
    await row.getByRole('button', { name: `Resend delivery ${delivery.id}` }).focus();
    await page.keyboard.press('Enter');

    const resent = page.locator('tr', { hasText: `resend of ${delivery.id}` });
    await resent.getByText('succeeded').waitFor({ timeout: 30_000 });
    expect(receiver.of(eventId)).toHaveLength(2);
    expect(await row.textContent()).toMatch(/Resent as dlv_/);
  }, 60_000);

  it('shows the credits, limits and usage the API reports, and the day in its chart', async () => {
    await page.getByRole('link', { name: 'Usage' }).click();
    const usage = await call<{
      credits: { balance: number; charged: number; refunded: number };
      jobs: { split: { total: number } };
      limits: { requests_per_minute_per_key: number };
    }>('GET', '/usage', { key: reader });
    const shown = (figure: string) => page.locator(`[data-figure=${figure}]`).textContent();
    await page.locator('[data-figure=balance]').waitFor();
    const balance = await eventually(
      () => shown('balance'),
      (text) => text === figures.format(usage.body.credits.balance),
    );
    expect(balance).toBe(figures.format(usage.body.credits.balance));
    expect(usage.body.credits.balance).toBe(1000 - 10 - 5);
    expect(await shown('charged')).toBe(figures.format(usage.body.credits.charged));
    expect(await shown('refunded')).toBe(figures.format(usage.body.credits.refunded));
    expect(await page.locator('tr[data-type=split] td').first().textContent()).toBe(
      String(usage.body.jobs.split.total),
    );
    expect(await shown('requests-minute')).toContain(`of ${usage.body.limits.requests_per_minute_per_key}`);
    // Today's bar is the last; the chart draws it first.
    const today = page
      .getByRole('img', { name: /Credits charged per day/ })
      .locator('.chart-value')
      .last();
    await today.waitFor();
    expect(await today.textContent()).toBe(figures.format(usage.body.credits.charged));
  }, 60_000);

  it('never lets the key reach the browser: not in the page, its requests, its answers or its streams', async () => {
    const secret = org.key.slice(org.key.lastIndexOf('_') + 1);
    const cookie = (await context.cookies()).map(({ name, value }) => `${name}=${value}`).join('; ');
    const streams: string[] = [];
    for (const view of [
      'view=jobs',
      `view=job&id=${splitJobId}`,
      `view=job&id=${videoJobId}`,
      'view=webhooks',
      'view=usage',
    ]) {
      const response = await fetch(`${link.origin}/api/stream?${view}`, { headers: { cookie } });
      const reader = response.body!.getReader();
      let text = '';
      // What the console knows comes at once: the header's read and the view's own.
      while ((text.match(/^event: read$/gm) ?? []).length < 2) {
        const { done, value } = await reader.read();
        if (done) throw new Error(`The ${view} stream ended (${response.status}) before its first reads:\n${text}`);
        text += new TextDecoder().decode(value);
      }
      await reader.cancel();
      streams.push(text);
    }
    const everything = [await page.content(), ...traffic, ...streams].join('\n');
    expect(everything).toContain('"key":"usage"');
    expect(everything).not.toContain(org.key);
    expect(everything).not.toContain(secret);
  });
});
