import { ApiClient } from '../../console/server/api-client';
import { Poller, type Subscriber } from '../../console/server/poller';
import { RateGovernor } from '../../console/server/rate-governor';
import type { View } from '../../console/server/views';

const NOW = Date.parse('2026-11-27T12:00:00Z');
const API_URL = 'http://api.test/api/v1/developer';
const KEY = 'svc_test_0123456789abcdef_secret';

interface Answer {
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
}

/**
 * The API as fetch sees it: `answer` says what each path answers; every call is recorded. The
 * key's minute window has plenty left unless an answer says otherwise.
 */
function fakeApi(answer: (path: string) => Answer) {
  const calls: { path: string; authorization: string }[] = [];
  jest.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
    const path = String(input).slice(API_URL.length);
    calls.push({ path, authorization: new Headers(init?.headers).get('authorization') ?? '' });
    const { status = 200, body, headers = {} } = answer(path);
    return {
      status,
      headers: new Headers({
        'x-ratelimit-remaining': '50',
        'x-ratelimit-reset': String(Math.ceil(Date.now() / 60_000) * 60),
        ...headers,
      }),
      text: async () => JSON.stringify(body),
    } as Response;
  });
  return { paths: () => calls.map((call) => call.path), calls };
}

function openPage(view: View) {
  const pushed: { event: string; data: { key?: string; body?: unknown; pause_reason?: string | null } }[] = [];
  const subscriber: Subscriber = { view, send: (event, data) => pushed.push({ event, data: data as never }) };
  return {
    subscriber,
    pushed,
    reads: () => pushed.filter((push) => push.event === 'read').map((push) => push.data.key),
  };
}

function consoleOf(readsPerMinute: number, burst: number) {
  const governor = new RateGovernor(readsPerMinute, burst);
  const api = new ApiClient(API_URL, KEY, governor, () => poller.announceGovernor());
  const poller = new Poller(api, governor);
  poller.start();
  return poller;
}

const ME = { organization_id: 7 };
const job = (status: string) => ({ data: [{ id: 'split_job_1', status }], pagination: { next_cursor: null } });
const USAGE = { period: {}, credits: {}, requests: { total: 0 } };

describe('the console poller', () => {
  let poller: Poller | undefined;

  beforeEach(() => {
    jest.useFakeTimers({ now: NOW });
  });

  afterEach(async () => {
    await poller?.stop();
    poller = undefined;
    jest.useRealTimers();
    jest.restoreAllMocks();
  });

  it('serves every open page from one read, with the key, and pushes a read again only when it changed', async () => {
    let status = 'processing';
    const api = fakeApi((path) => ({ body: path === '/me' ? ME : job(status) }));
    poller = consoleOf(30, 12);
    const first = openPage({ name: 'jobs' });
    const second = openPage({ name: 'jobs' });
    poller.subscribe(first.subscriber);
    poller.subscribe(second.subscriber);
    await jest.advanceTimersByTimeAsync(0);
    expect(api.paths()).toEqual(['/me', '/jobs?limit=25']);
    expect(api.calls.every((call) => call.authorization === `Bearer ${KEY}`)).toBe(true);
    expect(first.reads()).toEqual(['me', 'jobs']);
    expect(second.reads()).toEqual(['me', 'jobs']);

    // An active job is read every 3 s; the same answer is not pushed again.
    await jest.advanceTimersByTimeAsync(3_000);
    expect(api.paths()).toEqual(['/me', '/jobs?limit=25', '/jobs?limit=25']);
    expect(first.reads()).toEqual(['me', 'jobs']);

    status = 'completed';
    await jest.advanceTimersByTimeAsync(3_000);
    expect(first.reads()).toEqual(['me', 'jobs', 'jobs']);
    expect(second.reads()).toEqual(['me', 'jobs', 'jobs']);

    // With nothing active, the list is read every 20 s.
    await jest.advanceTimersByTimeAsync(19_000);
    expect(api.paths()).toHaveLength(4);
    await jest.advanceTimersByTimeAsync(1_000);
    expect(api.paths()).toHaveLength(5);
  });

  it('reads a burst to open a view, then no more than its rate', async () => {
    const api = fakeApi((path) => ({ body: path === '/me' ? ME : USAGE }));
    poller = consoleOf(6, 2);
    poller.subscribe(openPage({ name: 'usage' }).subscriber);
    await jest.advanceTimersByTimeAsync(0);
    expect(api.paths()).toEqual(['/me', '/usage']);
    await jest.advanceTimersByTimeAsync(60_000);
    // Six a minute: one every 10 s after the burst of two.
    expect(api.paths()).toHaveLength(2 + 6);
  });

  it('stops reading for the Retry-After of a 429, and tells the pages when reads go on', async () => {
    let refusals = 1;
    const api = fakeApi((path) => {
      if (path === '/me' && refusals-- > 0) return { status: 429, body: {}, headers: { 'retry-after': '20' } };
      return { body: path === '/me' ? ME : job('completed') };
    });
    poller = consoleOf(30, 12);
    const page = openPage({ name: 'jobs' });
    poller.subscribe(page.subscriber);
    await jest.advanceTimersByTimeAsync(0);
    expect(api.paths()).toEqual(['/me']);
    expect(page.pushed.filter((push) => push.event === 'poller').at(-1)?.data.pause_reason).toBe('rate_limited');
    await jest.advanceTimersByTimeAsync(19_000);
    expect(api.paths()).toEqual(['/me']);
    await jest.advanceTimersByTimeAsync(1_100);
    expect(api.paths()).toEqual(['/me', '/jobs?limit=25', '/me']);
    expect(page.pushed.filter((push) => push.event === 'poller').at(-1)?.data.pause_reason).toBeNull();
  });

  it('leaves the last requests of the key’s minute to its other users', async () => {
    const resetAt = NOW / 1000 + 45;
    const api = fakeApi((path) => ({
      body: path === '/me' ? ME : job('processing'),
      headers: { 'x-ratelimit-remaining': '9', 'x-ratelimit-reset': String(resetAt) },
    }));
    poller = consoleOf(30, 12);
    poller.subscribe(openPage({ name: 'jobs' }).subscriber);
    await jest.advanceTimersByTimeAsync(0);
    expect(api.paths()).toEqual(['/me']);
    await jest.advanceTimersByTimeAsync(44_000);
    expect(api.paths()).toEqual(['/me']);
    await jest.advanceTimersByTimeAsync(1_000);
    expect(api.paths()).toEqual(['/me', '/jobs?limit=25']);
  });

  it('reads nothing for a view no page shows any more', async () => {
    const api = fakeApi((path) => ({ body: path === '/me' ? ME : job('processing') }));
    poller = consoleOf(30, 12);
    const close = poller.subscribe(openPage({ name: 'jobs' }).subscriber);
    await jest.advanceTimersByTimeAsync(0);
    close();
    await jest.advanceTimersByTimeAsync(60_000);
    expect(api.paths()).toEqual(['/me', '/jobs?limit=25']);
  });

  it("reads an ended split job's clips again only before their links expire", async () => {
    const id = 'split_job_06h1qwka94ks8hp45rb1h7wzkc';
    const expiresAt = new Date(NOW + 5 * 60_000).toISOString();
    const api = fakeApi((path) => {
      if (path === '/me') return { body: ME };
      if (path === `/jobs/${id}`) return { body: { id, type: 'split', status: 'completed' } };
      return { body: { job_id: id, clips: [{ id: 'clip_1', status: 'completed', expires_at: expiresAt }] } };
    });
    poller = consoleOf(30, 12);
    poller.subscribe(openPage({ name: 'job', id }).subscriber);
    await jest.advanceTimersByTimeAsync(0);
    expect(api.paths()).toEqual(['/me', `/jobs/${id}`, `/split-jobs/${id}/clips`]);
    // Links valid 5 minutes are read again a minute before they expire.
    await jest.advanceTimersByTimeAsync(4 * 60_000 - 1_000);
    expect(api.paths()).toHaveLength(3);
    await jest.advanceTimersByTimeAsync(1_000);
    expect(api.paths().at(-1)).toBe(`/split-jobs/${id}/clips`);
  });
});
