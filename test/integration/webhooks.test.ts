import { rm } from 'node:fs/promises';
import { DynamoDBClient, QueryCommand } from '@aws-sdk/client-dynamodb';
import { GetQueueAttributesCommand, SQSClient, type QueueAttributeName } from '@aws-sdk/client-sqs';
import { EVENT_ITEM_PREFIX } from '#domain/events/event-stream';
import { OUTBOX_ATTRIBUTES } from '#domain/events/outbox-index';
import { TABLE_NAME } from '#platform/settings';
import { organizationPartition } from '#platform/table-design';
import { queueNamed } from '#queues';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { verifyWebhook } from '@video-automation/client';
import { componentSchema, operationResponses, webhookHeaderRules } from './support/api-document';
import { eventually } from './support/eventually';
import { waitForJob } from './support/jobs';
import {
  call,
  createKey,
  createOrganization,
  listDeliveries,
  type ApiResponse,
  type ErrorBody,
  type TestOrganization,
} from './support/stack';
import { runAdmin, startStackProcess, stopStackProcess, type StackProcess } from './support/stack-process';
import { WebhookReceiver, type ReceivedDelivery } from './support/webhook-receiver';
import { stackDataDir } from '../support/stack-data-dir';

interface Endpoint {
  id: string;
  url: string;
  description: string | null;
  events: string[];
  status: string;
  failure_count: number;
  last_success_at: string | null;
  last_failure_at: string | null;
  created_at: string;
  secret?: string;
}

function expectDocumented(operationId: string, response: ApiResponse<unknown>) {
  const validate = operationResponses(operationId).get(response.status)?.validateBody;
  if (!validate) throw new Error(`${operationId} documents no ${response.status} body`);
  expect(validate(response.body) ? [] : validate.errors).toEqual([]);
}

function expectPayload(schema: string, body: unknown) {
  const validate = componentSchema(schema);
  expect(validate(body) ? [] : validate.errors).toEqual([]);
}

async function createEndpoint(
  organization: TestOrganization,
  body: Record<string, unknown>,
): Promise<Endpoint & { secret: string }> {
  const response = await call<Endpoint>('POST', '/webhooks', { key: organization.key, body });
  expect(response.status).toBe(201);
  expectDocumented('createWebhook', response);
  return response.body as Endpoint & { secret: string };
}

/** The contract's rule, through the client's verifier. */
function verified(delivery: ReceivedDelivery, secret: string, now = Date.now()) {
  return verifyWebhook({ headers: delivery.headers, rawBody: delivery.rawBody, secrets: secret, now });
}

/** The npm `standardwebhooks` library's verdict: the payload it parsed, or the reason it refused. */
function standardVerified(delivery: ReceivedDelivery, secret: string): unknown {
  const headers = Object.fromEntries(
    Object.entries(delivery.headers).filter((header): header is [string, string] => typeof header[1] === 'string'),
  );
  try {
    return new Webhook(secret).verify(delivery.rawBody, headers);
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error.message;
    throw error;
  }
}

/**
 * Carrying the headers docs/openapi.yaml documents for its event type, each as documented, and
 * verified by both the contract's rule and the Standard Webhooks library.
 */
function expectVerifiedBothWays(delivery: ReceivedDelivery, secret: string) {
  const eventType = String(delivery.headers['service-webhook-event']);
  const headerProblems = webhookHeaderRules(eventType).flatMap(({ name, required, validate }) => {
    const value = delivery.headers[name];
    if (typeof value !== 'string') return required ? [`${name} missing`] : [];
    return validate(value) ? [] : [`${name}: ${value} breaks its documented schema`];
  });
  expect(headerProblems).toEqual([]);
  expect(verified(delivery, secret)).toMatchObject({ ok: true, eventId: delivery.headers['webhook-id'] });
  expect(standardVerified(delivery, secret)).toEqual(JSON.parse(delivery.rawBody));
}

/** The organization's delivery (of the event, when given) once it has left `pending`. */
async function settledDelivery(organizationId: number, eventId?: string) {
  return eventually(
    async () =>
      (await listDeliveries(organizationId)).find((delivery) => eventId === undefined || delivery.event_id === eventId),
    (delivery) => delivery !== undefined && delivery.status !== 'pending',
  );
}

/**
 * Whether a stack of its own has done all it will with an organization's events: each one relayed
 * (its deliveries recorded, then queued), and no message left in the deliveries queue (each one
 * taken by the worker, which deletes it once it is done with it).
 */
async function deliveryWorkDone(stack: StackProcess, organizationId: number): Promise<boolean> {
  const { environment } = stack;
  const config = {
    region: environment.AWS_REGION,
    credentials: { accessKeyId: environment.AWS_ACCESS_KEY_ID!, secretAccessKey: environment.AWS_SECRET_ACCESS_KEY! },
  };
  const dynamodb = new DynamoDBClient({ ...config, endpoint: environment.AWS_ENDPOINT_URL_DYNAMODB });
  const sqs = new SQSClient({ ...config, endpoint: environment.AWS_ENDPOINT_URL_SQS });
  try {
    const { Items: events = [] } = await dynamodb.send(
      new QueryCommand({
        TableName: environment[TABLE_NAME.variable],
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :events)',
        ExpressionAttributeValues: {
          ':pk': { S: organizationPartition(organizationId) },
          ':events': { S: EVENT_ITEM_PREFIX },
        },
        ConsistentRead: true,
      }),
    );
    const { Attributes: queue = {} } = await sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: environment[queueNamed('webhook-deliveries').urlSetting.variable],
        AttributeNames: ['All'],
      }),
    );
    const count = (attribute: QueueAttributeName) => Number(queue[attribute] ?? 0);
    const messages =
      count('ApproximateNumberOfMessages') +
      count('ApproximateNumberOfMessagesNotVisible') +
      count('ApproximateNumberOfMessagesDelayed');
    return events.length > 0 && events.every((event) => !(OUTBOX_ATTRIBUTES.shard in event)) && messages === 0;
  } finally {
    dynamodb.destroy();
    sqs.destroy();
  }
}

const receiver = new WebhookReceiver();

beforeAll(async () => {
  await receiver.start();
});

afterAll(async () => {
  await receiver.stop();
});

describe('webhook endpoints', () => {
  let organization: TestOrganization;

  beforeAll(async () => {
    organization = await createOrganization();
  });

  it('creates an endpoint with a signing secret shown once, then reads, lists, changes and deletes it', async () => {
    const created = await createEndpoint(organization, {
      url: 'https://hooks.example.com/video',
      events: ['job.completed'],
      description: 'Production',
    });
    expect(created).toMatchObject({
      id: expect.stringMatching(/^webhook_/),
      url: 'https://hooks.example.com/video',
      description: 'Production',
      events: ['job.completed'],
      status: 'active',
      failure_count: 0,
      last_success_at: null,
      last_failure_at: null,
    });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);

    const read = await call<Endpoint>('GET', `/webhooks/${created.id}`, { key: organization.key });
    expectDocumented('getWebhook', read);
    expect(read.body).not.toHaveProperty('secret');
    expect(JSON.stringify(read.body)).not.toContain(created.secret.slice(6));

    const changed = await call<Endpoint>('PATCH', `/webhooks/${created.id}`, {
      key: organization.key,
      body: { description: null, events: ['job.completed', 'job.failed'], status: 'disabled' },
    });
    expectDocumented('updateWebhook', changed);
    expect(changed.body).toMatchObject({
      description: null,
      events: ['job.completed', 'job.failed'],
      status: 'disabled',
    });

    const unchanged = await call<Endpoint>('PATCH', `/webhooks/${created.id}`, { key: organization.key, body: {} });
    expectDocumented('updateWebhook', unchanged);
    expect([unchanged.status, unchanged.body]).toEqual([200, changed.body]);

    const listed = await call<{ data: Endpoint[] }>('GET', '/webhooks', { key: organization.key });
    expectDocumented('listWebhooks', listed);
    expect(listed.body.data.map((endpoint) => endpoint.id)).toContain(created.id);

    const deleted = await call('DELETE', `/webhooks/${created.id}`, { key: organization.key });
    expect([deleted.status, deleted.body]).toEqual([204, undefined]);
    for (const [method, path] of [
      ['GET', `/webhooks/${created.id}`],
      ['PATCH', `/webhooks/${created.id}`],
      ['DELETE', `/webhooks/${created.id}`],
      ['POST', `/webhooks/${created.id}/test`],
    ] as const) {
      const after = await call<ErrorBody>(method, path, {
        key: organization.key,
        body: method === 'PATCH' ? { status: 'active' } : undefined,
      });
      expect([method, after.status, after.body.error.code]).toEqual([method, 404, 'WEBHOOK_NOT_FOUND']);
    }
    const emptyAfter = await call<ErrorBody>('PATCH', `/webhooks/${created.id}`, { key: organization.key, body: {} });
    expect([emptyAfter.status, emptyAfter.body.error.code]).toEqual([404, 'WEBHOOK_NOT_FOUND']);
    const relisted = await call<{ data: Endpoint[] }>('GET', '/webhooks', { key: organization.key });
    expect(relisted.body.data.map((endpoint) => endpoint.id)).not.toContain(created.id);
  });

  it('keeps an organization to its webhook_endpoints limit, counting only endpoints not deleted', async () => {
    const team = await createOrganization();
    const endpoints = [];
    for (let index = 0; index < 3; index += 1) {
      endpoints.push(await createEndpoint(team, { url: `https://hooks.example.com/${index}`, events: ['job.failed'] }));
    }
    const refused = await call<ErrorBody>('POST', '/webhooks', {
      key: team.key,
      body: { url: 'https://hooks.example.com/4', events: ['job.failed'] },
    });
    expect([refused.status, refused.body.error.code]).toEqual([400, 'VALIDATION_FAILED']);
    expect(refused.body.error.message).toContain('webhook_endpoints');

    expect((await call('DELETE', `/webhooks/${endpoints[0]!.id}`, { key: team.key })).status).toBe(204);
    await createEndpoint(team, { url: 'https://hooks.example.com/4', events: ['job.failed'] });

    const custom = await createOrganization({ plan: 'custom', limits: { webhook_endpoints: 4 } });
    for (let index = 0; index < 4; index += 1) {
      await createEndpoint(custom, { url: `https://hooks.example.com/${index}`, events: ['job.completed'] });
    }
    const usage = await call<{ endpoints: Record<string, number> }>('GET', '/usage/webhooks', { key: custom.key });
    expect(usage.body.endpoints).toEqual({ total: 4, active: 4, disabled: 0 });
  });

  it.each([
    ['plain http to a public host', 'http://hooks.example.com/'],
    ['a private address', 'https://10.1.2.3/hooks'],
    ['the instance metadata address', 'https://169.254.169.254/latest'],
    ['an IPv6 unique-local address', 'https://[fd00::1]/hooks'],
    ['a CGNAT address', 'https://100.64.0.1/hooks'],
    ['an IPv4-mapped IPv6 address', 'https://[::ffff:192.168.0.1]/hooks'],
    ['a user name and password', 'https://user:secret@hooks.example.com/'],
    ['http to a private address', 'http://192.168.1.10/'],
    ['not a URL', 'hooks.example.com'],
  ])('refuses %s with 400 VALIDATION_FAILED', async (_, url) => {
    const response = await call<ErrorBody>('POST', '/webhooks', {
      key: organization.key,
      body: { url, events: ['job.completed'] },
    });
    expect([response.status, response.body.error.code]).toEqual([400, 'VALIDATION_FAILED']);
  });

  it('refuses unknown events and unknown fields', async () => {
    const endpoint = await createEndpoint(organization, { url: 'https://hooks.example.com/x', events: ['job.failed'] });
    for (const [method, path, body] of [
      ['POST', '/webhooks', { url: 'https://hooks.example.com/', events: ['webhook.test'] }],
      ['POST', '/webhooks', { url: 'https://hooks.example.com/', events: [] }],
      ['POST', '/webhooks', { url: 'https://hooks.example.com/', events: ['job.failed'], secret: 'mine' }],
      ['PATCH', `/webhooks/${endpoint.id}`, { status: 'deleted' }],
      ['PATCH', `/webhooks/${endpoint.id}`, { url: 'https://192.168.0.1/' }],
    ] as const) {
      const response = await call<ErrorBody>(method, path, { key: organization.key, body });
      expect([JSON.stringify(body), response.status, response.body.error.code]).toEqual([
        JSON.stringify(body),
        400,
        'VALIDATION_FAILED',
      ]);
    }
  });

  it("answers 404 for another organization's endpoint and 403 without the write scope", async () => {
    const owner = await createOrganization();
    const endpoint = await createEndpoint(owner, { url: 'https://hooks.example.com/y', events: ['job.failed'] });
    const other = await createOrganization();
    const foreign = await call<ErrorBody>('GET', `/webhooks/${endpoint.id}`, { key: other.key });
    expect([foreign.status, foreign.body.error.code]).toEqual([404, 'WEBHOOK_NOT_FOUND']);
    const reader = await createKey(owner.organizationId, { scopes: ['webhooks:read'] });
    const denied = await call('POST', `/webhooks/${endpoint.id}/test`, { key: reader.key });
    expect(denied.status).toBe(403);
    expect((await call('GET', `/webhooks/${endpoint.id}`, { key: reader.key })).status).toBe(200);
  });

  it("answers 404 to a DELETE from an organization that never made an endpoint, at another organization's endpoint or an id of none", async () => {
    const owner = await createOrganization();
    const endpoint = await createEndpoint(owner, { url: 'https://hooks.example.com/kept', events: ['job.failed'] });
    const newcomer = await createOrganization();
    for (const id of [endpoint.id, 'webhook_00000000000000000000000000']) {
      const response = await call<ErrorBody>('DELETE', `/webhooks/${id}`, { key: newcomer.key });
      expect([id, response.status, response.body.error.code]).toEqual([id, 404, 'WEBHOOK_NOT_FOUND']);
      expectDocumented('deleteWebhook', response);
    }
    const kept = await call<Endpoint>('GET', `/webhooks/${endpoint.id}`, { key: owner.key });
    expect([kept.status, kept.body.status]).toEqual([200, 'active']);
  });
});

describe('webhook deliveries to a real receiver', () => {
  let organization: TestOrganization;
  let endpoint: Endpoint & { secret: string };

  beforeAll(async () => {
    organization = await createOrganization({ credits: 1000 });
    endpoint = await createEndpoint(organization, { url: receiver.url, events: ['job.completed', 'job.failed'] });
  });

  it('sends a signed webhook.test event that verifies with the secret, and fails verification when tampered with or late', async () => {
    const response = await call<{ delivery: { id: string; event_id: string; event_type: string; status: string } }>(
      'POST',
      `/webhooks/${endpoint.id}/test`,
      { key: organization.key },
    );
    expectDocumented('testWebhook', response);
    const eventId = response.body.delivery.event_id;
    expect(response.body.delivery).toEqual({
      id: expect.stringMatching(/^dlv_/),
      event_id: expect.stringMatching(/^evt_/),
      event_type: 'webhook.test',
      status: 'pending',
    });

    await receiver.waitFor(() => receiver.of(eventId).length > 0);
    const [delivery] = receiver.of(eventId);
    expect(delivery!.headers['service-webhook-event']).toBe('webhook.test');
    expect(delivery!.headers['content-type']).toBe('application/json');
    expect(delivery!.headers['service-webhook-signature']).toMatch(/^v1=[0-9a-f]{64}$/);
    expect(verified(delivery!, endpoint.secret)).toMatchObject({ ok: true, eventId, eventType: 'webhook.test' });
    expect(delivery!.headers).toMatchObject({
      'webhook-id': eventId,
      'webhook-timestamp': delivery!.headers['service-webhook-timestamp'],
      'webhook-signature': expect.stringMatching(/^v1,[A-Za-z0-9+/]{43}=$/),
    });
    expectVerifiedBothWays(delivery!, endpoint.secret);
    const body = JSON.parse(delivery!.rawBody) as Record<string, unknown>;
    expectPayload('WebhookTestEvent', body);
    expect(body).toMatchObject({ id: eventId, type: 'webhook.test', data: { webhook_id: endpoint.id } });

    const tampered = { ...delivery!, rawBody: delivery!.rawBody.replace('webhook.test', 'webhook.tesT') };
    expect(verified(tampered, endpoint.secret)).toEqual({ ok: false, reason: 'no_matching_signature' });
    expect(verified(delivery!, endpoint.secret, Date.now() + 301_000)).toEqual({
      ok: false,
      reason: 'timestamp_out_of_tolerance',
    });
    expect(verified(delivery!, 'whsec_not-the-secret')).toEqual({ ok: false, reason: 'no_matching_signature' });
    expect(standardVerified(tampered, endpoint.secret)).toBe('No matching signature found');
    expect(standardVerified(delivery!, 'whsec_bm90LXRoZS1zZWNyZXQ=')).toBe('No matching signature found');

    expect(await settledDelivery(organization.organizationId, eventId)).toMatchObject({
      status: 'succeeded',
      attempts: 1,
    });
    const deliveryId = response.body.delivery.id;
    const logged = await call<{ data: { id: string; event_id: string }[] }>(
      'GET',
      `/webhooks/${endpoint.id}/deliveries`,
      { key: organization.key },
    );
    expect(logged.body.data.filter((listed) => listed.event_id === eventId).map((listed) => listed.id)).toEqual([
      deliveryId,
    ]);
    const resent = await call<{ resend_of: string; event_id: string }>(
      'POST',
      `/webhooks/${endpoint.id}/deliveries/${deliveryId}/resend`,
      { key: organization.key },
    );
    expect([resent.status, resent.body.resend_of, resent.body.event_id]).toEqual([202, deliveryId, eventId]);
    await receiver.waitFor(() => receiver.of(eventId).length > 1);
    const resentDelivery = receiver.of(eventId)[1]!;
    expect(resentDelivery.rawBody).toBe(delivery!.rawBody);
    expectVerifiedBothWays(resentDelivery, endpoint.secret);
    const read = await eventually(
      () => call<Endpoint>('GET', `/webhooks/${endpoint.id}`, { key: organization.key }),
      (response) => response.body.last_success_at !== null,
    );
    expect(read.body.last_success_at).not.toBeNull();
  });

  it('signs with both secrets during a rotation overlap, and with the new one alone after it', async () => {
    const rotating = await createEndpoint(organization, { url: receiver.url, events: ['job.completed'] });
    const testDelivery = async () => {
      const tested = await call<{ delivery: { event_id: string } }>('POST', `/webhooks/${rotating.id}/test`, {
        key: organization.key,
      });
      const eventId = tested.body.delivery.event_id;
      await receiver.waitFor(() => receiver.of(eventId).length > 0);
      return receiver.of(eventId)[0]!;
    };
    const overlapSeconds = 4;
    const rotatedAt = Date.now();
    const rotated = await call<Endpoint & { secret: string; previous_secret_expires_at: string | null }>(
      'POST',
      `/webhooks/${rotating.id}/rotate-secret`,
      { key: organization.key, body: { overlap_seconds: overlapSeconds } },
    );
    expectDocumented('rotateWebhookSecret', rotated);
    const { secret: newSecret, previous_secret_expires_at: overlapEnd, ...shown } = rotated.body;
    expect(newSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(newSecret).not.toBe(rotating.secret);
    expect({ ...shown, secret: rotating.secret }).toEqual(rotating);
    expect(Math.abs(Date.parse(overlapEnd!) - (rotatedAt + overlapSeconds * 1000))).toBeLessThan(2000);

    const during = await testDelivery();
    expect(during.headers['service-webhook-signature']).toMatch(/^v1=[0-9a-f]{64} v1=[0-9a-f]{64}$/);
    expect(during.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}= v1,[A-Za-z0-9+/]{43}=$/);
    expectVerifiedBothWays(during, newSecret);
    expectVerifiedBothWays(during, rotating.secret);

    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(overlapEnd!) - Date.now()) + 100));
    const after = await testDelivery();
    expect(after.headers['service-webhook-signature']).toMatch(/^v1=[0-9a-f]{64}$/);
    expectVerifiedBothWays(after, newSecret);
    expect(verified(after, rotating.secret)).toEqual({ ok: false, reason: 'no_matching_signature' });
    expect(standardVerified(after, rotating.secret)).toBe('No matching signature found');
    await call('DELETE', `/webhooks/${rotating.id}`, { key: organization.key });
  });

  it('rotates with a day of overlap when the body is left out, and at once with overlap_seconds 0', async () => {
    const rotating = await createEndpoint(organization, { url: receiver.url, events: ['job.failed'] });
    const byDefault = await call<{ secret: string; previous_secret_expires_at: string }>(
      'POST',
      `/webhooks/${rotating.id}/rotate-secret`,
      { key: organization.key },
    );
    expect(byDefault.status).toBe(200);
    expect(Math.abs(Date.parse(byDefault.body.previous_secret_expires_at) - (Date.now() + 86_400_000))).toBeLessThan(
      5000,
    );
    const atOnce = await call<{ secret: string; previous_secret_expires_at: string | null }>(
      'POST',
      `/webhooks/${rotating.id}/rotate-secret`,
      { key: organization.key, body: { overlap_seconds: 0 } },
    );
    expect(atOnce.body.previous_secret_expires_at).toBeNull();
    const tested = await call<{ delivery: { event_id: string } }>('POST', `/webhooks/${rotating.id}/test`, {
      key: organization.key,
    });
    await receiver.waitFor(() => receiver.of(tested.body.delivery.event_id).length > 0);
    const delivery = receiver.of(tested.body.delivery.event_id)[0]!;
    expect(delivery.headers['service-webhook-signature']).toMatch(/^v1=[0-9a-f]{64}$/);
    expect(verified(delivery, atOnce.body.secret)).toMatchObject({ ok: true });
    expect(verified(delivery, byDefault.body.secret)).toEqual({ ok: false, reason: 'no_matching_signature' });

    for (const overlap of [-1, 604_801, 1.5, '60']) {
      const refused = await call<ErrorBody>('POST', `/webhooks/${rotating.id}/rotate-secret`, {
        key: organization.key,
        body: { overlap_seconds: overlap },
      });
      expect([overlap, refused.status, refused.body.error.code]).toEqual([overlap, 400, 'VALIDATION_FAILED']);
    }
    await call('DELETE', `/webhooks/${rotating.id}`, { key: organization.key });
  });

  it("refuses to rotate a deleted or another organization's endpoint, and without the write scope", async () => {
    const rotating = await createEndpoint(organization, { url: receiver.url, events: ['job.failed'] });
    const other = await createOrganization();
    const foreign = await call<ErrorBody>('POST', `/webhooks/${rotating.id}/rotate-secret`, { key: other.key });
    expect([foreign.status, foreign.body.error.code]).toEqual([404, 'WEBHOOK_NOT_FOUND']);
    const reader = await createKey(organization.organizationId, { scopes: ['webhooks:read'] });
    const denied = await call('POST', `/webhooks/${rotating.id}/rotate-secret`, { key: reader.key });
    expect(denied.status).toBe(403);
    await call('DELETE', `/webhooks/${rotating.id}`, { key: organization.key });
    const deleted = await call<ErrorBody>('POST', `/webhooks/${rotating.id}/rotate-secret`, { key: organization.key });
    expect([deleted.status, deleted.body.error.code]).toEqual([404, 'WEBHOOK_NOT_FOUND']);
  });

  it('delivers job.completed and job.failed, per the spec, with API paths and no signed URLs', async () => {
    const completed = await call<{ id: string }>('POST', '/video-jobs', {
      key: organization.key,
      body: { prompt: 'A lighthouse at dawn', duration_seconds: 5 },
    });
    const failed = await call<{ id: string }>('POST', '/video-jobs', {
      key: organization.key,
      body: { prompt: 'A render that fails [fault:fail]', duration_seconds: 5 },
    });
    const [{ job: completedJob }] = await Promise.all([
      waitForJob(organization.key, completed.body.id),
      waitForJob(organization.key, failed.body.id),
    ]);
    expect(completedJob.status).toBe('completed');
    const jobOf = (delivery: ReceivedDelivery) =>
      (JSON.parse(delivery.rawBody) as { data: { job?: { id: string } } }).data.job?.id;
    await receiver.waitFor((received) => {
      const ids = received.map(jobOf);
      return ids.includes(completed.body.id) && ids.includes(failed.body.id);
    });

    const completedDelivery = receiver.received.find((delivery) => jobOf(delivery) === completed.body.id)!;
    expectVerifiedBothWays(completedDelivery, endpoint.secret);
    const completedEvent = JSON.parse(completedDelivery.rawBody) as Record<string, unknown>;
    expectPayload('JobCompletedEvent', completedEvent);
    expect(completedEvent).toEqual({
      id: completedDelivery.headers['service-webhook-id'],
      type: 'job.completed',
      created_at: expect.any(String),
      data: {
        job: {
          id: completed.body.id,
          type: 'video',
          status: 'completed',
          result_url: `/api/v1/developer/video-jobs/${completed.body.id}/result`,
          asset_id: completedJob.result.asset_id,
        },
      },
    });
    expect(completedDelivery.rawBody).not.toMatch(/X-Amz-|https?:\/\//);

    const failedDelivery = receiver.received.find((delivery) => jobOf(delivery) === failed.body.id)!;
    expectVerifiedBothWays(failedDelivery, endpoint.secret);
    const failedEvent = JSON.parse(failedDelivery.rawBody) as { type: string; data: { job: Record<string, unknown> } };
    expectPayload('JobFailedEvent', failedEvent);
    expect(failedEvent.type).toBe('job.failed');
    expect(failedEvent.data.job).toMatchObject({
      id: failed.body.id,
      type: 'video',
      status: 'failed',
      error: { code: 'RENDER_FAILED' },
    });
  });

  it('retries a receiver that fails the first attempts, with the same event id, until it answers 2xx', async () => {
    const flaky = await createOrganization();
    const flakyEndpoint = await createEndpoint(flaky, { url: receiver.url, events: ['job.completed'] });
    receiver.answerWith((attempt) => ({ status: attempt <= 2 ? 500 : 200 }));
    try {
      const test = await call<{ delivery: { event_id: string } }>('POST', `/webhooks/${flakyEndpoint.id}/test`, {
        key: flaky.key,
      });
      const eventId = test.body.delivery.event_id;
      await receiver.waitFor(() => receiver.of(eventId).some((delivery) => delivery.status === 200));
      const attempts = receiver.of(eventId);
      expect(attempts.map((delivery) => delivery.status)).toEqual([500, 500, 200]);
      expect(new Set(attempts.map((delivery) => delivery.headers['service-webhook-id']))).toEqual(new Set([eventId]));
      expect(new Set(attempts.map((delivery) => delivery.rawBody)).size).toBe(1);
      for (const attempt of attempts) expect(verified(attempt, flakyEndpoint.secret).ok).toBe(true);

      const recorded = await settledDelivery(flaky.organizationId);
      expect(recorded).toMatchObject({ status: 'succeeded', attempts: 3 });
      expect(recorded!.attempt_log.map((entry) => entry.status_code)).toEqual([500, 500, 200]);
      const read = await eventually(
        () => call<Endpoint>('GET', `/webhooks/${flakyEndpoint.id}`, { key: flaky.key }),
        (response) => response.body.last_success_at !== null,
      );
      expect(read.body).toMatchObject({
        failure_count: 0,
        last_failure_at: expect.any(String),
        last_success_at: expect.any(String),
      });
    } finally {
      receiver.answerWith(() => ({ status: 204 }));
    }
  });

  it('honours Retry-After on a 429', async () => {
    const busy = await createOrganization();
    const busyEndpoint = await createEndpoint(busy, { url: receiver.url, events: ['job.failed'] });
    receiver.answerWith((attempt) =>
      attempt === 1 ? { status: 429, headers: { 'Retry-After': '3' } } : { status: 204 },
    );
    try {
      const test = await call<{ delivery: { event_id: string } }>('POST', `/webhooks/${busyEndpoint.id}/test`, {
        key: busy.key,
      });
      const eventId = test.body.delivery.event_id;
      await receiver.waitFor(() => receiver.of(eventId).length >= 2);
      const [first, second] = receiver.of(eventId);
      expect(second!.receivedAtMs - first!.receivedAtMs).toBeGreaterThanOrEqual(2900);
    } finally {
      receiver.answerWith(() => ({ status: 204 }));
    }
  });

  it('attempts a delivery now when an operator runs the retries, whatever its schedule', async () => {
    const waiting = await createOrganization();
    const waitingEndpoint = await createEndpoint(waiting, { url: receiver.url, events: ['job.failed'] });
    receiver.answerWith((attempt) =>
      attempt === 1 ? { status: 503, headers: { 'Retry-After': '3600' } } : { status: 204 },
    );
    try {
      const test = await call<{ delivery: { event_id: string } }>('POST', `/webhooks/${waitingEndpoint.id}/test`, {
        key: waiting.key,
      });
      const eventId = test.body.delivery.event_id;
      await receiver.waitFor(() => receiver.of(eventId).length >= 1);
      const [pending] = await eventually(
        () => listDeliveries(waiting.organizationId),
        ([delivery]) => delivery?.attempts === 1,
      );
      expect(Date.parse(pending!.next_attempt_at) - Date.now()).toBeGreaterThan(3_000_000);

      const run = await runAdmin(process.env.IT_DATA_DIR!, ['webhooks', 'retry', '--json']);
      expect(run.code).toBe(0);
      expect((JSON.parse(run.stdout) as { deliveries_queued: number }).deliveries_queued).toBeGreaterThanOrEqual(1);
      await receiver.waitFor(() => receiver.of(eventId).length >= 2);
      expect(receiver.of(eventId).map((delivery) => delivery.status)).toEqual([503, 204]);
      expect(await settledDelivery(waiting.organizationId)).toMatchObject({ status: 'succeeded', attempts: 2 });
    } finally {
      receiver.answerWith(() => ({ status: 204 }));
    }
  });

  it('ends a delivery that never gets a 2xx as failed after 6 attempts, all recorded and counted', async () => {
    const broken = await createOrganization();
    const brokenEndpoint = await createEndpoint(broken, { url: receiver.url, events: ['job.completed'] });
    const test = await call<{ delivery: { event_id: string } }>('POST', `/webhooks/${brokenEndpoint.id}/test`, {
      key: broken.key,
    });
    const eventId = test.body.delivery.event_id;
    receiver.answerWith((attempt, id) => ({ status: id === eventId ? 503 : 204 }));
    try {
      await receiver.waitFor(() => receiver.of(eventId).length >= 6, 60_000);
      const recorded = await settledDelivery(broken.organizationId);
      expect(recorded).toMatchObject({ status: 'failed', attempts: 6, failure_reason: 'attempts_exhausted' });
      expect(recorded!.attempt_log.map((entry) => entry.status_code)).toEqual([503, 503, 503, 503, 503, 503]);
      // Each attempt is logged with the receiver's answer, and the worker claims an attempt only of a
      // pending delivery: the six received are all there will be.
      expect(receiver.of(eventId)).toHaveLength(6);

      const read = await eventually(
        () => call<Endpoint>('GET', `/webhooks/${brokenEndpoint.id}`, { key: broken.key }),
        (response) => response.body.failure_count === 6,
      );
      expect(read.body).toMatchObject({ failure_count: 6, status: 'active', last_success_at: null });
      const usage = await call<{ deliveries: Record<string, number> }>('GET', '/usage/webhooks', { key: broken.key });
      expect(usage.body.deliveries).toEqual({ total: 1, succeeded: 0, failed: 1, pending: 0 });
    } finally {
      receiver.answerWith(() => ({ status: 204 }));
    }
  });

  it('disables an endpoint whose receiver answers 410 Gone', async () => {
    const gone = await createOrganization();
    const goneEndpoint = await createEndpoint(gone, { url: receiver.url, events: ['job.completed'] });
    const test = await call<{ delivery: { event_id: string } }>('POST', `/webhooks/${goneEndpoint.id}/test`, {
      key: gone.key,
    });
    const eventId = test.body.delivery.event_id;
    receiver.answerWith((_, id) => ({ status: id === eventId ? 410 : 204 }));
    try {
      await receiver.waitFor(() => receiver.of(eventId).length >= 1);
      const read = await eventually(
        () => call<Endpoint>('GET', `/webhooks/${goneEndpoint.id}`, { key: gone.key }),
        (response) => response.body.status === 'disabled',
      );
      expect(read.body.status).toBe('disabled');
    } finally {
      receiver.answerWith(() => ({ status: 204 }));
    }
  });

  it('sends nothing to a disabled endpoint or to one not subscribed to the event', async () => {
    const quiet = await createOrganization();
    const disabled = await createEndpoint(quiet, {
      url: `${receiver.url}/disabled`,
      events: ['job.completed', 'job.failed'],
    });
    await call('PATCH', `/webhooks/${disabled.id}`, { key: quiet.key, body: { status: 'disabled' } });
    const unsubscribed = await createEndpoint(quiet, {
      url: `${receiver.url}/unsubscribed`,
      events: ['job.completed'],
    });
    const listening = await createEndpoint(quiet, { url: `${receiver.url}/listening`, events: ['job.failed'] });

    const job = await call<{ id: string }>('POST', '/video-jobs', {
      key: quiet.key,
      body: { prompt: 'Nobody hears this [fault:fail]', duration_seconds: 5 },
    });
    await waitForJob(quiet.key, job.body.id);
    const mentions = (delivery: ReceivedDelivery) => delivery.rawBody.includes(job.body.id);
    await receiver.waitFor((received) => received.some(mentions));
    // The job's one event was written as it ended, and the relay records every delivery of an event
    // before it queues any: once one has arrived, the recorded deliveries are all there will be, and
    // a delivery no longer pending is sent no more.
    const recorded = await eventually(
      () => listDeliveries(quiet.organizationId),
      (deliveries) => deliveries.every((delivery) => delivery.status !== 'pending'),
    );
    expect(recorded.map((delivery) => [delivery.webhook_id, delivery.status])).toEqual([[listening.id, 'succeeded']]);
    expect(recorded.map((delivery) => delivery.webhook_id)).not.toContain(unsubscribed.id);
    expect(receiver.received.filter(mentions).map((delivery) => delivery.path)).toEqual(['/hooks/listening']);
  });

  it('ends every test answered before its endpoint is deleted: sent, or failed endpoint_deleted, none lost', async () => {
    const tester = await createOrganization();
    const deleting = await createEndpoint(tester, { url: `${receiver.url}/deleted-soon`, events: ['job.completed'] });
    const tests = await Promise.all(
      Array.from({ length: 10 }, () =>
        call<{ delivery: { status: string } }>('POST', `/webhooks/${deleting.id}/test`, { key: tester.key }),
      ),
    );
    expect(tests.map((test) => [test.status, test.body.delivery.status])).toEqual(Array(10).fill([200, 'pending']));
    expect((await call('DELETE', `/webhooks/${deleting.id}`, { key: tester.key })).status).toBe(204);

    const events = await call<{ data: { id: string }[] }>('GET', '/events?type=webhook.test', { key: tester.key });
    expect(events.body.data).toHaveLength(10);
    const usage = await eventually(
      () => call<{ deliveries: Record<string, number> }>('GET', '/usage/webhooks', { key: tester.key }),
      (response) => response.body.deliveries?.total === 10 && response.body.deliveries.pending === 0,
      { everyMs: 500 },
    );
    expect(usage.body.deliveries).toMatchObject({ total: 10, pending: 0 });
    const deliveries = await listDeliveries(tester.organizationId);
    expect(deliveries.map((delivery) => delivery.event_id).sort()).toEqual(
      events.body.data.map((event) => event.id).sort(),
    );
    for (const delivery of deliveries) {
      const received = receiver.of(delivery.event_id).length;
      expect([delivery.status, delivery.failure_reason, received]).toEqual(
        delivery.status === 'succeeded' ? ['succeeded', undefined, 1] : ['failed', 'endpoint_deleted', 0],
      );
    }
  });
});

describe('a local stack stopped between a job ending and its delivery', () => {
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await stackDataDir('webhook-restart-');
  });

  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  async function admin(...args: string[]) {
    const { code, stdout, stderr } = await runAdmin(dataDir, [...args, '--json']);
    return { code, stderr, body: code === 0 ? (JSON.parse(stdout) as Record<string, unknown>) : undefined };
  }

  // Two starts of a local stack of its own, and a job in between: a longer time-out.
  it('keeps the delivery pending while delivery is switched off, and delivers it after a restart with it on', async () => {
    const off = await startStackProcess(dataDir, { DEVELOPER_WEBHOOK_DELIVERY_ENABLED: 'false' });
    let key: string;
    let secret: string;
    let jobId: string;
    try {
      const organization = (await admin('org', 'create', '--plan', 'team', '--credits', '100')).body!;
      key = ((await admin('key', 'create', '--org', String(organization.organization_id))).body as { key: string }).key;
      const request = (method: string, path: string, body?: unknown) =>
        fetch(`${off.apiUrl}${path}`, {
          method,
          headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        }).then(async (response) => (await response.json()) as Record<string, unknown>);
      secret = (await request('POST', '/webhooks', { url: receiver.url, events: ['job.failed'] })).secret as string;
      jobId = (
        await request('POST', '/video-jobs', { prompt: 'Ends while nobody sends [fault:fail]', duration_seconds: 5 })
      ).id as string;
      await eventually(
        () => request('GET', `/video-jobs/${jobId}`),
        (job) => job.status === 'failed',
        { timeoutMs: 60_000, everyMs: 250 },
      );
      // Anything the worker sends is received before it is done with the message that named it.
      expect(
        await eventually(
          () => deliveryWorkDone(off, Number(organization.organization_id)),
          (done) => done,
        ),
      ).toBe(true);
      expect(receiver.received.filter((delivery) => delivery.rawBody.includes(jobId))).toEqual([]);
      expect((await request('GET', '/usage/webhooks')).deliveries).toEqual({
        total: 1,
        succeeded: 0,
        failed: 0,
        pending: 1,
      });
      const refused = await admin('webhooks', 'retry');
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('DEVELOPER_WEBHOOK_DELIVERY_ENABLED');
    } finally {
      await stopStackProcess(off);
    }

    const on = await startStackProcess(dataDir, { DEVELOPER_WEBHOOK_DELIVERY_ENABLED: 'true' });
    try {
      await receiver.waitFor((received) => received.some((delivery) => delivery.rawBody.includes(jobId)));
      const delivered = receiver.received.filter((delivery) => delivery.rawBody.includes(jobId));
      expect(delivered).toHaveLength(1);
      expect(verified(delivered[0]!, secret).ok).toBe(true);
      expect(JSON.parse(delivered[0]!.rawBody)).toMatchObject({ type: 'job.failed', data: { job: { id: jobId } } });
      const retried = await admin('webhooks', 'retry');
      expect(retried).toMatchObject({ code: 0, body: { events_relayed: 0, deliveries_queued: 0 } });
    } finally {
      await stopStackProcess(on);
    }
  }, 240_000);
});
