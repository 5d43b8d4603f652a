import {
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SQSClient,
  type Message,
  type MessageAttributeValue,
} from '@aws-sdk/client-sqs';
import type { SQSMessageAttributes, SQSRecord, SQSRecordAttributes } from 'aws-lambda';
import type { Task } from '#tasks';
import {
  describeError,
  ERROR_DELAY_MS,
  failedItems,
  invokeTask,
  LOCAL_CREDENTIALS,
  pause,
  settledWithin,
  type LoadTaskHandler,
} from './invocation';
import type { EventSourcePoller } from './table-stream';

/**
 * The local stand-in for Lambda's event source mapping on an SQS queue: long polls, up to
 * `maxConcurrency` batches handled at once, each in the Lambda SQS event shape, with
 * ReportBatchItemFailures: the messages that succeeded are deleted, the failed ones are left to
 * come back after the queue's visibility timeout, and the queue's redrive policy moves them to
 * its dead-letter queue after `maxReceiveCount` receives (fauxqs does that on receive, as SQS does).
 */

/** A task run by a queue, as the poller needs it. */
export interface QueueConsumer {
  name: string;
  /** Module under lambdas/tasks. */
  handler: string;
  queueUrl: string;
  batchSize: number;
  maxConcurrency: number;
}

/** The queue tasks of a task table, with the URL of each one's queue (by queue name). */
export function queueConsumersOf(tasks: readonly Task[], queueUrls: Readonly<Record<string, string>>): QueueConsumer[] {
  return tasks.flatMap((task) => {
    if (task.trigger.kind !== 'queue') return [];
    const queueUrl = queueUrls[task.trigger.queue];
    if (!queueUrl) throw new Error(`Task ${task.name}: no queue ${task.trigger.queue} was created`);
    const { batchSize, maxConcurrency } = task.trigger;
    return [{ name: task.name, handler: task.handler, queueUrl, batchSize, maxConcurrency }];
  });
}

export interface QueuePollerOptions {
  /** The SQS emulator (fauxqs). */
  endpoint: string;
  consumers: readonly QueueConsumer[];
  loadHandler: LoadTaskHandler;
  region?: string;
  /** A receive's long poll (1-20 s); stop() cuts one short. */
  waitTimeSeconds?: number;
  /** How long stop() waits for the batches being handled. */
  stopGraceMs?: number;
}

/** SQS hands out at most 10 messages per receive (a larger batch needs a batching window, which no task uses). */
const MAX_RECEIVE = 10;

function lambdaMessageAttributes(attributes: Record<string, MessageAttributeValue> = {}): SQSMessageAttributes {
  const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
  return Object.fromEntries(
    Object.entries(attributes).map(([name, value]) => [
      name,
      {
        ...(value.StringValue !== undefined ? { stringValue: value.StringValue } : {}),
        ...(value.BinaryValue !== undefined ? { binaryValue: base64(value.BinaryValue) } : {}),
        stringListValues: value.StringListValues ?? [],
        binaryListValues: (value.BinaryListValues ?? []).map(base64),
        dataType: value.DataType ?? 'String',
      },
    ]),
  );
}

/** A message as Lambda hands it to a function. */
export function lambdaQueueRecord(message: Message, queueArn: string, region: string): SQSRecord {
  return {
    messageId: message.MessageId!,
    receiptHandle: message.ReceiptHandle!,
    body: message.Body ?? '',
    attributes: (message.Attributes ?? {}) as SQSRecordAttributes,
    messageAttributes: lambdaMessageAttributes(message.MessageAttributes),
    md5OfBody: message.MD5OfBody ?? '',
    ...(message.MD5OfMessageAttributes ? { md5OfMessageAttributes: message.MD5OfMessageAttributes } : {}),
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: region,
  };
}

export async function startQueuePoller(options: QueuePollerOptions): Promise<EventSourcePoller> {
  const region = options.region ?? 'us-east-1';
  const sqs = new SQSClient({ endpoint: options.endpoint, region, credentials: LOCAL_CREDENTIALS });
  const queueArns = await Promise.all(
    options.consumers.map(async (consumer) => {
      const { Attributes } = await sqs.send(
        new GetQueueAttributesCommand({ QueueUrl: consumer.queueUrl, AttributeNames: ['QueueArn'] }),
      );
      if (!Attributes?.QueueArn) throw new Error(`The queue ${consumer.queueUrl} has no ARN`);
      return Attributes.QueueArn;
    }),
  );
  const aborted = new AbortController();
  const runs = options.consumers.map((consumer, index) =>
    pollQueue(consumer, queueArns[index]!, { ...options, region }, sqs, aborted.signal),
  );
  return {
    async stop() {
      aborted.abort();
      if (!(await settledWithin(Promise.all(runs), options.stopGraceMs ?? 10_000))) {
        console.error('The queue poller stopped with batches still being handled');
      }
      sqs.destroy();
    },
  };
}

async function pollQueue(
  consumer: QueueConsumer,
  queueArn: string,
  options: QueuePollerOptions & { region: string },
  sqs: SQSClient,
  signal: AbortSignal,
): Promise<void> {
  const log = (message: string, error?: unknown) => {
    const line = `[queue] task ${consumer.name}: ${message}`;
    if (error === undefined) console.error(line);
    else console.error(line, error);
  };

  async function deleteMessages(messages: readonly SQSRecord[]) {
    for (let start = 0; start < messages.length; start += MAX_RECEIVE) {
      const chunk = messages.slice(start, start + MAX_RECEIVE);
      try {
        const { Failed } = await sqs.send(
          new DeleteMessageBatchCommand({
            QueueUrl: consumer.queueUrl,
            Entries: chunk.map((record, index) => ({ Id: String(index), ReceiptHandle: record.receiptHandle })),
          }),
        );
        if (Failed?.length) log(`${Failed.length} handled messages could not be deleted: they will come back`);
      } catch (error) {
        log(`deleting ${chunk.length} handled messages failed (${describeError(error)}): they will come back`);
      }
    }
  }

  async function handleBatch(messages: readonly Message[]) {
    const records = messages.map((message) => lambdaQueueRecord(message, queueArn, options.region));
    let failures: string[] | 'all';
    try {
      const response = await invokeTask(options.loadHandler, consumer.handler, { Records: records });
      failures = failedItems(
        response,
        records.map((record) => record.messageId),
      );
      if (failures === 'all') log(`the partial batch response names no message of the batch: the batch failed`);
      else if (failures.length > 0) log(`${failures.length} of ${records.length} messages failed: they will come back`);
    } catch (error) {
      log(`a batch of ${records.length} messages failed:`, error);
      failures = 'all';
    }
    if (failures === 'all') return;
    const failed = new Set(failures);
    await deleteMessages(records.filter((record) => !failed.has(record.messageId)));
  }

  const inFlight = new Set<Promise<void>>();
  while (!signal.aborted) {
    if (inFlight.size >= consumer.maxConcurrency) {
      await Promise.race(inFlight);
      continue;
    }
    let messages: Message[];
    try {
      const { Messages } = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: consumer.queueUrl,
          MaxNumberOfMessages: Math.min(consumer.batchSize, MAX_RECEIVE),
          WaitTimeSeconds: options.waitTimeSeconds ?? 1,
          MessageSystemAttributeNames: ['All'],
          MessageAttributeNames: ['All'],
        }),
        { abortSignal: signal },
      );
      messages = Messages ?? [];
    } catch (error) {
      if (signal.aborted) break;
      log(`receiving failed (${describeError(error)}); trying again in ${ERROR_DELAY_MS} ms`);
      await pause(ERROR_DELAY_MS, signal);
      continue;
    }
    if (messages.length === 0) continue;
    const batch: Promise<void> = handleBatch(messages).finally(() => inFlight.delete(batch));
    inFlight.add(batch);
  }
  await Promise.all(inFlight);
}
