import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CreateTableCommand, DynamoDBClient, PutItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import type { DynamoDBRecord, SQSRecord } from 'aws-lambda';
import { EVENT_STREAM_FILTER } from '#domain/events/event-stream';
import { startDynamoDb, type DynamoDbEmulator } from '../../local/emulators/dynamodb';
import { startSqs, type SqsEmulator } from '../../local/emulators/sqs';
import { assertSupportedFilter, matchesFilter } from '../../local/event-sources/event-filter';
import { startQueuePoller, type QueueConsumer } from '../../local/event-sources/queue';
import {
  startTableStreamPoller,
  type EventSourcePoller,
  type StreamConsumer,
} from '../../local/event-sources/table-stream';
import type { TaskHandler } from '../../local/event-sources/invocation';
import { deferred } from '../unit/support/deferred';
import { stackDataDir } from '../support/stack-data-dir';

const LOCAL = { region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } };

const dataDirs: string[] = [];
async function tempDataDir() {
  const dir = await stackDataDir('event-sources-test-');
  dataDirs.push(dir);
  return dir;
}
afterAll(async () => {
  await Promise.all(dataDirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

const pollers: EventSourcePoller[] = [];
afterEach(async () => {
  await Promise.all(pollers.splice(0).map((poller) => poller.stop()));
  jest.restoreAllMocks();
});

async function eventually<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const result = await check();
    if (result) return result;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await sleep(20);
  }
}

/** Handlers are passed to the pollers as a module loader answering the one test handler. */
const loaderOf = (handler: TaskHandler) => async () => handler;

/** In the shape of a stream record, as the filter sees it. */
const streamRecord = (eventName: string, sk: string) => ({
  eventName,
  eventSource: 'aws:dynamodb',
  dynamodb: { Keys: { pk: { S: 'ORG#1' }, sk: { S: sk } }, NewImage: { pk: { S: 'ORG#1' }, sk: { S: sk } } },
});

describe('matchesFilter', () => {
  it('passes an INSERT of an event item through the event stream filter, and nothing else', () => {
    expect(matchesFilter(EVENT_STREAM_FILTER, streamRecord('INSERT', 'EVENT#2026-01-01#e1'))).toBe(true);
    expect(matchesFilter(EVENT_STREAM_FILTER, streamRecord('MODIFY', 'EVENT#2026-01-01#e1'))).toBe(false);
    expect(matchesFilter(EVENT_STREAM_FILTER, streamRecord('REMOVE', 'EVENT#2026-01-01#e1'))).toBe(false);
    expect(matchesFilter(EVENT_STREAM_FILTER, streamRecord('INSERT', 'JOB#j1'))).toBe(false);
    expect(matchesFilter(EVENT_STREAM_FILTER, streamRecord('INSERT', 'DELIVERY#EVENT#e1'))).toBe(false);
    // A number attribute, and a record with no new image, do not match a string prefix.
    expect(
      matchesFilter(EVENT_STREAM_FILTER, { eventName: 'INSERT', dynamodb: { NewImage: { sk: { N: '1' } } } }),
    ).toBe(false);
    expect(matchesFilter(EVENT_STREAM_FILTER, { eventName: 'INSERT', dynamodb: { Keys: {} } })).toBe(false);
  });

  it('matches literals exactly, any entry of a leaf array, and prefixes of strings only', () => {
    const pattern = { kind: ['a', 2, true, null], nested: { name: [{ prefix: 'x-' }, 'exact'] } };
    expect(matchesFilter(pattern, { kind: 'a', nested: { name: 'x-1' } })).toBe(true);
    expect(matchesFilter(pattern, { kind: 2, nested: { name: 'exact' }, other: 'ignored' })).toBe(true);
    expect(matchesFilter(pattern, { kind: true, nested: { name: 'x-' } })).toBe(true);
    expect(matchesFilter(pattern, { kind: null, nested: { name: 'x-' } })).toBe(true);
    expect(matchesFilter(pattern, { kind: '2', nested: { name: 'x-1' } })).toBe(false);
    expect(matchesFilter(pattern, { kind: 'ab', nested: { name: 'x-1' } })).toBe(false);
    expect(matchesFilter(pattern, { kind: 'a', nested: { name: 'exactly' } })).toBe(false);
    expect(matchesFilter(pattern, { kind: 'a', nested: { name: 'y-x-' } })).toBe(false);
    expect(matchesFilter(pattern, { kind: 'a', nested: 'x-1' })).toBe(false);
    expect(matchesFilter(pattern, { kind: 'a' })).toBe(false);
    expect(matchesFilter(pattern, { nested: { name: 'x-1' } })).toBe(false);
    expect(matchesFilter({}, { anything: 1 })).toBe(true);
  });

  it('refuses filter syntax outside the supported subset', () => {
    expect(() => assertSupportedFilter(EVENT_STREAM_FILTER)).not.toThrow();
    expect(() => assertSupportedFilter({ eventName: [{ 'anything-but': ['REMOVE'] }] })).toThrow(/eventName/);
    expect(() => assertSupportedFilter({ dynamodb: { Keys: [{ exists: true }] } })).toThrow(/dynamodb\.Keys/);
    expect(() => assertSupportedFilter({ eventName: [] })).toThrow(/matches nothing/);
    expect(() => assertSupportedFilter({ eventName: 'INSERT' })).toThrow(/must be an object/);
  });
});

describe('table stream poller', () => {
  let emulator: DynamoDbEmulator;
  let dynamo: DynamoDBClient;
  let tables = 0;

  beforeAll(async () => {
    emulator = await startDynamoDb({ dataDir: await tempDataDir() });
    dynamo = new DynamoDBClient({ ...LOCAL, endpoint: emulator.endpoint });
  });
  afterAll(async () => {
    dynamo.destroy();
    await emulator.stop();
  });

  async function newTable() {
    const tableName = `stream-test-${++tables}`;
    await dynamo.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [
          { AttributeName: 'pk', AttributeType: 'S' },
          { AttributeName: 'sk', AttributeType: 'S' },
        ],
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_IMAGE' },
      }),
    );
    return { tableName, checkpointFile: join(await tempDataDir(), 'stream-checkpoints.json') };
  }

  const put = (tableName: string, sk: string, attributes: Record<string, string> = {}) =>
    dynamo.send(
      new PutItemCommand({
        TableName: tableName,
        Item: {
          pk: { S: 'ORG#1' },
          sk: { S: sk },
          ...Object.fromEntries(Object.entries(attributes).map(([name, value]) => [name, { S: value }])),
        },
      }),
    );

  async function startPoller(
    table: { tableName: string; checkpointFile: string },
    handler: TaskHandler,
    consumer: Partial<StreamConsumer> = {},
  ) {
    const poller = await startTableStreamPoller({
      endpoint: emulator.endpoint,
      tableName: table.tableName,
      consumers: [{ name: 'relay', handler: 'relay-events', filter: EVENT_STREAM_FILTER, batchSize: 25, ...consumer }],
      loadHandler: loaderOf(handler),
      checkpointFile: table.checkpointFile,
      retryDelay: { firstMs: 20, maxMs: 50 },
    });
    pollers.push(poller);
    return poller;
  }

  const sortKeys = (records: readonly DynamoDBRecord[]) => records.map((record) => record.dynamodb?.Keys?.sk?.S);

  /** The relay consumer's checkpoint of each shard, as the poller last saved it. */
  async function checkpointsOf(table: { checkpointFile: string }): Promise<{ after?: string }[]> {
    const { consumers } = JSON.parse(await readFile(table.checkpointFile, 'utf8')) as {
      consumers: Record<string, { streamArn: string; shards: Record<string, { after?: string }> }>;
    };
    return Object.values(consumers.relay?.shards ?? {});
  }

  /**
   * Resolves once the shard's checkpoint is at `sequenceNumber`: every record up to it is handled,
   * none is pending, and the poller reads only records written after it.
   */
  const checkpointedAt = (table: { checkpointFile: string }, sequenceNumber: string | undefined) =>
    eventually(async () => {
      const checkpoints = await checkpointsOf(table);
      return checkpoints.length === 1 && checkpoints[0]!.after === sequenceNumber;
    });

  it('delivers the INSERT of an event item once, in the Lambda record shape, and nothing the filter drops', async () => {
    const table = await newTable();
    const delivered: DynamoDBRecord[] = [];
    const arrivals = new Map<string, number>();
    await startPoller(table, async (event) => {
      for (const record of (event as { Records: DynamoDBRecord[] }).Records) {
        delivered.push(record);
        arrivals.set(record.dynamodb!.Keys!.sk!.S!, Date.now());
      }
      return { batchItemFailures: [] };
    });

    await put(table.tableName, 'JOB#j1');
    const written = Date.now();
    await put(table.tableName, 'EVENT#e1', { type: 'job.completed' });
    await dynamo.send(
      new UpdateItemCommand({
        TableName: table.tableName,
        Key: { pk: { S: 'ORG#1' }, sk: { S: 'EVENT#e1' } },
        UpdateExpression: 'SET relayed = :yes',
        ExpressionAttributeValues: { ':yes': { S: 'yes' } },
      }),
    );
    await put(table.tableName, 'DELIVERY#e1');
    // Records of a shard arrive in order: once this one is in, every earlier one was considered.
    await put(table.tableName, 'EVENT#e2');
    await eventually(() => arrivals.has('EVENT#e2'));

    expect(sortKeys(delivered)).toEqual(['EVENT#e1', 'EVENT#e2']);
    expect(delivered[0]).toEqual({
      eventID: expect.any(String),
      eventName: 'INSERT',
      eventVersion: '1.1',
      eventSource: 'aws:dynamodb',
      awsRegion: 'us-east-1',
      eventSourceARN: expect.stringMatching(new RegExp(`:table/${table.tableName}/stream/`)),
      dynamodb: {
        ApproximateCreationDateTime: expect.any(Number),
        Keys: { pk: { S: 'ORG#1' }, sk: { S: 'EVENT#e1' } },
        NewImage: { pk: { S: 'ORG#1' }, sk: { S: 'EVENT#e1' }, type: { S: 'job.completed' } },
        SequenceNumber: expect.stringMatching(/^\d+$/),
        SizeBytes: expect.any(Number),
        StreamViewType: 'NEW_IMAGE',
      },
    });
    // Polled often enough that a new event is relayed well within a second.
    expect(arrivals.get('EVENT#e1')! - written).toBeLessThan(1000);
  });

  it('retries a partial batch failure from the failed record until it succeeds, skipping and repeating nothing', async () => {
    const table = await newTable();
    // Written before the poller starts: one read of the shard returns them all, in one batch.
    for (const sk of ['EVENT#e1', 'EVENT#e2', 'EVENT#e3']) await put(table.tableName, sk);
    jest.spyOn(console, 'error').mockImplementation(() => {});
    const batches: (string | undefined)[][] = [];
    let lastSequenceNumber: string | undefined;
    let failuresLeft = 2;
    await startPoller(table, async (event) => {
      const records = (event as { Records: DynamoDBRecord[] }).Records;
      batches.push(sortKeys(records));
      lastSequenceNumber = records.at(-1)?.dynamodb?.SequenceNumber;
      const failing = records.find((record) => record.dynamodb?.Keys?.sk?.S === 'EVENT#e2');
      if (failing && failuresLeft > 0) {
        failuresLeft -= 1;
        return { batchItemFailures: [{ itemIdentifier: failing.dynamodb!.SequenceNumber }] };
      }
      return { batchItemFailures: [] };
    });

    await eventually(() => failuresLeft === 0 && batches.length === 3);
    await put(table.tableName, 'EVENT#e4');
    await eventually(() => batches.length === 4);
    // Nothing was written after e4: once it is checkpointed, no batch is left to come.
    await checkpointedAt(table, lastSequenceNumber);
    expect(batches).toEqual([
      ['EVENT#e1', 'EVENT#e2', 'EVENT#e3'],
      ['EVENT#e2', 'EVENT#e3'],
      ['EVENT#e2', 'EVENT#e3'],
      ['EVENT#e4'],
    ]);
  });

  it('retries the whole batch when the handler throws', async () => {
    const table = await newTable();
    for (const sk of ['EVENT#e1', 'EVENT#e2']) await put(table.tableName, sk);
    const errors = jest.spyOn(console, 'error').mockImplementation(() => {});
    const batches: (string | undefined)[][] = [];
    let lastSequenceNumber: string | undefined;
    await startPoller(table, async (event) => {
      const records = (event as { Records: DynamoDBRecord[] }).Records;
      batches.push(sortKeys(records));
      lastSequenceNumber = records.at(-1)?.dynamodb?.SequenceNumber;
      if (batches.length === 1) throw new Error('the table is throttled');
      return undefined;
    });
    await eventually(() => batches.length === 2);
    // Nothing was written after e2: once it is checkpointed, no batch is left to come.
    await checkpointedAt(table, lastSequenceNumber);
    expect(batches).toEqual([
      ['EVENT#e1', 'EVENT#e2'],
      ['EVENT#e1', 'EVENT#e2'],
    ]);
    expect(errors).toHaveBeenCalledWith(expect.stringContaining('failed'), expect.any(Error));
  });

  it('resumes after its checkpoint: a new poller gets only the records written after it, including while stopped', async () => {
    const table = await newTable();
    const first: (string | undefined)[] = [];
    const poller = await startPoller(table, async (event) => {
      first.push(...sortKeys((event as { Records: DynamoDBRecord[] }).Records));
    });
    await put(table.tableName, 'EVENT#e1');
    await put(table.tableName, 'EVENT#e2');
    await eventually(() => first.length === 2);
    await poller.stop();

    expect(await checkpointsOf(table)).toEqual([{ after: expect.stringMatching(/^\d+$/) }]);

    // Written while no poller runs.
    await put(table.tableName, 'EVENT#e3');
    await put(table.tableName, 'JOB#j1');
    await put(table.tableName, 'EVENT#e4');
    const second: (string | undefined)[] = [];
    await startPoller(table, async (event) => {
      second.push(...sortKeys((event as { Records: DynamoDBRecord[] }).Records));
    });
    await put(table.tableName, 'EVENT#e5');
    await eventually(() => second.includes('EVENT#e5'));
    expect(first).toEqual(['EVENT#e1', 'EVENT#e2']);
    expect(second).toEqual(['EVENT#e3', 'EVENT#e4', 'EVENT#e5']);
  });
});

describe('queue poller', () => {
  let emulator: SqsEmulator;
  let sqs: SQSClient;
  let queues = 0;

  beforeAll(async () => {
    emulator = await startSqs({ dataDir: await tempDataDir() });
    sqs = new SQSClient({ ...LOCAL, endpoint: emulator.endpoint });
  });
  afterAll(async () => {
    sqs.destroy();
    await emulator.stop();
  });

  /** A queue with a dead-letter queue after `maxReceiveCount` receives, as the local stack makes them. */
  async function newQueue({ visibilityTimeout = 30, maxReceiveCount = 5 } = {}) {
    const name = `queue-test-${++queues}`;
    const dlq = await sqs.send(new CreateQueueCommand({ QueueName: `${name}-dlq` }));
    const { Attributes } = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: dlq.QueueUrl, AttributeNames: ['QueueArn'] }),
    );
    const queue = await sqs.send(
      new CreateQueueCommand({
        QueueName: name,
        Attributes: {
          VisibilityTimeout: String(visibilityTimeout),
          RedrivePolicy: JSON.stringify({ deadLetterTargetArn: Attributes!.QueueArn, maxReceiveCount }),
        },
      }),
    );
    return { name, queueUrl: queue.QueueUrl!, deadLetterUrl: dlq.QueueUrl! };
  }

  async function startPoller(queueUrl: string, handler: TaskHandler, consumer: Partial<QueueConsumer> = {}) {
    const poller = await startQueuePoller({
      endpoint: emulator.endpoint,
      consumers: [
        { name: 'deliver', handler: 'deliver-webhooks', queueUrl, batchSize: 10, maxConcurrency: 5, ...consumer },
      ],
      loadHandler: loaderOf(handler),
    });
    pollers.push(poller);
    return poller;
  }

  const send = (queueUrl: string, body: string, extra: Partial<SendMessageCommand['input']> = {}) =>
    sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body, ...extra }));

  async function counts(queueUrl: string) {
    const { Attributes } = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['All'] }),
    );
    return {
      visible: Number(Attributes!.ApproximateNumberOfMessages),
      inFlight: Number(Attributes!.ApproximateNumberOfMessagesNotVisible),
    };
  }

  const recordsOf = (event: unknown) => (event as { Records: SQSRecord[] }).Records;

  /** Counts the receives from the queue under way (the poller makes its client itself, so every client is watched). */
  function watchReceives(queueUrl: string) {
    const send = SQSClient.prototype.send as (this: SQSClient, ...args: unknown[]) => Promise<unknown>;
    const receives = { underWay: 0 };
    jest.spyOn(SQSClient.prototype, 'send').mockImplementation(function (this: SQSClient, ...args: unknown[]) {
      const [command] = args;
      const sent = send.call(this, ...args);
      if (!(command instanceof ReceiveMessageCommand && command.input.QueueUrl === queueUrl)) return sent;
      receives.underWay += 1;
      return sent.finally(() => (receives.underWay -= 1));
    } as never);
    return receives;
  }

  it('delivers messages in the Lambda SQS event shape and deletes those handled', async () => {
    const { name, queueUrl } = await newQueue();
    const delivered: SQSRecord[] = [];
    await startPoller(queueUrl, async (event) => {
      delivered.push(...recordsOf(event));
      return { batchItemFailures: [] };
    });
    const sent = await send(queueUrl, '{"delivery":1}', {
      MessageAttributes: { kind: { DataType: 'String', StringValue: 'webhook' } },
    });
    await send(queueUrl, '{"delivery":2}');
    await eventually(() => delivered.length === 2);

    expect(delivered.map((record) => record.body).sort()).toEqual(['{"delivery":1}', '{"delivery":2}']);
    expect(delivered.find((record) => record.messageId === sent.MessageId)).toEqual({
      messageId: sent.MessageId,
      receiptHandle: expect.any(String),
      body: '{"delivery":1}',
      attributes: expect.objectContaining({
        ApproximateReceiveCount: '1',
        SentTimestamp: expect.stringMatching(/^\d+$/),
        ApproximateFirstReceiveTimestamp: expect.stringMatching(/^\d+$/),
        SenderId: expect.any(String),
      }),
      messageAttributes: {
        kind: { stringValue: 'webhook', stringListValues: [], binaryListValues: [], dataType: 'String' },
      },
      md5OfBody: sent.MD5OfMessageBody,
      md5OfMessageAttributes: expect.any(String),
      eventSource: 'aws:sqs',
      eventSourceARN: `arn:aws:sqs:us-east-1:000000000000:${name}`,
      awsRegion: 'us-east-1',
    });
    const deadline = Date.now() + 5000;
    let left = await counts(queueUrl);
    while ((left.visible > 0 || left.inFlight > 0) && Date.now() < deadline) {
      await sleep(50);
      left = await counts(queueUrl);
    }
    expect(left).toEqual({ visible: 0, inFlight: 0 });
  });

  it('leaves a failed item to come back, and to reach the dead-letter queue after maxReceiveCount', async () => {
    jest.spyOn(console, 'error').mockImplementation(() => {});
    const { queueUrl, deadLetterUrl } = await newQueue({ visibilityTimeout: 1, maxReceiveCount: 2 });
    const poisonReceives: string[] = [];
    const fine: string[] = [];
    await startPoller(queueUrl, async (event) => {
      const failures = [];
      for (const record of recordsOf(event)) {
        if (record.body === 'poison') {
          poisonReceives.push(record.attributes.ApproximateReceiveCount);
          failures.push({ itemIdentifier: record.messageId });
        } else {
          fine.push(record.body);
        }
      }
      return { batchItemFailures: failures };
    });
    await send(queueUrl, 'poison');
    await send(queueUrl, 'fine');

    const deadline = Date.now() + 10_000;
    while ((await counts(deadLetterUrl)).visible === 0 && Date.now() < deadline) await sleep(100);
    const { Messages } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: deadLetterUrl }));
    expect(Messages?.map((message) => message.Body)).toEqual(['poison']);
    expect(poisonReceives).toEqual(['1', '2']);
    expect(fine).toEqual(['fine']);
    expect(await counts(queueUrl)).toEqual({ visible: 0, inFlight: 0 });
  });

  it('leaves the whole batch when the handler throws', async () => {
    jest.spyOn(console, 'error').mockImplementation(() => {});
    const { queueUrl } = await newQueue({ visibilityTimeout: 1 });
    const receives: string[] = [];
    await startPoller(queueUrl, async (event) => {
      for (const record of recordsOf(event))
        receives.push(`${record.body}:${record.attributes.ApproximateReceiveCount}`);
      if (receives.length === 1) throw new Error('the endpoint store is down');
    });
    await send(queueUrl, 'retried');
    await eventually(() => receives.length === 2, 5000);
    expect(receives).toEqual(['retried:1', 'retried:2']);
  });

  it('delivers a delayed message once its delay is over', async () => {
    const { queueUrl } = await newQueue();
    const arrivals: number[] = [];
    await startPoller(queueUrl, async () => {
      arrivals.push(Date.now());
    });
    const sentAt = Date.now();
    await send(queueUrl, 'later', { DelaySeconds: 1 });
    await eventually(() => arrivals.length === 1, 5000);
    expect(arrivals[0]! - sentAt).toBeGreaterThanOrEqual(1000);
    expect(arrivals[0]! - sentAt).toBeLessThan(2500);
  });

  it('handles up to maxConcurrency batches at once', async () => {
    const { queueUrl } = await newQueue();
    for (let index = 0; index < 6; index++) await send(queueUrl, `message ${index}`);
    const receives = watchReceives(queueUrl);
    const handlersLetGo = deferred();
    let running = 0;
    let mostAtOnce = 0;
    let handled = 0;
    await startPoller(
      queueUrl,
      async () => {
        running += 1;
        mostAtOnce = Math.max(mostAtOnce, running);
        await handlersLetGo.promise;
        running -= 1;
        handled += 1;
      },
      { batchSize: 1, maxConcurrency: 3 },
    );
    await eventually(() => running >= 3);
    // A poller asks for more as soon as it starts a batch below its limit; at its limit, it waits for one to end.
    expect([running, receives.underWay]).toEqual([3, 0]);
    handlersLetGo.resolve();
    await eventually(() => handled === 6, 10_000);
    expect(mostAtOnce).toBe(3);
  });

  it('ends its long poll at once on stop()', async () => {
    const { queueUrl } = await newQueue();
    const receives = watchReceives(queueUrl);
    const poller = await startQueuePoller({
      endpoint: emulator.endpoint,
      consumers: [{ name: 'idle', handler: 'idle', queueUrl, batchSize: 10, maxConcurrency: 1 }],
      loadHandler: loaderOf(async () => undefined),
      waitTimeSeconds: 20,
    });
    await eventually(() => receives.underWay === 1);
    const stoppingAt = Date.now();
    await poller.stop();
    expect(Date.now() - stoppingAt).toBeLessThan(500);
  });
});
