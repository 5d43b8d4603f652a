import { operationResponses } from './support/api-document';
import { waitForJob } from './support/jobs';
import {
  call,
  createKey,
  createOrganization,
  errorOf,
  RATE_LIMIT_HEADERS,
  type ApiResponse,
  type ErrorBody,
  type TestOrganization,
} from './support/stack';
import { WebhookReceiver } from './support/webhook-receiver';

interface EventPayload {
  id: string;
  type: string;
  created_at: string;
  data: { job?: { id: string }; webhook_id?: string };
}

interface EventList {
  data: EventPayload[];
  pagination: { next_cursor: string | null };
}

function expectDocumented(operationId: string, response: ApiResponse<unknown>) {
  const rules = operationResponses(operationId).get(response.status);
  if (!rules?.validateBody) throw new Error(`${operationId} documents no ${response.status} body`);
  expect(rules.validateBody(response.body) ? [] : rules.validateBody.errors).toEqual([]);
  for (const header of RATE_LIMIT_HEADERS) expect(response.headers.get(header)).toMatch(/^[0-9]+$/);
}

const receiver = new WebhookReceiver();
let organization: TestOrganization;
/** The organization's events as its endpoint received them, newest first. */
let delivered: EventPayload[];
let jobIds: { completed: string; failed: string[] };

async function createVideoJob(prompt: string): Promise<string> {
  const response = await call<{ id: string }>('POST', '/video-jobs', {
    key: organization.key,
    body: { prompt, duration_seconds: 5 },
  });
  if (response.status !== 201) throw new Error(`POST /video-jobs answered ${response.status}`);
  return response.body.id;
}

beforeAll(async () => {
  await receiver.start();
  organization = await createOrganization({ credits: 1000 });
  const endpoint = await call<{ id: string }>('POST', '/webhooks', {
    key: organization.key,
    body: { url: `${receiver.url}/events-${organization.organizationId}`, events: ['job.completed', 'job.failed'] },
  });
  if (endpoint.status !== 201) throw new Error(`POST /webhooks answered ${endpoint.status}`);
  jobIds = {
    completed: await createVideoJob('A harbour at first light'),
    failed: [await createVideoJob('A render that fails [fault:fail]'), await createVideoJob('Another [fault:fail]')],
  };
  // Polled with a key of its own: a render slowed by a busy machine would otherwise spend the
  // minute's 60 requests of the key the tests below call with, and they would get 429.
  const poller = await createKey(organization.organizationId, { scopes: ['video:read'] });
  for (const jobId of [jobIds.completed, ...jobIds.failed]) await waitForJob(poller.key, jobId);
  const test = await call('POST', `/webhooks/${endpoint.body.id}/test`, { key: organization.key });
  if (test.status !== 200) throw new Error(`POST /webhooks/{id}/test answered ${test.status}`);

  const ours = () =>
    receiver.received.filter((delivery) => delivery.path === `/hooks/events-${organization.organizationId}`);
  await receiver.waitFor(() => ours().length >= 4, 60_000);
  // Deliveries are at least once: a retried one carries the same event again.
  const byId = new Map(ours().map((delivery) => [String(delivery.headers['service-webhook-id']), delivery.rawBody]));
  delivered = [...byId.values()]
    .map((rawBody) => JSON.parse(rawBody) as EventPayload)
    .sort((a, b) => (a.id < b.id ? 1 : -1));
}, 180_000);

afterAll(async () => {
  await receiver.stop();
});

async function list(query: Record<string, string | number>, key = organization.key) {
  const search = new URLSearchParams(
    Object.entries(query).map(([name, value]): [string, string] => [name, `${value}`]),
  );
  return call<EventList>('GET', `/events?${search}`, { key });
}

/** Every page of a listing, following the cursor to the end. */
async function listAll(query: Record<string, string | number>) {
  const events: EventPayload[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 50; page += 1) {
    const response = await list({ ...query, ...(cursor ? { cursor } : {}) });
    expect(response.status).toBe(200);
    expectDocumented('listEvents', response);
    events.push(...response.body.data);
    cursor = response.body.pagination.next_cursor;
    if (cursor === null) return events;
  }
  throw new Error('The listing never ended');
}

describe('GET /events', () => {
  it('lists the events of real jobs and of a webhook test, newest first, each the payload its delivery carried', async () => {
    expect(delivered.map((event) => event.type).sort()).toEqual([
      'job.completed',
      'job.failed',
      'job.failed',
      'webhook.test',
    ]);
    const response = await list({ limit: 100 });
    expect(response.status).toBe(200);
    expectDocumented('listEvents', response);
    expect(response.body).toEqual({ data: delivered, pagination: { next_cursor: null } });
    expect(response.body.data.map((event) => event.created_at)).toEqual(
      [...response.body.data.map((event) => event.created_at)].sort().reverse(),
    );
  });

  it('pages through every event exactly once with cursors, whatever the page size', async () => {
    for (const limit of [1, 2, 3]) {
      expect({ limit, events: await listAll({ limit }) }).toEqual({ limit, events: delivered });
    }
  });

  it('filters by type, by job and by creation range (created_after inclusive, created_before exclusive)', async () => {
    expect(await listAll({ type: 'job.failed', limit: 1 })).toEqual(
      delivered.filter((event) => event.type === 'job.failed'),
    );
    expect(await listAll({ type: 'webhook.test' })).toEqual(delivered.filter((event) => event.type === 'webhook.test'));
    for (const jobId of [jobIds.completed, ...jobIds.failed]) {
      const events = await listAll({ job_id: jobId });
      expect(events).toEqual(delivered.filter((event) => event.data.job?.id === jobId));
      expect(events).toHaveLength(1);
    }
    expect(await listAll({ job_id: jobIds.completed, type: 'job.failed' })).toEqual([]);

    const pivot = delivered[1]!;
    expect(await listAll({ created_after: pivot.created_at, limit: 1 })).toEqual(
      delivered.filter((event) => event.created_at >= pivot.created_at),
    );
    expect(await listAll({ created_before: pivot.created_at, limit: 1 })).toEqual(
      delivered.filter((event) => event.created_at < pivot.created_at),
    );
    expect(
      await listAll({ created_after: delivered[0]!.created_at, created_before: delivered[3]!.created_at }),
    ).toEqual([]);
  });

  it('refuses a cursor reused with other filters with 400 VALIDATION_FAILED in the error envelope', async () => {
    const first = await list({ type: 'job.failed', limit: 1 });
    const cursor = first.body.pagination.next_cursor!;
    expect(cursor).toEqual(expect.any(String));
    const otherFilters: Record<string, string | number>[] = [
      { type: 'job.completed', limit: 1, cursor },
      { limit: 1, cursor },
      { type: 'job.failed', job_id: jobIds.failed[0]!, limit: 1, cursor },
    ];
    for (const query of otherFilters) {
      const response = await list(query);
      expect([response.status, errorOf(response).code]).toEqual([400, 'VALIDATION_FAILED']);
      expectDocumented('listEvents', response);
    }
    const other = await createOrganization();
    const foreign = await list({ type: 'job.failed', limit: 1, cursor }, other.key);
    expect(foreign.status).toBe(400);
  });

  it.each([
    ['limit 0', { limit: 0 }],
    ['limit 101', { limit: 101 }],
    ['a limit that is no integer', { limit: '1e1' }],
    ['an unknown type', { type: 'job.started' }],
    ['a job_id that is no job id', { job_id: 'asset_01j00000000000000000000000' }],
    ['a created_after that is no date-time', { created_after: 'yesterday' }],
    ['a created_before without an offset', { created_before: '2026-11-25T12:00:00' }],
    ['an empty cursor', { cursor: '' }],
    ['an unknown parameter', { status: 'completed' }],
  ])('answers %s with 400 VALIDATION_FAILED', async (_, query) => {
    const response = await list(query);
    expect([response.status, errorOf(response).code]).toEqual([400, 'VALIDATION_FAILED']);
    expectDocumented('listEvents', response);
  });
});

describe('GET /events/{id}', () => {
  it('answers each event as its delivery carried it', async () => {
    for (const event of delivered) {
      const response = await call<EventPayload>('GET', `/events/${event.id}`, { key: organization.key });
      expect(response.status).toBe(200);
      expectDocumented('getEvent', response);
      expect(response.body).toEqual(event);
    }
  });

  it("answers 404 EVENT_NOT_FOUND for another organization's event and for ids that name no event", async () => {
    const other = await createOrganization();
    const foreign = await call<ErrorBody>('GET', `/events/${delivered[0]!.id}`, { key: other.key });
    expect([foreign.status, foreign.body.error.code]).toEqual([404, 'EVENT_NOT_FOUND']);
    expectDocumented('getEvent', foreign);
    expect((await list({}, other.key)).body.data).toEqual([]);
    for (const id of ['evt_01j00000000000000000000000', 'evt_nope', 'webhook_x', '%E0%A4%A']) {
      const response = await call<ErrorBody>('GET', `/events/${id}`, { key: organization.key });
      expect([id, response.status, response.body.error.code]).toEqual([id, 404, 'EVENT_NOT_FOUND']);
    }
  });
});

describe('the webhooks:read scope', () => {
  it('is what both routes require', async () => {
    const writer = await createKey(organization.organizationId, { scopes: ['webhooks:write', 'jobs:read'] });
    for (const path of ['/events', `/events/${delivered[0]!.id}`]) {
      const denied = await call<ErrorBody>('GET', path, { key: writer.key });
      expect([path, denied.status, denied.body.error.code]).toEqual([path, 403, 'INSUFFICIENT_SCOPE']);
    }
    const reader = await createKey(organization.organizationId, { scopes: ['webhooks:read'] });
    expect((await call('GET', '/events', { key: reader.key })).status).toBe(200);
    expect((await call('GET', `/events/${delivered[0]!.id}`, { key: reader.key })).status).toBe(200);
  });
});
