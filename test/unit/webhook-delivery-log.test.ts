import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import {
  DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  TransactWriteCommand,
  type QueryCommandInput,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import fc from 'fast-check';
import type { EventType, Operations, WebhookDelivery } from '#contract/types';
import type { Caller } from '#domain/access/authentication';
import type { DeliveryStatus } from '#domain/usage/usage-store';
import { DELIVERIES_READ_PER_PAGE, listWebhookDeliveries } from '#domain/webhooks/delivery-log';
import {
  RECOVER_READS_PER_REQUEST,
  RECOVER_RESENDS_PER_REQUEST,
  recoverWebhookDeliveries,
  resendWebhookDelivery,
} from '#domain/webhooks/delivery-replay';
import { DELIVERY_RETENTION_DAYS, deliveryRefOf } from '#domain/webhooks/delivery-store';
import { sortableId } from '#platform/ids';
import { DAY_MS } from '#platform/instants';
import { deferred } from './support/deferred';
import { keyOf } from './support/transactions';

process.env.TABLE_NAME = 'table';
process.env.AWS_REGION = 'us-east-1';
process.env.CURSOR_KEY_LOCAL = `local-1:${Buffer.from('a cursor key for the tests').toString('base64')}`;
process.env.WEBHOOK_DELIVERIES_QUEUE_URL = 'http://queue.local/000000000000/webhook-deliveries';

const dynamo = mockClient(DynamoDBDocumentClient);
const sqs = mockClient(SQSClient);

const ORGANIZATION = 7;
const NOW = Date.parse('2026-11-25T12:00:00.000Z');
const RETENTION_MS = DELIVERY_RETENTION_DAYS * DAY_MS;
const WEBHOOK_ID = sortableId('webhook_', NOW - 40 * DAY_MS);
const OTHER_WEBHOOK_ID = sortableId('webhook_', NOW - 40 * DAY_MS);
const caller = (organizationId = ORGANIZATION) => ({ organization: { organizationId } }) as Caller;

type ItemKey = { pk: string; sk: string };
type Item = Record<string, unknown> & ItemKey;

/**
 * The table as DynamoDB answers what the delivery log sends: GetItem of an endpoint, Query of
 * gsi1 (the key range or one delivery id, in either order, after the start key, `Limit` items
 * evaluated, then the filter), and TransactWriteItems of a resend with its conditions. Every
 * Query's evaluated items are counted.
 */
class DeliveryTable {
  readonly items: Item[] = [];
  readonly reads: number[] = [];

  constructor() {
    dynamo.on(GetCommand).callsFake(({ Key }: { Key: ItemKey }) => this.get(Key));
    dynamo.on(QueryCommand).callsFake((input: QueryCommandInput) => this.query(input));
    dynamo.on(TransactWriteCommand).callsFake((input: TransactWriteCommandInput) => this.transact(input));
  }

  private get(key: ItemKey) {
    return { Item: this.items.find((item) => item.pk === key.pk && item.sk === key.sk) };
  }

  /** Holds every GetItem (an endpoint's read) until the function answered is called. */
  holdGets(): () => void {
    const held = deferred();
    dynamo.on(GetCommand).callsFake(async ({ Key }: { Key: ItemKey }) => {
      await held.promise;
      return this.get(Key);
    });
    return () => held.resolve();
  }

  endpoint(webhookId: string, status: 'active' | 'disabled' | 'deleted', organizationId = ORGANIZATION) {
    this.items.push({
      pk: `ORG#${organizationId}`,
      sk: `WEBHOOK#${webhookId}`,
      webhook_id: webhookId,
      organization_id: organizationId,
      url: 'https://receiver.example/hooks',
      events: ['job.completed', 'job.failed'],
      status,
      failure_count: 0,
      created_at: new Date(NOW - 40 * DAY_MS).toISOString(),
      updated_at: new Date(NOW - 40 * DAY_MS).toISOString(),
    });
  }

  /** A first delivery of a new event to the endpoint, as the relay records it, and what became of it. */
  delivery(
    webhookId: string,
    createdAtMs: number,
    status: DeliveryStatus,
    eventType: EventType = 'job.completed',
    extra: Record<string, unknown> = {},
  ): Item {
    const eventId = sortableId('evt_', createdAtMs);
    const deliveryId = sortableId('dlv_', createdAtMs);
    const item: Item = {
      pk: `ORG#${ORGANIZATION}`,
      sk: `DELIVERY#${eventId}#${webhookId}`,
      organization_id: ORGANIZATION,
      event_id: eventId,
      webhook_id: webhookId,
      delivery_id: deliveryId,
      event_type: eventType,
      body: JSON.stringify({ id: eventId, type: eventType }),
      status,
      attempts: status === 'pending' ? 0 : 1,
      attempt_log:
        status === 'pending'
          ? []
          : [
              {
                at: new Date(createdAtMs).toISOString(),
                status_code: status === 'succeeded' ? 200 : 500,
                duration_ms: 12,
                response_body: 'no',
              },
            ],
      next_attempt_at: new Date(createdAtMs).toISOString(),
      ...(status === 'failed' ? { failure_reason: 'attempts_exhausted' } : {}),
      created_at: new Date(createdAtMs).toISOString(),
      updated_at: new Date(createdAtMs).toISOString(),
      expires_at: Math.floor((createdAtMs + RETENTION_MS) / 1000),
      gsi1pk: `ORG#${ORGANIZATION}#WEBHOOK#${webhookId}#DELIVERIES`,
      gsi1sk: deliveryId,
      ...extra,
    };
    this.items.push(item);
    return item;
  }

  private query(input: QueryCommandInput) {
    const values = input.ExpressionAttributeValues as Record<string, string | number>;
    const filter = input.FilterExpression ?? '';
    const start = input.ExclusiveStartKey?.gsi1sk as string | undefined;
    if (input.IndexName !== 'gsi1' || input.ConsistentRead)
      throw new Error(`Not a gsi1 Query: ${JSON.stringify(input)}`);
    const newestFirst = input.ScanIndexForward === false;
    const matchesKey = (sortKey: string) =>
      values[':equals'] !== undefined
        ? sortKey === values[':equals']
        : sortKey >= String(values[':from']) && sortKey <= String(values[':to']);
    if (start !== undefined && !matchesKey(start)) {
      throw new Error('The provided starting key is outside query boundaries based on provided conditions');
    }
    const inRange = this.items
      .filter((item) => item.gsi1pk === values[':partition'] && matchesKey(String(item.gsi1sk)))
      .filter(
        (item) => start === undefined || (newestFirst ? String(item.gsi1sk) < start : String(item.gsi1sk) > start),
      )
      .sort((a, b) => (String(a.gsi1sk) < String(b.gsi1sk) ? -1 : 1) * (newestFirst ? -1 : 1));
    const evaluated = input.Limit === undefined ? inRange : inRange.slice(0, input.Limit);
    this.reads.push(evaluated.length);
    const selected = evaluated.filter(
      (item) =>
        Number(item.expires_at) > Number(values[':retained']) &&
        (values[':status'] === undefined || item.status === values[':status']) &&
        (values[':event_type'] === undefined || item.event_type === values[':event_type']) &&
        (!filter.includes('attribute_not_exists(resent_as)') || item.resent_as === undefined),
    );
    const last = evaluated.at(-1);
    return {
      Items: selected.map((item) => ({ ...item })),
      ScannedCount: evaluated.length,
      ...(evaluated.length === input.Limit && last
        ? { LastEvaluatedKey: { pk: last.pk, sk: last.sk, gsi1pk: last.gsi1pk, gsi1sk: last.gsi1sk } }
        : {}),
    };
  }

  private transact(input: TransactWriteCommandInput) {
    const writes = input.TransactItems ?? [];
    const find = (key: { pk: string; sk: string }) =>
      this.items.find((item) => item.pk === key.pk && item.sk === key.sk);
    const reasons = writes.map((write) => {
      const key = keyOf(write);
      if (key.sk.startsWith('USAGE') || !key.sk.startsWith('DELIVERY#')) return true;
      const stored = find(key);
      if (write.Put) return stored === undefined;
      const condition = write.Update?.ConditionExpression ?? '';
      if (!stored) return false;
      if (condition.includes(':failed')) return stored.status === 'failed' && stored.resent_as === undefined;
      return true;
    });
    if (reasons.some((passed) => !passed)) {
      throw new TransactionCanceledException({
        message: 'Transaction cancelled',
        $metadata: {},
        CancellationReasons: reasons.map((passed) => ({ Code: passed ? 'None' : 'ConditionalCheckFailed' })),
      });
    }
    for (const write of writes) {
      const key = keyOf(write);
      if (!key.sk.startsWith('DELIVERY#')) continue;
      if (write.Put) this.items.push({ ...(write.Put.Item as Item) });
      else find(key)!.resent_as = write.Update!.ExpressionAttributeValues![':resend'];
    }
    return {};
  }
}

let table: DeliveryTable;

beforeEach(() => {
  dynamo.reset();
  sqs.reset();
  sqs.on(SendMessageBatchCommand).resolves({});
  table = new DeliveryTable();
});

type Query = Operations['listWebhookDeliveries']['query'];

async function everyPage(query: Omit<Query, 'cursor'>, organizationId = ORGANIZATION): Promise<WebhookDelivery[][]> {
  const pages: WebhookDelivery[][] = [];
  let cursor: string | undefined;
  do {
    const page = await listWebhookDeliveries(
      caller(organizationId),
      WEBHOOK_ID,
      { ...query, ...(cursor === undefined ? {} : { cursor }) },
      NOW,
    );
    pages.push(page.deliveries);
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
  return pages;
}

const queuedMessages = () =>
  sqs
    .commandCalls(SendMessageBatchCommand)
    .flatMap((call) => call.args[0].input.Entries ?? [])
    .map((entry) => JSON.parse(entry.MessageBody ?? '{}') as Record<string, unknown>);

const STATUSES: DeliveryStatus[] = ['pending', 'succeeded', 'failed'];
const EVENT_TYPES: EventType[] = ['job.completed', 'job.failed', 'webhook.test'];

describe('the delivery log (GET /webhooks/{id}/deliveries)', () => {
  it('pages through exactly the retained deliveries the filters select, newest first, whatever the limit', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            ageMs: fc.oneof(
              fc.integer({ min: 0, max: 31 * DAY_MS }),
              fc.integer({ min: RETENTION_MS - 3000, max: RETENTION_MS + 3000 }),
            ),
            status: fc.constantFrom(...STATUSES),
            type: fc.constantFrom(...EVENT_TYPES),
            endpoint: fc.constantFrom(WEBHOOK_ID, WEBHOOK_ID, OTHER_WEBHOOK_ID),
          }),
          { maxLength: 40 },
        ),
        fc.record(
          { status: fc.constantFrom(...STATUSES), event_type: fc.constantFrom(...EVENT_TYPES) },
          { requiredKeys: [] },
        ),
        fc.integer({ min: 1, max: 7 }),
        async (deliveries, filters, limit) => {
          dynamo.reset();
          table = new DeliveryTable();
          table.endpoint(WEBHOOK_ID, 'active');
          const stored = deliveries.map(({ ageMs, status, type, endpoint }) =>
            table.delivery(endpoint, NOW - ageMs, status, type),
          );

          const pages = await everyPage({ ...filters, limit });

          const expected = stored
            .filter(
              (item) =>
                item.webhook_id === WEBHOOK_ID &&
                Number(item.expires_at) > Math.floor(NOW / 1000) &&
                (filters.status === undefined || item.status === filters.status) &&
                (filters.event_type === undefined || item.event_type === filters.event_type),
            )
            .map((item) => String(item.delivery_id))
            .sort()
            .reverse();
          expect(pages.flat().map((delivery) => delivery.id)).toEqual(expected);
          for (const page of pages) expect(page.length).toBeLessThanOrEqual(limit);
          // Without filters only the last page is short.
          const unfiltered = filters.status === undefined && filters.event_type === undefined;
          const shortBeforeTheLast = pages.slice(0, -1).filter((page) => page.length < limit);
          expect(unfiltered ? shortBeforeTheLast : []).toEqual([]);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('shows each attempt with its status or error, duration and response excerpt, and no next attempt once ended', async () => {
    table.endpoint(WEBHOOK_ID, 'active');
    const failed = table.delivery(WEBHOOK_ID, NOW - 60_000, 'failed', 'job.failed', {
      attempt_log: [
        { at: '2026-11-25T11:59:00.000Z', status_code: 500, duration_ms: 31, response_body: '{"error":"down"}' },
        { at: '2026-11-25T11:59:05.000Z', error: 'timeout', duration_ms: 10000 },
      ],
    });
    table.delivery(WEBHOOK_ID, NOW - 1000, 'pending');

    const page = await listWebhookDeliveries(caller(), WEBHOOK_ID, { limit: 25 }, NOW);

    expect(page.deliveries[0]).toMatchObject({ status: 'pending', next_attempt_at: expect.any(String), attempts: [] });
    expect(page.deliveries[1]).toEqual({
      id: failed.delivery_id,
      event_id: failed.event_id,
      event_type: 'job.failed',
      status: 'failed',
      next_attempt_at: null,
      failure_reason: 'attempts_exhausted',
      resend_of: null,
      created_at: failed.created_at,
      attempts: [
        {
          at: '2026-11-25T11:59:00.000Z',
          status_code: 500,
          error: null,
          duration_ms: 31,
          response_body: '{"error":"down"}',
        },
        {
          at: '2026-11-25T11:59:05.000Z',
          status_code: null,
          error: 'timeout',
          duration_ms: 10000,
          response_body: null,
        },
      ],
    });
  });

  it('reads at most DELIVERIES_READ_PER_PAGE items for a filtered page, and goes on with a cursor', async () => {
    table.endpoint(WEBHOOK_ID, 'active');
    for (let index = 0; index < DELIVERIES_READ_PER_PAGE + 5; index += 1) {
      table.delivery(WEBHOOK_ID, NOW - 10 * DAY_MS + index * 1000, 'succeeded');
    }
    const oldestFailed = table.delivery(WEBHOOK_ID, NOW - 11 * DAY_MS, 'failed');

    const first = await listWebhookDeliveries(caller(), WEBHOOK_ID, { status: 'failed', limit: 25 }, NOW);
    expect(first.deliveries).toEqual([]);
    expect(first.nextCursor).not.toBeNull();
    expect(table.reads.reduce((sum, read) => sum + read, 0)).toBe(DELIVERIES_READ_PER_PAGE);

    const second = await listWebhookDeliveries(
      caller(),
      WEBHOOK_ID,
      { status: 'failed', limit: 25, cursor: first.nextCursor! },
      NOW,
    );
    expect(second.deliveries.map((delivery) => delivery.id)).toEqual([oldestFailed.delivery_id]);
    expect(second.nextCursor).toBeNull();
  });

  it('refuses a cursor with other filters, for another endpoint or from another organization', async () => {
    table.endpoint(WEBHOOK_ID, 'active');
    table.endpoint(OTHER_WEBHOOK_ID, 'active');
    table.endpoint(WEBHOOK_ID, 'active', 8);
    for (let index = 0; index < 3; index += 1) table.delivery(WEBHOOK_ID, NOW - index * 1000, 'failed');
    const { nextCursor } = await listWebhookDeliveries(caller(), WEBHOOK_ID, { limit: 1 }, NOW);
    const cursor = nextCursor!;

    const refusals = [
      listWebhookDeliveries(caller(), WEBHOOK_ID, { limit: 1, cursor, status: 'failed' }, NOW),
      listWebhookDeliveries(caller(), WEBHOOK_ID, { limit: 1, cursor, event_type: 'job.completed' }, NOW),
      listWebhookDeliveries(caller(), OTHER_WEBHOOK_ID, { limit: 1, cursor }, NOW),
      listWebhookDeliveries(caller(8), WEBHOOK_ID, { limit: 1, cursor }, NOW),
    ];
    for (const refusal of refusals) await expect(refusal).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
  });

  it("answers WEBHOOK_NOT_FOUND for a deleted endpoint, another organization's or an unknown id", async () => {
    table.endpoint(WEBHOOK_ID, 'deleted');
    table.endpoint(OTHER_WEBHOOK_ID, 'active', 8);

    for (const [organizationId, webhookId] of [
      [ORGANIZATION, WEBHOOK_ID],
      [ORGANIZATION, OTHER_WEBHOOK_ID],
      [ORGANIZATION, 'webhook_nope'],
    ] as const) {
      await expect(listWebhookDeliveries(caller(organizationId), webhookId, { limit: 5 }, NOW)).rejects.toMatchObject({
        code: 'WEBHOOK_NOT_FOUND',
      });
    }
  });
});

describe('resending one delivery (POST /webhooks/{id}/deliveries/{delivery_id}/resend)', () => {
  it('records a new pending delivery of the same event and body, marks the source and queues the resend', async () => {
    table.endpoint(WEBHOOK_ID, 'active');
    const source = table.delivery(WEBHOOK_ID, NOW - DAY_MS, 'succeeded');

    const resend = await resendWebhookDelivery(caller(), WEBHOOK_ID, String(source.delivery_id), new Date(NOW));

    expect(resend).toMatchObject({
      event_id: source.event_id,
      event_type: source.event_type,
      status: 'pending',
      resend_of: source.delivery_id,
      attempts: [],
      created_at: new Date(NOW).toISOString(),
    });
    expect(resend.id).toMatch(/^dlv_/);
    expect(resend.id).not.toBe(source.delivery_id);
    const stored = table.items.find((item) => item.delivery_id === resend.id)!;
    expect(stored).toMatchObject({
      body: source.body,
      sk: `${source.sk}#${resend.id}`,
      outbox_shard: expect.any(String),
    });
    expect(source.resent_as).toBe(resend.id);
    expect(queuedMessages()).toEqual([
      { organization_id: ORGANIZATION, event_id: source.event_id, webhook_id: WEBHOOK_ID, resend_id: resend.id },
    ]);
  });

  it("keeps the resend's key readable by the sweeper, which finds pending deliveries by their keys", async () => {
    table.endpoint(WEBHOOK_ID, 'active');
    const source = table.delivery(WEBHOOK_ID, NOW - DAY_MS, 'failed');

    const resend = await resendWebhookDelivery(caller(), WEBHOOK_ID, String(source.delivery_id), new Date(NOW));

    const stored = table.items.find((item) => item.delivery_id === resend.id)!;
    expect(deliveryRefOf(ORGANIZATION, stored.sk)).toEqual({
      organizationId: ORGANIZATION,
      eventId: source.event_id,
      webhookId: WEBHOOK_ID,
      resendId: resend.id,
    });
    expect(deliveryRefOf(ORGANIZATION, source.sk)).toEqual({
      organizationId: ORGANIZATION,
      eventId: source.event_id,
      webhookId: WEBHOOK_ID,
    });
  });

  it('resends a delivery again however often it is asked, each time as a new delivery', async () => {
    table.endpoint(WEBHOOK_ID, 'active');
    const source = table.delivery(WEBHOOK_ID, NOW - DAY_MS, 'failed');

    const first = await resendWebhookDelivery(caller(), WEBHOOK_ID, String(source.delivery_id), new Date(NOW));
    const second = await resendWebhookDelivery(caller(), WEBHOOK_ID, String(source.delivery_id), new Date(NOW));

    expect(first.id).not.toBe(second.id);
    expect(queuedMessages()).toHaveLength(2);
  });

  it("answers DELIVERY_NOT_FOUND for another endpoint's delivery, an unknown id or one past the retention", async () => {
    table.endpoint(WEBHOOK_ID, 'active');
    const others = table.delivery(OTHER_WEBHOOK_ID, NOW - DAY_MS, 'failed');
    const expired = table.delivery(WEBHOOK_ID, NOW - RETENTION_MS - 5000, 'failed');

    for (const deliveryId of [others.delivery_id, expired.delivery_id, sortableId('dlv_', NOW), 'dlv_nope', 'evt_x']) {
      await expect(
        resendWebhookDelivery(caller(), WEBHOOK_ID, String(deliveryId), new Date(NOW)),
      ).rejects.toMatchObject({ code: 'DELIVERY_NOT_FOUND', status: 404 });
    }
    expect(queuedMessages()).toEqual([]);
  });

  it('looks up the delivery beside the endpoint, not after it', async () => {
    table.endpoint(WEBHOOK_ID, 'active');
    const source = table.delivery(WEBHOOK_ID, NOW - DAY_MS, 'failed');
    const releaseEndpointRead = table.holdGets();

    const resend = resendWebhookDelivery(caller(), WEBHOOK_ID, String(source.delivery_id), new Date(NOW));
    await new Promise(setImmediate);
    expect(dynamo.commandCalls(QueryCommand)).toHaveLength(1);
    releaseEndpointRead();
    await expect(resend).resolves.toMatchObject({ resend_of: source.delivery_id });
  });

  it('answers WEBHOOK_DISABLED (409) for a disabled endpoint and WEBHOOK_NOT_FOUND for a deleted one', async () => {
    table.endpoint(WEBHOOK_ID, 'disabled');
    table.endpoint(OTHER_WEBHOOK_ID, 'deleted');
    const source = table.delivery(WEBHOOK_ID, NOW - DAY_MS, 'failed');
    const deletedEndpointsDelivery = table.delivery(OTHER_WEBHOOK_ID, NOW - DAY_MS, 'failed');

    await expect(
      resendWebhookDelivery(caller(), WEBHOOK_ID, String(source.delivery_id), new Date(NOW)),
    ).rejects.toMatchObject({ code: 'WEBHOOK_DISABLED', status: 409 });
    await expect(
      resendWebhookDelivery(caller(), OTHER_WEBHOOK_ID, String(deletedEndpointsDelivery.delivery_id), new Date(NOW)),
    ).rejects.toMatchObject({ code: 'WEBHOOK_NOT_FOUND' });
    expect(table.items.filter((item) => item.resend_of !== undefined)).toEqual([]);
  });
});

describe('recovering failed deliveries (POST /webhooks/{id}/recover)', () => {
  it('resends each failed delivery since the instant once, oldest first, and a repeat queues nothing', async () => {
    table.endpoint(WEBHOOK_ID, 'active');
    const before = table.delivery(WEBHOOK_ID, NOW - 3 * DAY_MS, 'failed');
    const failed = [2, 1].map((days) => table.delivery(WEBHOOK_ID, NOW - days * DAY_MS, 'failed'));
    table.delivery(WEBHOOK_ID, NOW - DAY_MS, 'succeeded');
    table.delivery(WEBHOOK_ID, NOW - DAY_MS, 'pending');
    table.delivery(OTHER_WEBHOOK_ID, NOW - DAY_MS, 'failed');
    const since = new Date(NOW - 2.5 * DAY_MS).toISOString();

    const first = await recoverWebhookDeliveries(caller(), WEBHOOK_ID, since, new Date(NOW));
    const again = await recoverWebhookDeliveries(caller(), WEBHOOK_ID, since, new Date(NOW));

    expect(first).toEqual({ queued: 2, next_since: null });
    expect(again).toEqual({ queued: 0, next_since: null });
    expect(queuedMessages().map((message) => message.event_id)).toEqual(failed.map((item) => item.event_id));
    expect(before.resent_as).toBeUndefined();
    for (const item of failed) expect(item.resent_as).toMatch(/^dlv_/);
  });

  it('stops at RECOVER_RESENDS_PER_REQUEST resends and says where to go on, losing and repeating none', async () => {
    table.endpoint(WEBHOOK_ID, 'active');
    const total = RECOVER_RESENDS_PER_REQUEST + 30;
    for (let index = 0; index < total; index += 1) table.delivery(WEBHOOK_ID, NOW - DAY_MS + index, 'failed');
    let since = new Date(NOW - 2 * DAY_MS).toISOString();

    const answers = [];
    for (;;) {
      const answer = await recoverWebhookDeliveries(caller(), WEBHOOK_ID, since, new Date(NOW));
      answers.push(answer);
      if (answer.next_since === null) break;
      since = answer.next_since;
    }

    expect(answers.map((answer) => answer.queued)).toEqual([RECOVER_RESENDS_PER_REQUEST, 30]);
    const resentEvents = queuedMessages().map((message) => message.event_id);
    expect(new Set(resentEvents).size).toBe(total);
    for (const read of table.reads) expect(read).toBeLessThanOrEqual(RECOVER_READS_PER_REQUEST);
  });

  it('stops after RECOVER_READS_PER_REQUEST items read among deliveries that are not failed', async () => {
    table.endpoint(WEBHOOK_ID, 'active');
    for (let index = 0; index < RECOVER_READS_PER_REQUEST + 10; index += 1) {
      table.delivery(WEBHOOK_ID, NOW - DAY_MS + index, 'succeeded');
    }
    const lateFailure = table.delivery(WEBHOOK_ID, NOW - 1000, 'failed');

    const first = await recoverWebhookDeliveries(
      caller(),
      WEBHOOK_ID,
      new Date(NOW - 2 * DAY_MS).toISOString(),
      new Date(NOW),
    );
    expect(first.queued).toBe(0);
    expect(first.next_since).not.toBeNull();
    expect(table.reads.reduce((sum, read) => sum + read, 0)).toBe(RECOVER_READS_PER_REQUEST);

    const second = await recoverWebhookDeliveries(caller(), WEBHOOK_ID, first.next_since!, new Date(NOW));
    expect(second).toEqual({ queued: 1, next_since: null });
    expect(lateFailure.resent_as).toMatch(/^dlv_/);
  });

  it('reads the first page beside the endpoint, not after it', async () => {
    table.endpoint(WEBHOOK_ID, 'active');
    const failed = table.delivery(WEBHOOK_ID, NOW - DAY_MS, 'failed');
    const releaseEndpointRead = table.holdGets();

    const recover = recoverWebhookDeliveries(
      caller(),
      WEBHOOK_ID,
      new Date(NOW - 2 * DAY_MS).toISOString(),
      new Date(NOW),
    );
    await new Promise(setImmediate);
    expect(dynamo.commandCalls(QueryCommand)).toHaveLength(1);
    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(0);
    releaseEndpointRead();
    await expect(recover).resolves.toEqual({ queued: 1, next_since: null });
    expect(failed.resent_as).toMatch(/^dlv_/);
  });

  it('refuses an instant older than the retention before any read, and a disabled endpoint', async () => {
    table.endpoint(WEBHOOK_ID, 'active');
    table.endpoint(OTHER_WEBHOOK_ID, 'disabled');

    for (const webhookId of [WEBHOOK_ID, sortableId('webhook_', NOW)]) {
      await expect(
        recoverWebhookDeliveries(caller(), webhookId, new Date(NOW - RETENTION_MS - 1).toISOString(), new Date(NOW)),
      ).rejects.toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringContaining('30 days') });
    }
    expect(dynamo.calls()).toHaveLength(0);
    await expect(
      recoverWebhookDeliveries(caller(), OTHER_WEBHOOK_ID, new Date(NOW - DAY_MS).toISOString(), new Date(NOW)),
    ).rejects.toMatchObject({ code: 'WEBHOOK_DISABLED' });
  });
});
