import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Event } from '#contract/types';
import { createClient, listen, verifyWebhook } from '@video-automation/client';

/** A test event created `second` seconds into the day; ids sort by creation, as the service's do. */
function event(second: number): Event {
  const createdAt = new Date(Date.UTC(2026, 10, 25, 12, 0, second)).toISOString();
  return {
    id: `evt_${String(second).padStart(4, '0')}`,
    type: 'webhook.test',
    created_at: createdAt,
    data: { webhook_id: 'webhook_1' },
  };
}

async function serve(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** GET /events as the API answers it: newest first, `created_after` inclusive, pages of `limit` with a cursor. */
function fakeApi(visible: Event[]): Server {
  return createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://api');
    const after = url.searchParams.get('created_after');
    const limit = Number(url.searchParams.get('limit'));
    const offset = Number(url.searchParams.get('cursor') ?? 0);
    const matching = visible
      .filter((candidate) => !after || candidate.created_at >= after)
      .sort((a, b) => (a.id < b.id ? 1 : -1));
    const data = matching.slice(offset, offset + limit);
    const nextCursor = offset + limit < matching.length ? String(offset + limit) : null;
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ data, pagination: { next_cursor: nextCursor } }));
  });
}

describe('listen', () => {
  const directory = mkdtempSync(join(tmpdir(), 'listen-'));
  const stateFile = join(directory, 'state.json');
  const visible: Event[] = [];
  const received: { headers: IncomingHttpHeaders; body: string }[] = [];
  const api = fakeApi(visible);
  const receiver = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      received.push({ headers: request.headers, body });
      response.writeHead(204).end();
    });
  });
  let apiUrl: string;
  let receiverUrl: string;

  beforeAll(async () => {
    [apiUrl, receiverUrl] = await Promise.all([serve(api), serve(receiver)]);
  });

  afterAll(async () => {
    await Promise.all([api, receiver].map((server) => new Promise((resolve) => server.close(resolve))));
    rmSync(directory, { recursive: true, force: true });
  });

  /** Runs listen until `done` holds for what the receiver got, then stops it as Ctrl-C does. */
  async function runUntil(done: () => boolean, reveal: () => void = () => undefined): Promise<string[]> {
    const lines: string[] = [];
    const stopping = new AbortController();
    const running = listen({
      client: createClient({ baseUrl: apiUrl, apiKey: 'svc_test_abc_def' }),
      forwardTo: receiverUrl,
      stateFile,
      types: [],
      pollIntervalMs: 20,
      report: (line) => lines.push(line),
      signal: stopping.signal,
    });
    const deadline = Date.now() + 5000;
    let revealed = false;
    while (!done() && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      if (!revealed && lines.length >= 2) {
        revealed = true;
        reveal();
      }
    }
    stopping.abort();
    await running;
    return lines;
  }

  const forwardedIds = () => received.map((delivery) => JSON.parse(delivery.body).id as string);

  it('forwards only what happens after its first start, an event that became readable late included, each once', async () => {
    visible.push(event(0));
    const lines = await runUntil(
      () => forwardedIds().length >= 2,
      () => {
        visible.push(event(30));
        // Committed after evt_0030 although created before it: still inside the lookback.
        setTimeout(() => visible.push(event(10)), 100);
      },
    );
    expect(forwardedIds()).toEqual(['evt_0030', 'evt_0010']);
    const { secret } = JSON.parse(readFileSync(stateFile, 'utf8')) as { secret: string };
    expect(lines[0]).toBe(`Forwarding events to ${receiverUrl}, signed with ${secret}`);
    for (const delivery of received) {
      expect(verifyWebhook({ headers: delivery.headers, rawBody: delivery.body, secrets: secret })).toMatchObject({
        ok: true,
        eventType: 'webhook.test',
      });
    }
    expect(lines.at(-1)).toBe('Stopped; the next start goes on after evt_0030.');
  });

  it('goes on after a restart with what happened meanwhile, forwarding nothing twice', async () => {
    visible.push(event(40), event(50));
    const lines = await runUntil(() => forwardedIds().length >= 4);
    expect(forwardedIds()).toEqual(['evt_0030', 'evt_0010', 'evt_0040', 'evt_0050']);
    expect(lines[1]).toBe('Going on after evt_0030.');
  });

  it('never forwards an event that becomes readable more than a minute before the newest one seen', async () => {
    visible.push(event(200));
    await runUntil(() => forwardedIds().length >= 5);
    visible.push(event(100));
    const until = Date.now() + 300;
    await runUntil(() => Date.now() > until);
    expect(forwardedIds().slice(4)).toEqual(['evt_0200']);
  });
});
