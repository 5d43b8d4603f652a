import type {
  ApiContext,
  UsageCredits,
  UsageJobs,
  UsageRateLimits,
  UsageSummary,
  UsageWebhooks,
} from '#contract/types';
import { eventually } from './support/eventually';
import {
  call,
  createKey,
  createOrganization,
  getOrganization,
  revokeKey,
  type ApiResponse,
  type ErrorBody,
  type TestOrganization,
} from './support/stack';

const USAGE_ROUTES = ['/usage', '/usage/credits', '/usage/rate-limits', '/usage/jobs', '/usage/webhooks'];
/** The routes whose figures are those of a period (rate limits are the current windows). */
const PERIOD_ROUTES = USAGE_ROUTES.filter((route) => route !== '/usage/rate-limits');
/** Negotiated limits that keep these tests far from 429: a refused request is not counted. */
const MANY_REQUESTS = { requests_per_minute_per_key: 100_000, requests_per_day_per_organization: 10_000_000 };
const DAY_MS = 86_400_000;

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const today = () => dayOf(Date.now());

/** This UTC month, as `period` of the default `current_billing_period`. */
function thisMonth() {
  const now = new Date();
  return {
    start: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString(),
    end: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString(),
  };
}

const expectEnvelope = (response: ApiResponse<unknown>, status: number, code: string) => {
  expect(response.status).toBe(status);
  expect(response.body).toEqual({
    error: { code, message: expect.any(String), request_id: response.headers.get('x-request-id') },
  });
};

/** What a request's own rate-limit headers say of the windows after counting it. */
function windowsOf(response: ApiResponse<unknown>) {
  const header = (name: string) => Number(response.headers.get(name));
  return {
    minuteUsed: header('x-ratelimit-limit') - header('x-ratelimit-remaining'),
    dayUsed: header('x-ratelimit-limit-organization-day') - header('x-ratelimit-remaining-organization-day'),
    minuteResetsAt: new Date(header('x-ratelimit-reset') * 1000).toISOString(),
    dayResetsAt: new Date(header('x-ratelimit-reset-organization-day') * 1000).toISOString(),
  };
}

const NO_STATUS = { queued: 0, processing: 0, completed: 0, failed: 0, cancelled: 0, expired: 0 };

describe('usage figures against the jobs actually created, charged and refunded', () => {
  let org: TestOrganization;
  let second: { key: string; keyPrefix: string };
  /** Every request each key has sent: each one is counted once, none is refused. */
  const sent = new Map<string, number>();
  let jobsWhileRunning: UsageJobs;
  const endings: string[] = [];

  async function send<T>(key: string, method: string, path: string, body?: unknown): Promise<ApiResponse<T>> {
    sent.set(key, (sent.get(key) ?? 0) + 1);
    return call<T>(method, path, { key, body });
  }

  const get = <T>(path: string, key = org.key) => send<T>(key, 'GET', path);
  const sentByBothKeys = () => (sent.get(org.key) ?? 0) + (sent.get(second.key) ?? 0);

  async function createVideoJob(key: string, prompt: string, durationSeconds: number) {
    const response = await send<{ id: string }>(key, 'POST', '/video-jobs', {
      prompt,
      duration_seconds: durationSeconds,
    });
    if (response.status !== 201) throw new Error(`POST /video-jobs answered ${response.status}`);
    return response.body.id;
  }

  async function waitUntilFinished(key: string, jobId: string) {
    const response = await eventually(
      () => get<{ status: string }>(`/video-jobs/${jobId}`, key),
      // Once a second: every poll is a request the usage figures below must count.
      (read) => read.status !== 200 || !['queued', 'processing'].includes(read.body.status),
      { timeoutMs: 90_000, everyMs: 1000 },
    );
    return response.body.status;
  }

  beforeAll(async () => {
    org = await createOrganization({ plan: 'custom', credits: 100, limits: MANY_REQUESTS });
    const created = await createKey(org.organizationId);
    second = { key: created.key, keyPrefix: created.apiKey.keyPrefix };
    // The second key's 10-second job fails and is refunded its 20 credits; the first key's two
    // 5-second jobs (10 credits each) complete, one at a time so neither nears the render deadline.
    const failing = await createVideoJob(second.key, 'A doomed render [fault:fail]', 10);
    const firstDone = await createVideoJob(org.key, 'A calm lake at dawn', 5);
    jobsWhileRunning = (await get<UsageJobs>('/usage/jobs')).body;
    endings.push(await waitUntilFinished(org.key, firstDone));
    const secondDone = await createVideoJob(org.key, 'Clouds rolling over hills', 5);
    endings.push(await waitUntilFinished(org.key, secondDone));
    endings.push(await waitUntilFinished(second.key, failing));
  }, 240_000);

  it('starts from jobs that ended as their prompts asked: two completed, one failed', () => {
    expect(endings).toEqual(['completed', 'completed', 'failed']);
  });

  it('counts every job created from its creation on, by its current status, while it runs', () => {
    const video = jobsWhileRunning.by_type.video;
    expect(video?.total).toBe(2);
    expect(Object.values(video?.by_status ?? {}).reduce((sum, count) => sum + count, 0)).toBe(2);
  });

  it('/usage/jobs counts the jobs created in the period by type and current status', async () => {
    const response = await get<UsageJobs>('/usage/jobs?period=last_7_days');
    expect(response.status).toBe(200);
    expect(response.body.by_type).toEqual({
      video: { total: 3, by_status: { ...NO_STATUS, completed: 2, failed: 1 } },
      split: { total: 0, by_status: NO_STATUS },
    });
  });

  it('/usage/credits reports what was charged and refunded, and the balance those leave', async () => {
    const response = await get<UsageCredits>('/usage/credits');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      period: thisMonth(),
      balance: 100 - 40 + 20,
      charged: 40,
      refunded: 20,
      by_job_type: {
        video: { charged: 40, refunded: 20, jobs: 3 },
        split: { charged: 0, refunded: 0, jobs: 0 },
      },
    });
    expect((await getOrganization(org.organizationId))?.creditsBalance).toBe(80);
  });

  it('/usage agrees with /usage/jobs, /usage/credits, GET /me and every request sent', async () => {
    const jobs = await get<UsageJobs>('/usage/jobs?period=last_7_days');
    const credits = await get<UsageCredits>('/usage/credits?period=last_7_days');
    const me = await get<ApiContext>('/me');
    const summary = await get<UsageSummary>('/usage?period=last_7_days');
    expect(summary.status).toBe(200);
    expect(summary.body.jobs).toEqual(jobs.body.by_type);
    expect(summary.body.credits).toEqual({
      balance: credits.body.balance,
      charged: credits.body.charged,
      refunded: credits.body.refunded,
    });
    expect(summary.body.requests.total).toBe(sentByBothKeys());
    expect(summary.body.limits).toEqual(me.body.limits);
    expect(summary.body.current_usage).toEqual({
      ...me.body.usage_snapshot,
      requests_this_minute: windowsOf(summary).minuteUsed,
      requests_today: me.body.usage_snapshot.requests_today + 1,
    });
    expect(summary.body.current_usage.requests_today).toBe(windowsOf(summary).dayUsed);
    // Every request of this new organization was sent today.
    expect(summary.body.current_usage.requests_today).toBe(summary.body.requests.total);
  });

  it('with api_key_id, counts that key alone, and the two keys add up to the organization', async () => {
    const organization = (await get<UsageSummary>('/usage?period=last_7_days')).body;
    const ofSecond = await get<UsageSummary>(`/usage?period=last_7_days&api_key_id=${second.keyPrefix}`);
    expect(ofSecond.status).toBe(200);
    expect(ofSecond.body.requests.total).toBe(sent.get(second.key));
    expect(ofSecond.body.jobs).toEqual({
      video: { total: 1, by_status: { ...NO_STATUS, failed: 1 } },
      split: { total: 0, by_status: NO_STATUS },
    });
    expect(ofSecond.body.credits).toEqual({ balance: 80, charged: 20, refunded: 20 });

    const ofFirst = await get<UsageSummary>(`/usage?period=last_7_days&api_key_id=${org.keyPrefix}`);
    expect(ofFirst.body.requests.total).toBe(sent.get(org.key));
    expect(ofFirst.body.jobs.video).toEqual({ total: 2, by_status: { ...NO_STATUS, completed: 2 } });
    expect(ofFirst.body.credits).toEqual({ balance: 80, charged: 20, refunded: 0 });

    expect(ofFirst.body.credits.charged + ofSecond.body.credits.charged).toBe(organization.credits.charged);
    expect(ofFirst.body.credits.refunded + ofSecond.body.credits.refunded).toBe(organization.credits.refunded);
    expect((ofFirst.body.jobs.video?.total ?? 0) + (ofSecond.body.jobs.video?.total ?? 0)).toBe(
      organization.jobs.video?.total,
    );
    expect(ofFirst.body.requests.total + ofSecond.body.requests.total).toBe(sentByBothKeys());
  });

  it('with job_type, reports that type alone on /usage, /usage/credits and /usage/jobs', async () => {
    const summary = await get<UsageSummary>('/usage?job_type=split');
    expect(summary.body.jobs).toEqual({ split: { total: 0, by_status: NO_STATUS } });
    expect(summary.body.credits).toEqual({ balance: 80, charged: 0, refunded: 0 });
    const credits = await get<UsageCredits>('/usage/credits?job_type=video');
    expect(credits.body).toMatchObject({ charged: 40, refunded: 20 });
    expect(credits.body.by_job_type).toEqual({ video: { charged: 40, refunded: 20, jobs: 3 } });
    const jobs = await get<UsageJobs>('/usage/jobs?job_type=video');
    expect(Object.keys(jobs.body.by_type)).toEqual(['video']);
    const ofSecond = await get<UsageSummary>(`/usage?job_type=video&api_key_id=${second.keyPrefix}`);
    expect(ofSecond.body.jobs).toEqual({ video: { total: 1, by_status: { ...NO_STATUS, failed: 1 } } });
  });

  it('reports the same jobs for every period that includes today, and none for days without them', async () => {
    const [day, yesterday] = [today(), dayOf(Date.now() - DAY_MS)];
    const including = [
      'current_billing_period',
      'last_7_days',
      'last_30_days',
      `custom&start_date=${day}&end_date=${day}`,
    ];
    for (const period of including) {
      const response = await get<UsageJobs>(`/usage/jobs?period=${period}`);
      expect([period, response.body.by_type.video?.total]).toEqual([period, 3]);
    }
    const before = await get<UsageSummary>(`/usage?period=custom&start_date=${yesterday}&end_date=${yesterday}`);
    expect(before.body).toMatchObject({
      credits: { charged: 0, refunded: 0 },
      requests: { total: 0 },
      jobs: { video: { total: 0 } },
    });
    const nextYear = new Date().getUTCFullYear() + 1;
    const future = await get<UsageCredits>(
      `/usage/credits?period=custom&start_date=${nextYear}-01-01&end_date=${nextYear}-03-31`,
    );
    expect(future.status).toBe(200);
    expect(future.body).toMatchObject({
      period: { start: `${nextYear}-01-01T00:00:00.000Z`, end: `${nextYear}-04-01T00:00:00.000Z` },
      charged: 0,
      refunded: 0,
    });
  });

  it("/usage/rate-limits reports the caller's windows exactly as its own rate-limit headers", async () => {
    const response = await get<UsageRateLimits>('/usage/rate-limits');
    expect(response.status).toBe(200);
    const windows = windowsOf(response);
    expect(response.body).toEqual({
      key_prefix: org.keyPrefix,
      limits: {
        requests_per_minute_per_key: MANY_REQUESTS.requests_per_minute_per_key,
        requests_per_day_per_organization: MANY_REQUESTS.requests_per_day_per_organization,
        concurrent_video_jobs: 3,
        concurrent_split_jobs: 2,
      },
      usage: {
        requests_this_minute: windows.minuteUsed,
        requests_today: windows.dayUsed,
        active_video_jobs: 0,
        active_split_jobs: 0,
      },
      resets: { minute_window_resets_at: windows.minuteResetsAt, day_window_resets_at: windows.dayResetsAt },
    });
  });

  it("reading another key's rate limits counts no request for that key", async () => {
    const requestsOfSecond = async () =>
      (await get<UsageSummary>(`/usage?period=last_7_days&api_key_id=${second.keyPrefix}`)).body.requests.total;
    const before = await requestsOfSecond();
    expect(before).toBe(sent.get(second.key));

    // The second key's minute as its own request left it, then as the first key reads it, three
    // times; a minute that turns in between starts over.
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const own = windowsOf(await get('/me', second.key));
      const reads: ApiResponse<UsageRateLimits>[] = [];
      for (let read = 0; read < 3; read += 1) {
        reads.push(await get<UsageRateLimits>(`/usage/rate-limits?api_key_id=${second.keyPrefix}`));
      }
      if (reads.some((read) => read.body.resets.minute_window_resets_at !== own.minuteResetsAt)) continue;
      for (const read of reads) {
        expect(read.status).toBe(200);
        expect(read.body.key_prefix).toBe(second.keyPrefix);
        expect(read.body.usage.requests_this_minute).toBe(own.minuteUsed);
        expect(read.body.usage.requests_today).toBe(windowsOf(read).dayUsed);
      }
      expect(await requestsOfSecond()).toBe(sent.get(second.key));
      return;
    }
    throw new Error('Three minute windows turned during the reads');
  });
});

describe('usage period and filter rules', () => {
  let org: TestOrganization;
  beforeAll(async () => {
    org = await createOrganization({ plan: 'custom', limits: MANY_REQUESTS });
  });

  it.each(PERIOD_ROUTES)('%s answers 200 with the current billing period by default', async (route) => {
    const response = await call<{ period?: unknown }>('GET', route, { key: org.key });
    expect(response.status).toBe(200);
    expect(response.body.period).toEqual(thisMonth());
  });

  it.each(PERIOD_ROUTES)('%s resolves the named periods to whole UTC days ending with today', async (route) => {
    const tomorrow = `${dayOf(Date.now() + DAY_MS)}T00:00:00.000Z`;
    for (const [period, days] of [
      ['last_7_days', 7],
      ['last_30_days', 30],
    ] as const) {
      const response = await call<{ period: { start: string; end: string } }>('GET', `${route}?period=${period}`, {
        key: org.key,
      });
      expect(response.body.period).toEqual({
        start: `${dayOf(Date.now() - (days - 1) * DAY_MS)}T00:00:00.000Z`,
        end: tomorrow,
      });
    }
  });

  const REFUSED: [string, string, string][] = [
    ['custom without dates', 'period=custom', 'start_date'],
    ['custom without end_date', 'period=custom&start_date=2026-01-01', 'end_date'],
    ['custom without start_date', 'period=custom&end_date=2026-01-01', 'start_date'],
    ['start_date without custom', 'start_date=2026-01-01', 'start_date'],
    ['end_date with last_7_days', 'period=last_7_days&end_date=2026-01-01', 'end_date'],
    [
      'both dates with current_billing_period',
      'period=current_billing_period&start_date=2026-01-01&end_date=2026-01-02',
      'start_date',
    ],
    ['end_date before start_date', 'period=custom&start_date=2026-01-10&end_date=2026-01-09', 'end_date'],
    ['a custom period of 91 days', 'period=custom&start_date=2026-01-01&end_date=2026-04-01', '90 days'],
    ['an impossible day', 'period=custom&start_date=2026-02-30&end_date=2026-03-01', 'start_date'],
    ['a day not written YYYY-MM-DD', 'period=custom&start_date=2026-01-01&end_date=03/01/2026', 'end_date'],
    ['an unknown period', 'period=last_year', 'period'],
    ['an unknown parameter', 'limit=5', 'limit'],
  ];

  it.each(USAGE_ROUTES.flatMap((route) => REFUSED.map(([what, query, field]) => [route, what, query, field])))(
    '%s refuses %s with 400 VALIDATION_FAILED naming it',
    async (route, _, query, field) => {
      const response = await call<ErrorBody>('GET', `${route}?${query}`, { key: org.key });
      expectEnvelope(response, 400, 'VALIDATION_FAILED');
      expect(response.body.error.message).toContain(field);
    },
  );

  it.each([
    ['exactly 90 days', '2026-01-01', '2026-03-31', '2026-04-01'],
    ['a single day', '2026-02-28', '2026-02-28', '2026-03-01'],
    ['29 February of a leap year', '2028-02-29', '2028-02-29', '2028-03-01'],
  ])(
    'accepts a custom period of %s, from start_date 00:00Z to the day after end_date',
    async (_, start, end, after) => {
      for (const route of PERIOD_ROUTES) {
        const response = await call<{ period: unknown }>(
          'GET',
          `${route}?period=custom&start_date=${start}&end_date=${end}`,
          {
            key: org.key,
          },
        );
        expect([route, response.status, response.body.period]).toEqual([
          route,
          200,
          { start: `${start}T00:00:00.000Z`, end: `${after}T00:00:00.000Z` },
        ]);
      }
    },
  );

  it.each([
    ['/usage', 'job_type=clips', 'job_type'],
    ['/usage/jobs', 'job_type=VIDEO', 'job_type'],
    ['/usage/credits', 'job_type=', 'job_type'],
    ['/usage', 'api_key_id=not-a-prefix', 'api_key_id'],
    ['/usage/rate-limits', 'api_key_id=ABCDEFGHJKMNPQRS', 'api_key_id'],
    ['/usage/jobs', `api_key_id=${'a'.repeat(16)}`, 'api_key_id'],
    ['/usage/credits', `api_key_id=${'a'.repeat(16)}`, 'api_key_id'],
    ['/usage/webhooks', 'job_type=video', 'job_type'],
    ['/usage/rate-limits', 'job_type=video', 'job_type'],
  ])('%s refuses %s with 400 naming the parameter', async (route, query, field) => {
    const response = await call<ErrorBody>('GET', `${route}?${query}`, { key: org.key });
    expectEnvelope(response, 400, 'VALIDATION_FAILED');
    expect(response.body.error.message).toContain(field);
  });

  it.each(['/usage', '/usage/rate-limits'])(
    '%s refuses an api_key_id of another organization or of no key, and takes a revoked key of its own',
    async (route) => {
      const stranger = await createOrganization();
      const ofStranger = await call<ErrorBody>('GET', `${route}?api_key_id=${stranger.keyPrefix}`, { key: org.key });
      expectEnvelope(ofStranger, 400, 'VALIDATION_FAILED');
      expect(ofStranger.body.error.message).toContain('api_key_id');
      const unknown = 'z'.repeat(16);
      const ofNoKey = await call<ErrorBody>('GET', `${route}?api_key_id=${unknown}`, { key: org.key });
      expectEnvelope(ofNoKey, 400, 'VALIDATION_FAILED');
      // Another organization's key is refused exactly like a key that does not exist.
      expect(ofStranger.body.error.message.replace(stranger.keyPrefix, '<prefix>')).toBe(
        ofNoKey.body.error.message.replace(unknown, '<prefix>'),
      );

      const retired = await createKey(org.organizationId);
      await revokeKey(retired.apiKey.keyPrefix);
      const ofRevoked = await call('GET', `${route}?api_key_id=${retired.apiKey.keyPrefix}`, { key: org.key });
      expect(ofRevoked.status).toBe(200);
    },
  );
});

describe('usage access', () => {
  it.each(USAGE_ROUTES)('%s needs the usage:read scope: 403 INSUFFICIENT_SCOPE without it', async (route) => {
    const org = await createOrganization({ scopes: ['jobs:read', 'video:read'] });
    const denied = await call<ErrorBody>('GET', route, { key: org.key });
    expect(denied.body.error.message).toContain('usage:read');
    expectEnvelope(denied, 403, 'INSUFFICIENT_SCOPE');
    const reader = await createKey(org.organizationId, { scopes: ['usage:read'] });
    expect((await call('GET', route, { key: reader.key })).status).toBe(200);
  });

  it.each(USAGE_ROUTES)('%s answers 401 API_KEY_INVALID without a key', async (route) => {
    const response = await call<ErrorBody>('GET', route, { key: null });
    expect(response.status).toBe(401);
    expectEnvelope(response, 401, 'API_KEY_INVALID');
  });
});

describe('webhook usage', () => {
  /** Items as the webhook work will write them (docs/data-model.md), straight into the stack's table. */
  async function putItems(items: Record<string, unknown>[]) {
    Object.assign(process.env, JSON.parse(process.env.IT_STACK_ENVIRONMENT ?? '{}') as Record<string, string>);
    const { dynamo, tableName } = await import('#platform/clients/dynamodb');
    const { PutCommand } = await import('@aws-sdk/lib-dynamodb');
    for (const item of items) await dynamo().send(new PutCommand({ TableName: tableName(), Item: item }));
  }

  it('counts no endpoint and no delivery for an organization that has none', async () => {
    const org = await createOrganization();
    const response = await call<UsageWebhooks>('GET', '/usage/webhooks', { key: org.key });
    expect(response.body).toEqual({
      period: thisMonth(),
      endpoints: { total: 0, active: 0, disabled: 0 },
      deliveries: { total: 0, succeeded: 0, failed: 0, pending: 0 },
    });
  });

  it("counts the organization's endpoints by status, deleted ones excluded, and the deliveries of the period", async () => {
    const org = await createOrganization();
    const other = await createOrganization();
    const partition = `ORG#${org.organizationId}`;
    await putItems([
      { pk: partition, sk: 'WEBHOOK#webhook_a', status: 'active' },
      { pk: partition, sk: 'WEBHOOK#webhook_b', status: 'active' },
      { pk: partition, sk: 'WEBHOOK#webhook_c', status: 'disabled' },
      { pk: partition, sk: 'WEBHOOK#webhook_d', status: 'deleted' },
      { pk: `ORG#${other.organizationId}`, sk: 'WEBHOOK#webhook_e', status: 'active' },
      {
        pk: partition,
        sk: `USAGE#DELIVERIES#${today()}`,
        deliveries_total: 5,
        deliveries_succeeded: 3,
        deliveries_failed: 1,
        deliveries_pending: 1,
      },
    ]);
    const response = await call<UsageWebhooks>('GET', '/usage/webhooks?period=last_7_days', { key: org.key });
    expect(response.status).toBe(200);
    expect(response.body.endpoints).toEqual({ total: 3, active: 2, disabled: 1 });
    expect(response.body.deliveries).toEqual({ total: 5, succeeded: 3, failed: 1, pending: 1 });

    const lastYear = new Date().getUTCFullYear() - 1;
    const past = await call<UsageWebhooks>(
      'GET',
      `/usage/webhooks?period=custom&start_date=${lastYear}-01-01&end_date=${lastYear}-01-31`,
      { key: org.key },
    );
    expect(past.body.endpoints).toEqual({ total: 3, active: 2, disabled: 1 });
    expect(past.body.deliveries).toEqual({ total: 0, succeeded: 0, failed: 0, pending: 0 });
  });
});
