import {
  BatchGetCommand,
  DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  UpdateCommand,
  type BatchGetCommandInput,
  type GetCommandInput,
  type QueryCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { describeApiContext } from '#domain/access/api-context';
import type { Caller } from '#domain/access/authentication';
import { TEAM_LIMITS } from '#domain/access/organizations';
import { usageCredits, usageJobs, usageRateLimits, usageSummary, usageWebhooks } from '#domain/usage/usage-reports';
import { ApiError } from '#platform/errors';

process.env.TABLE_NAME = 'table';
process.env.AWS_REGION = 'us-east-1';

const dynamo = mockClient(DynamoDBDocumentClient);

const NOW = new Date('2026-03-14T10:00:30Z');
const CALLER_KEY = 'callerkey0000000';
const OTHER_KEY = 'otherkey00000000';
const STRANGER_KEY = 'strangerkey00000';

/** The caller as the pipeline hands it over: its request already counted (4th this minute, 120th today). */
const CALLER: Caller = {
  apiKey: {
    keyPrefix: CALLER_KEY,
    organizationId: 9,
    environment: 'test',
    scopes: ['usage:read'],
    status: 'active',
    createdAt: '2026-01-01T00:00:00Z',
    expiresAt: null,
    revokedAt: null,
  },
  organization: {
    organizationId: 9,
    plan: 'team',
    apiAccess: true,
    negotiatedLimits: {},
    creditsBalance: 740,
    activeVideoJobs: 2,
    activeSplitJobs: 1,
    activeApiKeys: 1,
    createdAt: '2026-01-01T00:00:00Z',
  },
  limits: TEAM_LIMITS,
  rateLimit: {
    minute: { limit: 60, used: 4, remaining: 56, resetsAt: Date.parse('2026-03-14T10:01:00Z') / 1000 },
    day: { limit: 10_000, used: 120, remaining: 9_880, resetsAt: Date.parse('2026-03-15T00:00:00Z') / 1000 },
    exceeded: [],
  },
};

type Item = { pk: string; sk: string } & Record<string, unknown>;

/**
 * The organization's items as the job transactions, the rate limiter and the webhook routes
 * leave them: March's days, and days just outside March that no March figure may include. The
 * organization's days are the sums of its keys' days.
 */
const ITEMS: Item[] = [
  { pk: 'ORG#9', sk: 'USAGE#DAY#2026-02-28', video_created: 5, video_charged: 50, video_completed: 5, expires_at: 1 },
  {
    pk: 'ORG#9',
    sk: 'USAGE#DAY#2026-03-02',
    video_created: 3,
    video_charged: 30,
    video_refunded: 10,
    video_completed: 2,
    video_failed: 1,
    split_created: 1,
    split_charged: 8,
    split_processing: 1,
    expires_at: 1_800_000_000,
  },
  { pk: 'ORG#9', sk: 'USAGE#DAY#2026-03-14', video_created: 1, video_charged: 10, video_queued: 1 },
  { pk: 'ORG#9', sk: 'USAGE#DAY#2026-04-01', video_created: 7, video_charged: 70, video_queued: 7 },
  {
    pk: 'ORG#9',
    sk: `USAGE#KEY#${CALLER_KEY}#2026-03-02`,
    video_created: 2,
    video_charged: 20,
    video_completed: 2,
    split_created: 1,
    split_charged: 8,
    split_processing: 1,
  },
  { pk: 'ORG#9', sk: `USAGE#KEY#${CALLER_KEY}#2026-03-14`, video_created: 1, video_charged: 10, video_queued: 1 },
  {
    pk: 'ORG#9',
    sk: `USAGE#KEY#${OTHER_KEY}#2026-03-02`,
    video_created: 1,
    video_charged: 10,
    video_refunded: 10,
    video_failed: 1,
  },
  {
    pk: 'ORG#9',
    sk: 'USAGE#DELIVERIES#2026-03-02',
    deliveries_total: 4,
    deliveries_succeeded: 2,
    deliveries_failed: 1,
    deliveries_pending: 1,
  },
  { pk: 'ORG#9', sk: 'USAGE#DELIVERIES#2026-02-27', deliveries_total: 9, deliveries_succeeded: 9 },
  { pk: 'ORG#9', sk: 'WEBHOOK#webhook_1', status: 'active' },
  { pk: 'ORG#9', sk: 'WEBHOOK#webhook_2', status: 'disabled' },
  { pk: 'ORG#9', sk: 'WEBHOOK#webhook_3', status: 'deleted' },
  { pk: 'ORG#9', sk: 'WEBHOOK#webhook_4', status: 'active' },
  { pk: 'ORG#10', sk: 'WEBHOOK#webhook_5', status: 'active' },
  { pk: 'RATE#ORG#9', sk: 'DAY#2026-02-27', request_count: 999, [`key_${CALLER_KEY}`]: 999 },
  {
    pk: 'RATE#ORG#9',
    sk: 'DAY#2026-03-02',
    request_count: 50,
    [`key_${CALLER_KEY}`]: 30,
    [`key_${OTHER_KEY}`]: 20,
  },
  {
    pk: 'RATE#ORG#9',
    sk: 'DAY#2026-03-14',
    request_count: 120,
    [`key_${CALLER_KEY}`]: 100,
    [`key_${OTHER_KEY}`]: 20,
    [`minute_${OTHER_KEY}`]: Math.floor(NOW.getTime() / 60_000),
    [`minute_count_${OTHER_KEY}`]: 7,
  },
  { pk: `APIKEY#${OTHER_KEY}`, sk: 'APIKEY', key_prefix: OTHER_KEY, organization_id: 9, status: 'revoked' },
  { pk: `APIKEY#${STRANGER_KEY}`, sk: 'APIKEY', key_prefix: STRANGER_KEY, organization_id: 10, status: 'active' },
];

function itemAt(key: Record<string, unknown> | undefined): Item | undefined {
  return ITEMS.find((item) => item.pk === key?.pk && item.sk === key?.sk);
}

/** The key conditions the modules under test use: `BETWEEN` and `begins_with` on the sort key. */
function query(input: QueryCommandInput): Item[] {
  const values = input.ExpressionAttributeValues ?? {};
  const condition = input.KeyConditionExpression ?? '';
  const between = /sk BETWEEN (:\w+) AND (:\w+)/.exec(condition);
  const begins = /begins_with\(sk, (:\w+)\)/.exec(condition);
  return ITEMS.filter(
    (item) =>
      item.pk === values[':pk'] &&
      (between
        ? item.sk >= values[between[1] as string] && item.sk <= values[between[2] as string]
        : item.sk.startsWith(values[(begins as RegExpExecArray)[1] as string])),
  );
}

beforeEach(() => {
  dynamo.reset();
  dynamo.on(QueryCommand).callsFake(async (input: QueryCommandInput) => ({ Items: query(input) }));
  dynamo.on(GetCommand).callsFake(async (input: GetCommandInput) => ({ Item: itemAt(input.Key) }));
  dynamo.on(BatchGetCommand).callsFake(async (input: BatchGetCommandInput) => ({
    Responses: Object.fromEntries(
      Object.entries(input.RequestItems ?? {}).map(([table, { Keys }]) => [
        table,
        (Keys ?? []).map(itemAt).filter((item) => item !== undefined),
      ]),
    ),
  }));
});

const NO_STATUS = { queued: 0, processing: 0, completed: 0, failed: 0, cancelled: 0, expired: 0 };
const MARCH = { start: '2026-03-01T00:00:00.000Z', end: '2026-04-01T00:00:00.000Z' };
const BILLING_PERIOD = { period: 'current_billing_period' } as const;

/** The ApiError a report throws, or fails the test when it answers. */
async function refusal(report: Promise<unknown>): Promise<ApiError> {
  const error = await report.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ApiError);
  expect(error).toMatchObject({ code: 'VALIDATION_FAILED', status: 400 });
  return error as ApiError;
}

describe('the usage summary', () => {
  it("adds up the organization's days of the period and nothing outside it, with GET /me's current usage", async () => {
    expect(await usageSummary(CALLER, BILLING_PERIOD, NOW)).toEqual({
      period: MARCH,
      credits: { balance: 740, charged: 48, refunded: 10 },
      requests: { total: 170 },
      jobs: {
        video: { total: 4, by_status: { ...NO_STATUS, queued: 1, completed: 2, failed: 1 } },
        split: { total: 1, by_status: { ...NO_STATUS, processing: 1 } },
      },
      limits: TEAM_LIMITS,
      current_usage: describeApiContext(CALLER).usage_snapshot,
    });
    expect(describeApiContext(CALLER).usage_snapshot).toEqual({
      requests_this_minute: 4,
      requests_today: 120,
      active_video_jobs: 2,
      active_split_jobs: 1,
    });
  });

  it('counts a custom period from start_date through end_date', async () => {
    const summary = await usageSummary(
      CALLER,
      { period: 'custom', start_date: '2026-02-27', end_date: '2026-03-02' },
      NOW,
    );
    expect(summary.period).toEqual({ start: '2026-02-27T00:00:00.000Z', end: '2026-03-03T00:00:00.000Z' });
    expect(summary.requests.total).toBe(999 + 50);
    expect(summary.jobs.video?.total).toBe(5 + 3);
    expect(summary.credits).toEqual({ balance: 740, charged: 50 + 30 + 8, refunded: 10 });
  });

  it('with job_type, carries that type only, and the credits of that type', async () => {
    const summary = await usageSummary(CALLER, { ...BILLING_PERIOD, job_type: 'split' }, NOW);
    expect(summary.jobs).toEqual({ split: { total: 1, by_status: { ...NO_STATUS, processing: 1 } } });
    expect(summary.credits).toEqual({ balance: 740, charged: 8, refunded: 0 });
    expect(summary.requests.total).toBe(170);
  });

  it("with api_key_id of another key, even revoked, counts that key's jobs, credits, requests and minute, counting nothing", async () => {
    const summary = await usageSummary(CALLER, { ...BILLING_PERIOD, api_key_id: OTHER_KEY }, NOW);
    expect(summary).toEqual({
      period: MARCH,
      credits: { balance: 740, charged: 10, refunded: 10 },
      requests: { total: 40 },
      jobs: {
        video: { total: 1, by_status: { ...NO_STATUS, failed: 1 } },
        split: { total: 0, by_status: NO_STATUS },
      },
      limits: TEAM_LIMITS,
      current_usage: { requests_this_minute: 7, requests_today: 120, active_video_jobs: 2, active_split_jobs: 1 },
    });
    expect(dynamo.commandCalls(UpdateCommand)).toHaveLength(0);
  });

  it("with the caller's own key as api_key_id, counts its share and its counted minute without reading the key", async () => {
    const summary = await usageSummary(CALLER, { ...BILLING_PERIOD, api_key_id: CALLER_KEY }, NOW);
    expect(summary.requests.total).toBe(130);
    expect(summary.jobs.video?.total).toBe(3);
    expect(summary.credits).toEqual({ balance: 740, charged: 38, refunded: 0 });
    expect(summary.current_usage).toEqual(describeApiContext(CALLER).usage_snapshot);
    expect(dynamo.commandCalls(GetCommand)).toHaveLength(0);
    expect(dynamo.commandCalls(BatchGetCommand)).toHaveLength(0);
  });

  it.each([
    ["another organization's key", STRANGER_KEY],
    ['no key at all', 'unknownkey000000'],
  ])('refuses api_key_id naming %s with 400 naming api_key_id, before reading any figure', async (_, prefix) => {
    const error = await refusal(usageSummary(CALLER, { ...BILLING_PERIOD, api_key_id: prefix }, NOW));
    expect(error.message).toContain('api_key_id');
    expect(dynamo.commandCalls(QueryCommand)).toHaveLength(0);
  });

  it('refuses a custom period over 90 days before reading anything', async () => {
    const error = await refusal(
      usageSummary(CALLER, { period: 'custom', start_date: '2026-01-01', end_date: '2026-04-01' }, NOW),
    );
    expect(error.message).toContain('90 days');
    expect(dynamo.calls()).toHaveLength(0);
  });
});

describe('the credits report', () => {
  it('breaks the charged and refunded credits and the jobs charged down by type, with the current balance', async () => {
    expect(await usageCredits(CALLER, BILLING_PERIOD, NOW)).toEqual({
      period: MARCH,
      balance: 740,
      charged: 48,
      refunded: 10,
      by_job_type: {
        video: { charged: 40, refunded: 10, jobs: 4 },
        split: { charged: 8, refunded: 0, jobs: 1 },
      },
    });
  });

  it('with job_type, reports that type only', async () => {
    expect(await usageCredits(CALLER, { ...BILLING_PERIOD, job_type: 'video' }, NOW)).toEqual({
      period: MARCH,
      balance: 740,
      charged: 40,
      refunded: 10,
      by_job_type: { video: { charged: 40, refunded: 10, jobs: 4 } },
    });
  });
});

describe('the jobs report', () => {
  it('counts the jobs created in the period by type and current status', async () => {
    expect(await usageJobs(CALLER, { period: 'last_7_days' }, NOW)).toEqual({
      period: { start: '2026-03-08T00:00:00.000Z', end: '2026-03-15T00:00:00.000Z' },
      by_type: {
        video: { total: 1, by_status: { ...NO_STATUS, queued: 1 } },
        split: { total: 0, by_status: NO_STATUS },
      },
    });
  });

  it('with job_type, reports that type only', async () => {
    expect((await usageJobs(CALLER, { ...BILLING_PERIOD, job_type: 'video' }, NOW)).by_type).toEqual({
      video: { total: 4, by_status: { ...NO_STATUS, queued: 1, completed: 2, failed: 1 } },
    });
  });
});

describe('the rate-limits report', () => {
  const LIMITS = {
    requests_per_minute_per_key: 60,
    requests_per_day_per_organization: 10_000,
    concurrent_video_jobs: 3,
    concurrent_split_jobs: 2,
  };

  it("reports the caller's windows as the pipeline counted this request, reading and counting nothing more", async () => {
    expect(await usageRateLimits(CALLER, { period: 'last_30_days' }, NOW)).toEqual({
      key_prefix: CALLER_KEY,
      limits: LIMITS,
      usage: describeApiContext(CALLER).usage_snapshot,
      resets: { minute_window_resets_at: '2026-03-14T10:01:00.000Z', day_window_resets_at: '2026-03-15T00:00:00.000Z' },
    });
    expect(dynamo.calls()).toHaveLength(0);
  });

  it("with api_key_id, reports that key's minute window as it stands, without counting a request for it", async () => {
    expect(await usageRateLimits(CALLER, { ...BILLING_PERIOD, api_key_id: OTHER_KEY }, NOW)).toEqual({
      key_prefix: OTHER_KEY,
      limits: LIMITS,
      usage: { requests_this_minute: 7, requests_today: 120, active_video_jobs: 2, active_split_jobs: 1 },
      resets: { minute_window_resets_at: '2026-03-14T10:01:00.000Z', day_window_resets_at: '2026-03-15T00:00:00.000Z' },
    });
    expect(dynamo.commandCalls(GetCommand).map((call) => call.args[0].input.Key)).toContainEqual({
      pk: 'RATE#ORG#9',
      sk: 'DAY#2026-03-14',
    });
    expect(dynamo.commandCalls(UpdateCommand)).toHaveLength(0);
  });

  it('validates the period like every usage route, though it changes no figure', async () => {
    const error = await refusal(
      usageRateLimits(CALLER, { period: 'custom', start_date: '2026-03-02', end_date: '2026-03-01' }, NOW),
    );
    expect(error.message).toContain('end_date');
  });
});

describe('the webhooks report', () => {
  it('counts the endpoints as they are, deleted ones excluded, and the deliveries of the period', async () => {
    expect(await usageWebhooks(CALLER, BILLING_PERIOD, NOW)).toEqual({
      period: MARCH,
      endpoints: { total: 3, active: 2, disabled: 1 },
      deliveries: { total: 4, succeeded: 2, failed: 1, pending: 1 },
    });
    const endpointQueries = dynamo
      .commandCalls(QueryCommand)
      .filter((call) => call.args[0].input.KeyConditionExpression?.includes('begins_with'));
    expect(endpointQueries).toHaveLength(1);
  });
});
