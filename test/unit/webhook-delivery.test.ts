import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBDocumentClient, GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { Webhook } from 'standardwebhooks';
import { verifyWebhook } from '@video-automation/client';
import { deliverOne, deliverQueuedMessages, DISABLE_AFTER_FAILING_MS } from '#domain/webhooks/delivery';
import { sealSecret } from '#domain/webhooks/secret-sealing';
import {
  DEVELOPER_WEBHOOK_DELIVERY_ENABLED,
  WEBHOOK_LOOPBACK_ALLOWED,
  WEBHOOK_SECRETS_LOCAL_KEY,
} from '#platform/settings';
import { captureMetrics, publishedValues, type MetricDocument } from './support/metrics';
import { refusedAt } from './support/transactions';

process.env.TABLE_NAME = 'table';
process.env.AWS_REGION = 'us-east-1';
process.env.WEBHOOK_DELIVERIES_QUEUE_URL = 'http://queue.local/000000000000/webhook-deliveries';
process.env[WEBHOOK_SECRETS_LOCAL_KEY.variable] = randomBytes(32).toString('base64');
process.env[WEBHOOK_LOOPBACK_ALLOWED.variable] = 'true';

const dynamo = mockClient(DynamoDBDocumentClient);
const sqs = mockClient(SQSClient);

const EVENT_ID = 'evt_01j0000000000000000000000a';
const WEBHOOK_ID = 'webhook_01j0000000000000000000000a';
/** The delivery's ids as its item and its queue message write them. */
const STORED_IDS = { organization_id: 7, event_id: EVENT_ID, webhook_id: WEBHOOK_ID };
const REF = { organizationId: 7, eventId: EVENT_ID, webhookId: WEBHOOK_ID };
const SECRET = 'whsec_dGhpcy1pcy1hLXRlc3Qtc2VjcmV0LW9mLTMyLWJ5dGVz';
const BODY = JSON.stringify({ id: EVENT_ID, type: 'job.failed', created_at: '2026-11-23T10:00:00.000Z', data: {} });

let server: Server;
let answer = 204;
let answerBody = '';
const received: { headers: IncomingHttpHeaders; body: string }[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, body });
      response.writeHead(answer).end(answerBody);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  dynamo.reset();
  sqs.reset();
  received.length = 0;
  answer = 204;
  answerBody = '';
  process.env[DEVELOPER_WEBHOOK_DELIVERY_ENABLED.variable] = 'true';
  dynamo.on(UpdateCommand).resolves({});
  dynamo.on(TransactWriteCommand).resolves({});
  sqs.on(SendMessageCommand).resolves({});
});

function delivery(overrides: Record<string, unknown> = {}) {
  return {
    ...STORED_IDS,
    event_type: 'job.failed',
    body: BODY,
    status: 'pending',
    attempts: 0,
    attempt_log: [],
    next_attempt_at: new Date(Date.now() - 1000).toISOString(),
    created_at: '2026-11-23T10:00:00.000Z',
    updated_at: '2026-11-23T10:00:00.000Z',
    expires_at: 0,
    ...overrides,
  };
}

async function endpoint(overrides: Record<string, unknown> = {}) {
  return {
    webhook_id: WEBHOOK_ID,
    organization_id: 7,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    events: ['job.failed'],
    status: 'active',
    failure_count: 0,
    secret_sealed: await sealSecret(SECRET, { organizationId: 7, webhookId: WEBHOOK_ID }),
    created_at: '2026-11-01T00:00:00.000Z',
    updated_at: '2026-11-01T00:00:00.000Z',
    ...overrides,
  };
}

/** The Standard Webhooks headers of a request, as the library takes them. */
function standardHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  return Object.fromEntries(
    ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => [name, String(headers[name])]),
  );
}

function given(deliveryItem: object | undefined, endpointItem: object | undefined) {
  dynamo.on(GetCommand).callsFake((input: { Key: { sk: string } }) => ({
    Item: input.Key.sk.startsWith('DELIVERY#') ? deliveryItem : endpointItem,
  }));
}

interface WrittenUpdate {
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues: Record<string, unknown>;
}

/** The updates of the first transaction written. */
const firstTransaction = (): WrittenUpdate[] =>
  dynamo
    .commandCalls(TransactWriteCommand)[0]!
    .args[0].input.TransactItems!.map((item) => item.Update as WrittenUpdate);
const endpointUpdates = () =>
  dynamo
    .commandCalls(UpdateCommand)
    .map((call) => call.args[0].input)
    .filter((input) => (input.Key as { sk: string }).sk.startsWith('WEBHOOK#'));

describe('one webhook delivery attempt', () => {
  it('sends the stored body signed with the endpoint secret, and records the success', async () => {
    given(delivery(), await endpoint());
    expect(await deliverOne(REF)).toBe('succeeded');
    expect(received).toHaveLength(1);
    expect(received[0]!.body).toBe(BODY);
    expect(verifyWebhook({ headers: received[0]!.headers, rawBody: received[0]!.body, secrets: SECRET })).toMatchObject(
      {
        ok: true,
        eventId: EVENT_ID,
        eventType: 'job.failed',
      },
    );
    expect(new Webhook(SECRET).verify(BODY, standardHeaders(received[0]!.headers))).toEqual(JSON.parse(BODY));
    const [deliveryUpdate, usageUpdate] = firstTransaction();
    expect(deliveryUpdate!.ExpressionAttributeValues).toMatchObject({ ':status': 'succeeded', ':attempts': 1 });
    expect(usageUpdate).toMatchObject({
      ExpressionAttributeNames: { '#c0': 'deliveries_succeeded', '#c1': 'deliveries_pending' },
    });
    expect(endpointUpdates()[0]!.UpdateExpression).toContain('failure_count = :zero');
  });

  it('signs with the previous secret too until its overlap ends, and with the current one alone after', async () => {
    const previous = 'whsec_cHJldmlvdXMtc2VjcmV0LW9mLXRoZS1lbmRwb2ludC0';
    const previousSealed = await sealSecret(previous, { organizationId: 7, webhookId: WEBHOOK_ID });
    const rotated = (expiresInMs: number) =>
      endpoint({
        previous_secret_sealed: previousSealed,
        previous_secret_expires_at: new Date(Date.now() + expiresInMs).toISOString(),
      });
    const verifiedWith = (secret: string) =>
      verifyWebhook({ headers: received.at(-1)!.headers, rawBody: received.at(-1)!.body, secrets: secret }).ok;

    given(delivery(), await rotated(60_000));
    expect(await deliverOne(REF)).toBe('succeeded');
    expect(received[0]!.headers['service-webhook-signature']).toMatch(/^v1=[0-9a-f]{64} v1=[0-9a-f]{64}$/);
    expect([verifiedWith(SECRET), verifiedWith(previous)]).toEqual([true, true]);

    given(delivery(), await rotated(-1));
    expect(await deliverOne(REF)).toBe('succeeded');
    expect(received[1]!.headers['service-webhook-signature']).toMatch(/^v1=[0-9a-f]{64}$/);
    expect([verifiedWith(SECRET), verifiedWith(previous)]).toEqual([true, false]);
  });

  it('signs the Standard Webhooks headers of a secret issued in base64url with the bytes it encodes', async () => {
    const issuedBefore = 'whsec_8-_0b0JHcZ7oRk2Ha2tFVuKrZV5Gx-yL3UPLe_4q1Wo';
    const standardForm = 'whsec_8+/0b0JHcZ7oRk2Ha2tFVuKrZV5Gx+yL3UPLe/4q1Wo=';
    const sealed = await sealSecret(issuedBefore, { organizationId: 7, webhookId: WEBHOOK_ID });
    given(delivery(), await endpoint({ secret_sealed: sealed }));
    expect(await deliverOne(REF)).toBe('succeeded');
    const { headers, body } = received[0]!;
    expect(verifyWebhook({ headers, rawBody: body, secrets: issuedBefore }).ok).toBe(true);
    expect(new Webhook(standardForm).verify(body, standardHeaders(headers))).toEqual(JSON.parse(BODY));
  });

  it("logs the attempt with the start of the receiver's answer, the signing secret taken out", async () => {
    answer = 500;
    answerBody = `{"error":"bad signature","expected_secret":"${SECRET}","echo":"${SECRET.slice(6)}"}`;
    given(delivery(), await endpoint());
    expect(await deliverOne(REF)).toBe('pending');
    const [deliveryUpdate] = firstTransaction();
    const [attempt] = deliveryUpdate!.ExpressionAttributeValues[':attempt'] as Record<string, unknown>[];
    expect(attempt).toEqual({
      at: expect.any(String),
      status_code: 500,
      duration_ms: expect.any(Number),
      response_body: '{"error":"bad signature","expected_secret":"[redacted]","echo":"[redacted]"}',
    });
  });

  it('sends a resend to its own item whatever the endpoint subscribes to now, and retries it as itself', async () => {
    answer = 500;
    const resendId = 'dlv_01j0000000000000000000000b';
    const resendRef = { ...REF, resendId };
    given(
      delivery({ delivery_id: resendId, resend_of: 'dlv_01j0000000000000000000000a' }),
      await endpoint({ events: ['job.completed'] }),
    );
    expect(await deliverOne(resendRef)).toBe('pending');
    expect(received).toHaveLength(1);
    expect(received[0]!.headers['service-webhook-id']).toBe(EVENT_ID);
    const keys = dynamo.commandCalls(GetCommand).map((call) => (call.args[0].input.Key as { sk: string }).sk);
    expect(keys).toContain(`DELIVERY#${EVENT_ID}#${WEBHOOK_ID}#${resendId}`);
    const retry = JSON.parse(sqs.commandCalls(SendMessageCommand)[0]!.args[0].input.MessageBody!) as object;
    expect(retry).toEqual({ ...STORED_IDS, resend_id: resendId });
  });

  it('sends nothing while delivery is switched off, and leaves the delivery as it is', async () => {
    process.env[DEVELOPER_WEBHOOK_DELIVERY_ENABLED.variable] = 'false';
    given(delivery(), await endpoint());
    expect(await deliverOne(REF)).toBe('delivery-switched-off');
    expect(received).toHaveLength(0);
    expect(dynamo.calls()).toHaveLength(0);
  });

  it('sends a message that came early on again with the rest of the wait', async () => {
    given(delivery({ next_attempt_at: new Date(Date.now() + 3_600_000).toISOString() }), await endpoint());
    expect(await deliverOne(REF)).toBe('requeued');
    expect(received).toHaveLength(0);
    expect(sqs.commandCalls(SendMessageCommand)[0]!.args[0].input.DelaySeconds).toBe(900);
  });

  it.each([
    ['disabled', { status: 'disabled' }, 'endpoint_disabled'],
    ['deleted', { status: 'deleted', secret_sealed: undefined }, 'endpoint_deleted'],
    ['no longer subscribed', { events: ['job.completed'] }, 'endpoint_unsubscribed'],
  ])('ends the delivery of a job event to an endpoint %s as failed, sending nothing', async (_, change, reason) => {
    given(delivery(), await endpoint(change));
    expect(await deliverOne(REF)).toBe(reason);
    expect(received).toHaveLength(0);
    const [deliveryUpdate] = firstTransaction();
    expect(deliveryUpdate!.ExpressionAttributeValues).toMatchObject({
      ':status': 'failed',
      ':reason': reason,
      ':attempts': 0,
    });
  });

  it('schedules the next attempt of a failure and queues it with its delay', async () => {
    answer = 500;
    given(delivery({ attempts: 1 }), await endpoint());
    expect(await deliverOne(REF)).toBe('pending');
    const [deliveryUpdate] = firstTransaction();
    expect(deliveryUpdate!.ExpressionAttributeValues[':attempts']).toBe(2);
    const waitSeconds = (Date.parse(String(deliveryUpdate!.ExpressionAttributeValues[':next'])) - Date.now()) / 1000;
    expect(waitSeconds).toBeGreaterThan(300 * 0.9 - 2);
    expect(waitSeconds).toBeLessThan(300 * 1.1);
    expect(sqs.commandCalls(SendMessageCommand)[0]!.args[0].input.DelaySeconds).toBeGreaterThanOrEqual(268);
    expect(endpointUpdates()[0]!.UpdateExpression).toContain('failing_since = if_not_exists(failing_since, :now)');
  });

  it('ends the delivery failed after the sixth attempt', async () => {
    answer = 502;
    given(delivery({ attempts: 5 }), await endpoint());
    expect(await deliverOne(REF)).toBe('failed');
    const [deliveryUpdate] = firstTransaction();
    expect(deliveryUpdate!.ExpressionAttributeValues).toMatchObject({
      ':status': 'failed',
      ':attempts': 6,
      ':reason': 'attempts_exhausted',
    });
    expect(sqs.commandCalls(SendMessageCommand)).toHaveLength(0);
  });

  it('disables an endpoint that answers 410 Gone, or that has failed every attempt for five days', async () => {
    answer = 410;
    given(delivery(), await endpoint());
    await deliverOne(REF);
    expect(endpointUpdates().some((update) => update.ExpressionAttributeValues?.[':reason'] === 'receiver_gone')).toBe(
      true,
    );

    dynamo.resetHistory();
    answer = 500;
    given(
      delivery(),
      await endpoint({ failing_since: new Date(Date.now() - DISABLE_AFTER_FAILING_MS - 1000).toISOString() }),
    );
    await deliverOne(REF);
    expect(
      endpointUpdates().some((update) => update.ExpressionAttributeValues?.[':reason'] === 'persistent_failure'),
    ).toBe(true);

    dynamo.resetHistory();
    given(
      delivery(),
      await endpoint({ failing_since: new Date(Date.now() - DISABLE_AFTER_FAILING_MS + 60_000).toISOString() }),
    );
    await deliverOne(REF);
    expect(endpointUpdates().some((update) => update.ExpressionAttributeValues?.[':disabled'])).toBe(false);
  });

  it('reports poison messages and failed runs in the batch response, and nothing else', async () => {
    given(delivery({ status: 'succeeded' }), await endpoint());
    const response = await deliverQueuedMessages([
      { messageId: 'ok', body: JSON.stringify(STORED_IDS) },
      { messageId: 'poison', body: 'not json' },
      { messageId: 'shapeless', body: '{"organization_id":"7"}' },
    ] as never);
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: 'poison' }, { itemIdentifier: 'shapeless' }]);

    dynamo.on(GetCommand).rejects(new Error('table unavailable'));
    const failing = await deliverQueuedMessages([{ messageId: 'retry-me', body: JSON.stringify(STORED_IDS) }] as never);
    expect(failing.batchItemFailures).toEqual([{ itemIdentifier: 'retry-me' }]);
  });
});

describe('the metrics of webhook deliveries', () => {
  let metrics: MetricDocument[];

  beforeEach(() => {
    metrics = captureMetrics();
  });

  it('counts a 2xx attempt succeeded, and the delivery it ends', async () => {
    given(delivery(), await endpoint());
    await deliverOne(REF);
    expect(publishedValues(metrics, 'WebhookDeliveryAttempts')).toEqual([{ Outcome: 'succeeded', value: 1 }]);
    expect(publishedValues(metrics, 'WebhookDeliveriesEnded')).toEqual([{ Outcome: 'succeeded', value: 1 }]);
  });

  it('counts a failed attempt with more to come, and no end', async () => {
    answer = 503;
    given(delivery({ attempts: 2 }), await endpoint());
    await deliverOne(REF);
    expect(publishedValues(metrics, 'WebhookDeliveryAttempts')).toEqual([{ Outcome: 'failed', value: 1 }]);
    expect(publishedValues(metrics, 'WebhookDeliveriesEnded')).toEqual([]);
  });

  it('ends a delivery failed when its last attempt fails', async () => {
    answer = 500;
    given(delivery({ attempts: 5 }), await endpoint());
    await deliverOne(REF);
    expect(publishedValues(metrics, 'WebhookDeliveryAttempts')).toEqual([{ Outcome: 'failed', value: 1 }]);
    expect(publishedValues(metrics, 'WebhookDeliveriesEnded')).toEqual([{ Outcome: 'failed', value: 1 }]);
  });

  it('counts the attempt but not the end when another worker recorded the delivery first', async () => {
    given(delivery(), await endpoint());
    dynamo.on(TransactWriteCommand).callsFake(refusedAt({ pk: 'ORG#7', sk: `DELIVERY#${EVENT_ID}#${WEBHOOK_ID}` }));
    expect(await deliverOne(REF)).toBe('recorded-elsewhere');
    expect(publishedValues(metrics, 'WebhookDeliveryAttempts')).toEqual([{ Outcome: 'succeeded', value: 1 }]);
    expect(publishedValues(metrics, 'WebhookDeliveriesEnded')).toEqual([]);
  });

  it('counts nothing when nothing is sent', async () => {
    given(delivery(), undefined);
    expect(await deliverOne(REF)).toBe('endpoint_deleted');
    expect(metrics).toEqual([]);
  });
});
