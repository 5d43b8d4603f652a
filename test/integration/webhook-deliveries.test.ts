import { verifyWebhook } from '@video-automation/client';
import { operationResponses } from './support/api-document';
import { eventually } from './support/eventually';
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
import { WebhookReceiver, type ReceivedDelivery } from './support/webhook-receiver';

interface Attempt {
  at: string;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  response_body: string | null;
}

interface Delivery {
  id: string;
  event_id: string;
  event_type: string;
  status: 'pending' | 'succeeded' | 'failed';
  next_attempt_at: string | null;
  failure_reason: string | null;
  resend_of: string | null;
  created_at: string;
  attempts: Attempt[];
}

interface DeliveryList {
  data: Delivery[];
  pagination: { next_cursor: string | null };
}

interface Endpoint {
  id: string;
  secret: string;
}

function expectDocumented(operationId: string, response: ApiResponse<unknown>) {
  const rules = operationResponses(operationId).get(response.status);
  if (!rules?.validateBody) throw new Error(`${operationId} documents no ${response.status} body`);
  expect(rules.validateBody(response.body) ? [] : rules.validateBody.errors).toEqual([]);
  for (const header of RATE_LIMIT_HEADERS) expect(response.headers.get(header)).toMatch(/^[0-9]+$/);
}

const receiver = new WebhookReceiver();
/** Paths whose requests the receiver fails, answering with a body that quotes credentials. */
const failingPaths = new Set<string>();
let organization: TestOrganization;
let endpoint: Endpoint;
let eventIds: string[];

/** What a broken receiver might answer: an error quoting the secret and a token it should not. */
const failureBody = (secret: string) =>
  JSON.stringify({ error: 'database down', signing_secret: secret, access_token: 'tok-0123456789abcdef' });

async function createEndpoint(name: string): Promise<Endpoint> {
  const response = await call<Endpoint>('POST', '/webhooks', {
    key: organization.key,
    body: { url: `${receiver.url}/${name}-${organization.organizationId}`, events: ['job.completed'] },
  });
  if (response.status !== 201) throw new Error(`POST /webhooks answered ${response.status}`);
  return response.body;
}

async function sendTestEvent(webhookId: string): Promise<string> {
  const response = await call<{ delivery: { event_id: string } }>('POST', `/webhooks/${webhookId}/test`, {
    key: organization.key,
  });
  if (response.status !== 200) throw new Error(`POST /webhooks/{id}/test answered ${response.status}`);
  return response.body.delivery.event_id;
}

const listDeliveries = (webhookId: string, query = '', key = organization.key) =>
  call<DeliveryList>('GET', `/webhooks/${webhookId}/deliveries${query ? `?${query}` : ''}`, { key });

/** Every delivery of the endpoint, following the cursor, with the documented shape on every page. */
async function everyDelivery(webhookId: string, query: string): Promise<{ deliveries: Delivery[]; pages: number }> {
  const deliveries: Delivery[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const response = await listDeliveries(
      webhookId,
      [query, cursor === null ? '' : `cursor=${encodeURIComponent(cursor)}`].filter(Boolean).join('&'),
    );
    expect(response.status).toBe(200);
    expectDocumented('listWebhookDeliveries', response);
    deliveries.push(...response.body.data);
    cursor = response.body.pagination.next_cursor;
    pages += 1;
  } while (cursor !== null);
  return { deliveries, pages };
}

function verified(delivery: ReceivedDelivery, secret: string) {
  return verifyWebhook({ headers: delivery.headers, rawBody: delivery.rawBody, secrets: secret });
}

/** The requests the receiver took with this path and event id that it answered 2xx. */
const acceptedAt = (path: string, eventId: string) =>
  receiver.of(eventId).filter((delivery) => delivery.path === path && delivery.status < 300);

beforeAll(async () => {
  await receiver.start();
  organization = await createOrganization();
  receiver.answerWith((_attempt, _eventId, path) =>
    failingPaths.has(path)
      ? { status: 500, body: failureBody(endpoint.secret) }
      : { status: 200, body: '{"received":true}' },
  );
  endpoint = await createEndpoint('log');
  failingPaths.add(`/hooks/log-${organization.organizationId}`);
  eventIds = [];
  for (let index = 0; index < 3; index += 1) eventIds.push(await sendTestEvent(endpoint.id));
  // Six attempts each, the local stack's retry waits scaled down to about 30 s in all.
  const settled = await eventually(
    () => listDeliveries(endpoint.id, 'status=failed'),
    (response) => response.body.data?.length === 3,
    { timeoutMs: 90_000, everyMs: 1000 },
  );
  if (settled.body.data.length !== 3) throw new Error(`The deliveries did not fail: ${JSON.stringify(settled.body)}`);
  failingPaths.clear();
}, 120_000);

afterAll(async () => {
  await receiver.stop();
});

describe('the delivery log', () => {
  it('lists each delivery with every attempt: status code, duration and the response body redacted', async () => {
    const { deliveries } = await everyDelivery(endpoint.id, '');

    // Newest first by when each was recorded, which the relay decides, not by the events' order.
    expect(deliveries.map((delivery) => delivery.event_id).sort()).toEqual([...eventIds].sort());
    const ids = deliveries.map((delivery) => delivery.id);
    expect(ids).toEqual([...ids].sort().reverse());
    for (const delivery of deliveries) {
      expect(delivery).toMatchObject({
        id: expect.stringMatching(/^dlv_/),
        event_type: 'webhook.test',
        status: 'failed',
        next_attempt_at: null,
        failure_reason: 'attempts_exhausted',
        resend_of: null,
      });
      expect(delivery.id).not.toBe(delivery.event_id);
      expect(delivery.attempts).toHaveLength(6);
      for (const attempt of delivery.attempts) {
        expect(attempt).toMatchObject({ status_code: 500, error: null, duration_ms: expect.any(Number) });
        expect(attempt.response_body).toContain('database down');
        expect(attempt.response_body).not.toContain(endpoint.secret.slice('whsec_'.length));
        expect(attempt.response_body).not.toContain('tok-0123456789abcdef');
        expect(attempt.response_body).toContain('[redacted]');
      }
      const times = delivery.attempts.map((attempt) => Date.parse(attempt.at));
      expect([...times].sort((a, b) => a - b)).toEqual(times);
    }
  });

  it('filters by status and event type, and pages with a cursor tied to its filters', async () => {
    const paged = await everyDelivery(endpoint.id, 'limit=1');
    expect(paged.pages).toBeGreaterThanOrEqual(3);
    expect(new Set(paged.deliveries.map((delivery) => delivery.id)).size).toBe(paged.deliveries.length);

    expect((await everyDelivery(endpoint.id, 'status=failed&event_type=webhook.test')).deliveries.length).toBe(
      paged.deliveries.filter((delivery) => delivery.status === 'failed').length,
    );
    expect((await everyDelivery(endpoint.id, 'event_type=job.completed')).deliveries).toEqual([]);

    const first = await listDeliveries(endpoint.id, 'limit=1');
    const cursor = encodeURIComponent(first.body.pagination.next_cursor ?? '');
    const reused = await call<ErrorBody>('GET', `/webhooks/${endpoint.id}/deliveries?status=failed&cursor=${cursor}`, {
      key: organization.key,
    });
    expect([reused.status, reused.body.error.code]).toEqual([400, 'VALIDATION_FAILED']);
    const invalid = await listDeliveries(endpoint.id, 'status=lost&limit=0');
    expect(invalid.status).toBe(400);
  });
});

describe('resending and recovering', () => {
  it('resends one delivery as a new one with the same event id and body, signed, then recovers the rest once', async () => {
    const path = `/hooks/log-${organization.organizationId}`;
    const failed = (await everyDelivery(endpoint.id, 'status=failed')).deliveries;
    const [chosen] = failed;
    const original = receiver.of(chosen!.event_id)[0]!;

    const resent = await call<Delivery>('POST', `/webhooks/${endpoint.id}/deliveries/${chosen!.id}/resend`, {
      key: organization.key,
    });
    expect(resent.status).toBe(202);
    expectDocumented('resendWebhookDelivery', resent);
    expect(resent.body).toMatchObject({
      event_id: chosen!.event_id,
      event_type: 'webhook.test',
      status: 'pending',
      resend_of: chosen!.id,
      attempts: [],
    });
    expect(resent.body.id).not.toBe(chosen!.id);
    await receiver.waitFor(() => acceptedAt(path, chosen!.event_id).length === 1);
    const [received] = acceptedAt(path, chosen!.event_id);
    expect(verified(received!, endpoint.secret)).toMatchObject({ ok: true, eventId: chosen!.event_id });
    expect(received!.rawBody).toBe(original.rawBody);

    const since = new Date(Date.now() - 3_600_000).toISOString();
    const recovered = await call<{ queued: number; next_since: string | null }>(
      'POST',
      `/webhooks/${endpoint.id}/recover`,
      { key: organization.key, body: { since } },
    );
    expect(recovered.status).toBe(202);
    expectDocumented('recoverWebhookDeliveries', recovered);
    // The one resent by hand is not resent again.
    expect(recovered.body).toEqual({ queued: failed.length - 1, next_since: null });
    const others = failed.slice(1).map((delivery) => delivery.event_id);
    await receiver.waitFor(() => others.every((eventId) => acceptedAt(path, eventId).length === 1));
    for (const eventId of others) {
      const [delivery] = acceptedAt(path, eventId);
      expect(verified(delivery!, endpoint.secret)).toMatchObject({ ok: true, eventId });
    }

    const succeeded = await eventually(
      () => everyDelivery(endpoint.id, 'status=succeeded'),
      ({ deliveries }) => deliveries.length === failed.length,
    );
    expect(succeeded.deliveries.map((delivery) => delivery.resend_of).sort()).toEqual(
      failed.map((delivery) => delivery.id).sort(),
    );
    for (const delivery of succeeded.deliveries) {
      expect(delivery.attempts).toEqual([
        expect.objectContaining({ status_code: 200, error: null, response_body: '{"received":true}' }),
      ]);
    }

    const repeated = await call('POST', `/webhooks/${endpoint.id}/recover`, { key: organization.key, body: { since } });
    expect(repeated.body).toEqual({ queued: 0, next_since: null });
  }, 60_000);

  it('refuses an instant older than the 30 days deliveries are kept', async () => {
    const since = new Date(Date.now() - 31 * 86_400_000).toISOString();
    const refused = await call<ErrorBody>('POST', `/webhooks/${endpoint.id}/recover`, {
      key: organization.key,
      body: { since },
    });
    expect([refused.status, refused.body.error.code]).toEqual([400, 'VALIDATION_FAILED']);
    expectDocumented('recoverWebhookDeliveries', refused);
  });

  it('answers 409 WEBHOOK_DISABLED to resend or recover on a disabled endpoint, whose log stays readable', async () => {
    const disabled = await createEndpoint('disabled');
    await sendTestEvent(disabled.id);
    const delivered = await eventually(
      () => listDeliveries(disabled.id, 'status=succeeded'),
      (response) => response.body.data?.length === 1,
    );
    const [delivery] = delivered.body.data;
    const patched = await call('PATCH', `/webhooks/${disabled.id}`, {
      key: organization.key,
      body: { status: 'disabled' },
    });
    expect(patched.status).toBe(200);

    const resend = await call<ErrorBody>('POST', `/webhooks/${disabled.id}/deliveries/${delivery!.id}/resend`, {
      key: organization.key,
    });
    const recover = await call<ErrorBody>('POST', `/webhooks/${disabled.id}/recover`, {
      key: organization.key,
      body: { since: new Date(Date.now() - 60_000).toISOString() },
    });
    for (const [operationId, response] of [
      ['resendWebhookDelivery', resend],
      ['recoverWebhookDeliveries', recover],
    ] as const) {
      expect([response.status, response.body.error.code]).toEqual([409, 'WEBHOOK_DISABLED']);
      expectDocumented(operationId, response);
    }
    expect((await listDeliveries(disabled.id)).body.data.map((listed) => listed.id)).toEqual([delivery!.id]);
  });
});

describe('who may read and resend', () => {
  it("answers 404 for another organization's endpoint or delivery, and for a delivery of no endpoint of ours", async () => {
    const [delivery] = (await listDeliveries(endpoint.id)).body.data;
    const other = await createOrganization();
    const otherEndpoint = await call<Endpoint>('POST', '/webhooks', {
      key: other.key,
      body: { url: `${receiver.url}/other-${other.organizationId}`, events: ['job.completed'] },
    });
    const foreign = [
      await listDeliveries(endpoint.id, '', other.key),
      await call<ErrorBody>('POST', `/webhooks/${endpoint.id}/deliveries/${delivery!.id}/resend`, { key: other.key }),
      await call<ErrorBody>('POST', `/webhooks/${endpoint.id}/recover`, {
        key: other.key,
        body: { since: new Date(Date.now() - 60_000).toISOString() },
      }),
    ];
    for (const response of foreign) {
      expect([response.status, errorOf(response).code]).toEqual([404, 'WEBHOOK_NOT_FOUND']);
    }
    const elsewhere = await call<ErrorBody>(
      'POST',
      `/webhooks/${otherEndpoint.body.id}/deliveries/${delivery!.id}/resend`,
      { key: other.key },
    );
    const unknown = await call<ErrorBody>('POST', `/webhooks/${endpoint.id}/deliveries/dlv_unknown/resend`, {
      key: organization.key,
    });
    for (const response of [elsewhere, unknown]) {
      expect([response.status, response.body.error.code]).toEqual([404, 'DELIVERY_NOT_FOUND']);
      expectDocumented('resendWebhookDelivery', response);
    }

    const deleted = await createEndpoint('deleted');
    expect((await call('DELETE', `/webhooks/${deleted.id}`, { key: organization.key })).status).toBe(204);
    const gone = await listDeliveries(deleted.id);
    expect([gone.status, errorOf(gone).code]).toEqual([404, 'WEBHOOK_NOT_FOUND']);
  });

  it('needs webhooks:read to list and webhooks:write to resend or recover', async () => {
    const [delivery] = (await listDeliveries(endpoint.id)).body.data;
    const reader = await createKey(organization.organizationId, { scopes: ['webhooks:read'] });
    const outsider = await createKey(organization.organizationId, { scopes: ['jobs:read'] });

    expect((await listDeliveries(endpoint.id, '', reader.key)).status).toBe(200);
    expect((await listDeliveries(endpoint.id, '', outsider.key)).status).toBe(403);
    const resend = await call('POST', `/webhooks/${endpoint.id}/deliveries/${delivery!.id}/resend`, {
      key: reader.key,
    });
    const recover = await call('POST', `/webhooks/${endpoint.id}/recover`, {
      key: reader.key,
      body: { since: new Date().toISOString() },
    });
    expect([resend.status, recover.status]).toEqual([403, 403]);
  });
});
