import { marshall } from '@aws-sdk/util-dynamodb';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBRecord } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { eventPut, newEvent, type EventRecord } from '#domain/events/events';
import { relayStreamRecords } from '#domain/webhooks/relay';

process.env.TABLE_NAME = 'table';
process.env.AWS_REGION = 'us-east-1';
process.env.WEBHOOK_DELIVERIES_QUEUE_URL = 'http://queue.local/000000000000/webhook-deliveries';
process.env.LOG_LEVEL = 'silent';

const dynamo = mockClient(DynamoDBDocumentClient);
const sqs = mockClient(SQSClient);

/** A well-formed endpoint id per name. */
const ENDPOINT_IDS: Record<string, string> = {
  subscribed: 'webhook_01j0000000000000000000000a',
  disabled: 'webhook_01j0000000000000000000000b',
  deleted: 'webhook_01j0000000000000000000000c',
  elsewhere: 'webhook_01j0000000000000000000000d',
};
const idOf = (name: string) => ENDPOINT_IDS[name]!;

const endpoint = (name: string, fields: Record<string, unknown>) => ({
  webhook_id: idOf(name),
  organization_id: 7,
  url: 'https://hooks.example.com/',
  events: ['job.completed', 'job.failed'],
  status: 'active',
  ...fields,
});

const ENDPOINTS = [
  endpoint('subscribed', {}),
  endpoint('disabled', { status: 'disabled' }),
  endpoint('deleted', { status: 'deleted' }),
  endpoint('elsewhere', { events: ['job.completed'] }),
];

function failedJobEvent(organizationId = 7) {
  return newEvent(organizationId, {
    type: 'job.failed',
    data: {
      job: { id: 'video_job_1', type: 'video', status: 'failed', error: { code: 'RENDER_FAILED', message: 'x' } },
    },
  });
}

/** The stream record of the event's item, as the event's transaction writes it. */
function streamRecord(event: EventRecord, sequenceNumber: string): DynamoDBRecord {
  return {
    eventName: 'INSERT',
    dynamodb: { NewImage: marshall(eventPut(event).Put!.Item!) as never, SequenceNumber: sequenceNumber },
  };
}

const deliveredTo = () =>
  dynamo
    .commandCalls(TransactWriteCommand)
    .map((call) => (call.args[0].input.TransactItems![0]!.Put!.Item as { webhook_id: string }).webhook_id);
const queued = () =>
  sqs
    .commandCalls(SendMessageBatchCommand)
    .flatMap((call) =>
      call.args[0].input.Entries!.map((entry) => JSON.parse(entry.MessageBody!) as { webhook_id: string }),
    );

beforeEach(() => {
  dynamo.reset();
  sqs.reset();
  dynamo.on(QueryCommand).resolves({ Items: ENDPOINTS });
  dynamo.on(GetCommand).callsFake(({ Key }: { Key: { sk: string } }) => ({
    Item: ENDPOINTS.find((item) => Key.sk === `WEBHOOK#${item.webhook_id}`),
  }));
  dynamo.on(TransactWriteCommand).resolves({});
  dynamo.on(UpdateCommand).resolves({});
  sqs.on(SendMessageBatchCommand).resolves({});
});

describe('the outbox relay', () => {
  it('records and queues one delivery per active endpoint subscribed to the event, then takes the event out of the outbox', async () => {
    const event = failedJobEvent();
    expect(await relayStreamRecords([streamRecord(event, '1')])).toEqual({ batchItemFailures: [] });
    expect(deliveredTo()).toEqual([idOf('subscribed')]);
    expect(queued().map((message) => message.webhook_id)).toEqual([idOf('subscribed')]);
    const [removal] = dynamo.commandCalls(UpdateCommand).map((call) => call.args[0].input);
    expect(removal).toMatchObject({
      Key: { sk: `EVENT#${event.eventId}` },
      UpdateExpression: 'REMOVE outbox_shard, outbox_due',
    });
    const put = dynamo.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems![0]!.Put!;
    expect(put.ConditionExpression).toBe('attribute_not_exists(pk)');
    expect(JSON.parse((put.Item as { body: string }).body)).toEqual(event.payload);
  });

  it('sends a test event to the endpoint tested only, whatever its status', async () => {
    const event = newEvent(
      7,
      { type: 'webhook.test', data: { webhook_id: idOf('disabled') } },
      new Date(),
      idOf('disabled'),
    );
    expect(await relayStreamRecords([streamRecord(event, '1')])).toEqual({ batchItemFailures: [] });
    expect(deliveredTo()).toEqual([idOf('disabled')]);
    expect(dynamo.commandCalls(QueryCommand)).toHaveLength(0);
  });

  it('records and queues a test delivery to an endpoint deleted since the test, for the worker to end failed', async () => {
    const event = newEvent(
      7,
      { type: 'webhook.test', data: { webhook_id: idOf('deleted') } },
      new Date(),
      idOf('deleted'),
    );
    expect(await relayStreamRecords([streamRecord(event, '1')])).toEqual({ batchItemFailures: [] });
    expect(deliveredTo()).toEqual([idOf('deleted')]);
    expect(queued().map((message) => message.webhook_id)).toEqual([idOf('deleted')]);
  });

  it('records nothing new for a replayed record, and queues the delivery again for the worker to settle', async () => {
    dynamo.on(TransactWriteCommand).rejects(
      new TransactionCanceledException({
        message: 'cancelled',
        $metadata: {},
        CancellationReasons: [{ Code: 'ConditionalCheckFailed' }, { Code: 'None' }],
      }),
    );
    expect(await relayStreamRecords([streamRecord(failedJobEvent(), '1')])).toEqual({ batchItemFailures: [] });
    expect(queued().map((message) => message.webhook_id)).toEqual([idOf('subscribed')]);
  });

  it("reads each organization's endpoints once for a batch", async () => {
    await relayStreamRecords([
      streamRecord(failedJobEvent(7), '1'),
      streamRecord(failedJobEvent(7), '2'),
      streamRecord(failedJobEvent(8), '3'),
    ]);
    expect(
      dynamo.commandCalls(QueryCommand).map((call) => call.args[0].input.ExpressionAttributeValues?.[':pk']),
    ).toEqual(['ORG#7', 'ORG#8']);
    expect(deliveredTo()).toHaveLength(3);
  });

  it('reports the first record in stream order that fails, leaving it and the ones after it to the retry', async () => {
    dynamo.on(QueryCommand).resolvesOnce({ Items: ENDPOINTS }).rejects(new Error('throttled'));
    const response = await relayStreamRecords([
      streamRecord(failedJobEvent(7), '1'),
      streamRecord(failedJobEvent(8), '2'),
      streamRecord(failedJobEvent(9), '3'),
    ]);
    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: '2' }] });
    expect(dynamo.commandCalls(QueryCommand)).toHaveLength(3);
  });
});
