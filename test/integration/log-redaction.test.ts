import { rm } from 'node:fs/promises';
import { eventually } from './support/eventually';
import { makeMedia } from './support/media';
import { adminJson, startStackProcess, stopStackProcess, type StackProcess } from './support/stack-process';
import { WebhookReceiver } from './support/webhook-receiver';
import { stackDataDir } from '../support/stack-data-dir';

/**
 * A local stack of its own, logging at debug, driven through every flow that handles a secret:
 * API keys (valid, unknown, malformed), presigned upload and download URLs, a webhook signing
 * secret and a signed delivery, a job's result URL. Nothing it writes may carry one of them.
 */

let dataDir: string;
let stack: StackProcess | undefined;
const receiver = new WebhookReceiver();

beforeAll(async () => {
  dataDir = await stackDataDir('log-redaction-');
  await receiver.start();
});

afterAll(async () => {
  if (stack) await stopStackProcess(stack);
  await receiver.stop();
  await rm(dataDir, { recursive: true, force: true });
});

const admin = (...args: string[]) => adminJson(dataDir, ...args);

async function request(
  method: string,
  path: string,
  { authorization, body }: { authorization: string; body?: unknown },
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${stack!.apiUrl}${path}`, {
    method,
    headers: { Authorization: authorization, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

/** The query values of a presigned URL that sign it: never to be logged. */
function signingParts(url: string): string[] {
  const query = new URL(url).searchParams;
  return ['X-Amz-Signature', 'X-Amz-Credential', 'X-Amz-Security-Token'].flatMap((name) => {
    const value = query.get(name);
    return value ? [value, encodeURIComponent(value)] : [];
  });
}

test('no key, signing secret or URL signature reaches the logs of a stack that handled them all', async () => {
  stack = await startStackProcess(dataDir, { LOG_LEVEL: 'debug' });
  const organization = await admin('org', 'create', '--plan', 'team', '--credits', '100');
  const { key } = (await admin('key', 'create', '--org', String(organization.organization_id))) as { key: string };
  const bearer = `Bearer ${key}`;
  const unknownKey = `${key.slice(0, -32)}${'z'.repeat(32)}`;
  const malformedCredentials = 'dXNlcjpwYXNzd29yZC10aGF0LW11c3Qtbm90LWJlLWxvZ2dlZA==';
  const forbidden = [key, key.slice(-32), unknownKey, malformedCredentials];

  expect((await request('GET', '/me', { authorization: bearer })).status).toBe(200);
  expect((await request('GET', '/me', { authorization: `Bearer ${unknownKey}` })).status).toBe(401);
  expect((await request('GET', '/me', { authorization: `Basic ${malformedCredentials}` })).status).toBe(401);

  const video = makeMedia('mp4');
  const upload = await request('POST', '/assets/upload-url', {
    authorization: bearer,
    body: { filename: 'clip.mp4', content_type: 'video/mp4', size_bytes: video.length, purpose: 'split_source' },
  });
  expect(upload.status).toBe(201);
  const uploadUrl = upload.body.upload_url as string;
  forbidden.push(...signingParts(uploadUrl));
  const put = await fetch(uploadUrl, { method: 'PUT', headers: { 'Content-Type': 'video/mp4' }, body: video });
  expect(put.status).toBe(200);
  const assetId = upload.body.asset_id as string;
  expect(
    (await request('POST', '/assets/confirm-upload', { authorization: bearer, body: { asset_id: assetId } })).status,
  ).toBe(200);
  const download = await request('GET', `/assets/${assetId}/download-url`, { authorization: bearer });
  expect(download.status).toBe(200);
  forbidden.push(...signingParts(download.body.download_url as string));

  const endpoint = await request('POST', '/webhooks', {
    authorization: bearer,
    body: { url: receiver.url, events: ['job.completed', 'job.failed'] },
  });
  expect(endpoint.status).toBe(201);
  const secret = endpoint.body.secret as string;
  forbidden.push(secret, secret.slice('whsec_'.length));
  const test = await request('POST', `/webhooks/${endpoint.body.id as string}/test`, { authorization: bearer });
  expect(test.status).toBe(200);
  const eventId = (test.body.delivery as { event_id: string }).event_id;
  expect((await receiver.waitFor(() => receiver.of(eventId).length > 0)).length).toBeGreaterThan(0);

  const job = await request('POST', '/video-jobs', {
    authorization: bearer,
    body: { prompt: 'A lighthouse at dusk', duration_seconds: 5 },
  });
  expect(job.status).toBe(201);
  const jobId = job.body.id as string;
  const ended = await eventually(
    () => request('GET', `/video-jobs/${jobId}`, { authorization: bearer }),
    // Once a second, well inside the Team key's 60 requests a minute.
    (read) => read.status !== 200 || !['queued', 'processing'].includes(read.body.status as string),
    { timeoutMs: 30_000, everyMs: 1000 },
  );
  expect(ended.body.status).toBe('completed');
  const result = await request('GET', `/video-jobs/${jobId}/result`, { authorization: bearer });
  expect(result.status).toBe(200);
  forbidden.push(...signingParts((result.body.asset as { download_url: string }).download_url));
  await receiver.waitFor((received) => received.some((delivery) => delivery.rawBody.includes(jobId)));

  await stopStackProcess(stack);
  const output = stack.output();
  stack = undefined;

  const lines = output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  const requests = lines.filter((line) => line.message === 'request');
  expect(requests.map((line) => [line.operation, line.status])).toEqual(
    expect.arrayContaining([
      ['getMe', 200],
      ['getMe', 401],
      ['createAssetUploadUrl', 201],
      ['confirmAssetUpload', 200],
      ['getAssetDownloadUrl', 200],
      ['createWebhook', 201],
      ['testWebhook', 200],
      ['createVideoJob', 201],
      ['getVideoJobResult', 200],
    ]),
  );
  expect(requests.every((line) => typeof line.request_id === 'string')).toBe(true);
  type EmfMetadata = { CloudWatchMetrics: { Metrics: { Name: string }[] }[] };
  const metricNames = lines.flatMap((line) =>
    ((line._aws as EmfMetadata | undefined)?.CloudWatchMetrics ?? []).flatMap((directive) =>
      directive.Metrics.map((metric) => metric.Name),
    ),
  );
  expect(metricNames).toEqual(
    expect.arrayContaining([
      'CreditsCharged',
      'ProviderLatency',
      'JobsEnded',
      'CreditsRefunded',
      'WebhookDeliveryAttempts',
      'WebhookDeliveriesEnded',
    ]),
  );

  expect(forbidden.length).toBeGreaterThan(10);
  for (const value of forbidden) expect(output).not.toContain(value);
  expect(output).not.toMatch(/X-Amz-Signature|X-Amz-Credential/i);
}, 120_000);
