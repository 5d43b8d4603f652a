import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  ExpiredIteratorException,
  GetRecordsCommand,
  GetShardIteratorCommand,
  ResourceNotFoundException,
  TrimmedDataAccessException,
  type _Record,
  type AttributeValue,
  type Shard,
} from '@aws-sdk/client-dynamodb-streams';
import type { AttributeValue as LambdaAttributeValue, DynamoDBRecord } from 'aws-lambda';
import type { Task } from '#tasks';
import { assertSupportedFilter, matchesFilter } from './event-filter';
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
import { CheckpointStore, type ConsumerCheckpoint, type ShardCheckpoint } from './stream-checkpoints';

/**
 * The local stand-in for Lambda's event source mapping on the table's stream: for each consumer,
 * the stream's records (DynamoDB Local keeps them in its data dir, across restarts) read shard by
 * shard, parents before children, filtered by the consumer's pattern, in batches of at most
 * `batchSize`, with ReportBatchItemFailures: a batch is retried from its first failed record,
 * and nothing past that record is taken as handled until it succeeds.
 */

/** A task run by the table's stream, as the poller needs it. */
export interface StreamConsumer {
  /** The task's name: the key of its checkpoints. */
  name: string;
  /** Module under lambdas/tasks. */
  handler: string;
  /** A Lambda event filter pattern, applied to each record in its Lambda shape. */
  filter: object;
  batchSize: number;
}

/** The table-stream tasks of a task table. */
export function streamConsumersOf(tasks: readonly Task[]): StreamConsumer[] {
  return tasks.flatMap((task) =>
    task.trigger.kind === 'table-stream'
      ? [{ name: task.name, handler: task.handler, filter: task.trigger.filter, batchSize: task.trigger.batchSize }]
      : [],
  );
}

export interface TableStreamPollerOptions {
  /** DynamoDB Local, which serves the Streams API on the same endpoint. */
  endpoint: string;
  tableName: string;
  consumers: readonly StreamConsumer[];
  loadHandler: LoadTaskHandler;
  /** A JSON file of the data dir (created if missing) where each consumer's position is kept. */
  checkpointFile: string;
  /** The region records name (`awsRegion`); DynamoDB Local itself says `ddblocal`. */
  region?: string;
  /** The wait between reads of a shard that had nothing new. */
  idlePollMs?: number;
  /** How often the table and its stream's shards are described again (new shards appear over time). */
  describeEveryMs?: number;
  /** The wait before a failed batch is retried, doubling from `firstMs` up to `maxMs`. */
  retryDelay?: { firstMs: number; maxMs: number };
  /**
   * Retries of a failing batch before it is given up (logged, and passed), as the CDK app's
   * mapping does (`retryAttempts` in lib/constructs/tasks.ts); the sweeper relays what it held.
   */
  maxRetryAttempts?: number;
  /** How long stop() waits for a batch being handled. */
  stopGraceMs?: number;
}

export interface EventSourcePoller {
  /** Stops reading, waits (a while) for the batches under way, and resolves. */
  stop(): Promise<void>;
}

interface PendingRecord {
  record: DynamoDBRecord;
  sequenceNumber: string;
  matched: boolean;
}

interface ShardState {
  id: string;
  parentId?: string;
  /** The position to resume after, as saved. */
  after?: string;
  iterator?: string;
  /** GetRecords answered no next iterator: once `pending` is handled, the shard has ended. */
  closed: boolean;
  ended: boolean;
  /** Records read and not yet handled, in order. */
  pending: PendingRecord[];
  /** Failed tries of the batch at the head of `pending`. */
  attempts: number;
  retryAt: number;
}

function lambdaAttributeValue(value: AttributeValue): LambdaAttributeValue {
  if (value.B !== undefined) return { B: Buffer.from(value.B).toString('base64') };
  if (value.BS !== undefined) return { BS: value.BS.map((bytes) => Buffer.from(bytes).toString('base64')) };
  if (value.M !== undefined) return { M: lambdaImage(value.M) };
  if (value.L !== undefined) return { L: value.L.map(lambdaAttributeValue) };
  return value as LambdaAttributeValue;
}

function lambdaImage(image: Record<string, AttributeValue>): Record<string, LambdaAttributeValue> {
  return Object.fromEntries(Object.entries(image).map(([name, value]) => [name, lambdaAttributeValue(value)]));
}

/** A record as Lambda hands it to a function: epoch seconds for the creation time, binary in base64. */
export function lambdaStreamRecord(record: _Record, streamArn: string, region: string): DynamoDBRecord {
  const stream = record.dynamodb ?? {};
  const dynamodb: DynamoDBRecord['dynamodb'] = {
    ...(stream.ApproximateCreationDateTime
      ? { ApproximateCreationDateTime: Math.floor(stream.ApproximateCreationDateTime.getTime() / 1000) }
      : {}),
    ...(stream.Keys ? { Keys: lambdaImage(stream.Keys) } : {}),
    ...(stream.NewImage ? { NewImage: lambdaImage(stream.NewImage) } : {}),
    ...(stream.OldImage ? { OldImage: lambdaImage(stream.OldImage) } : {}),
    SequenceNumber: stream.SequenceNumber,
    SizeBytes: stream.SizeBytes,
    StreamViewType: stream.StreamViewType,
  };
  return {
    eventID: record.eventID,
    eventName: record.eventName,
    eventVersion: record.eventVersion ?? '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: region,
    dynamodb,
    eventSourceARN: streamArn,
    ...(record.userIdentity ? { userIdentity: record.userIdentity } : {}),
  };
}

const isNamed = (error: unknown, ...names: string[]) => error instanceof Error && names.includes(error.name);

export async function startTableStreamPoller(options: TableStreamPollerOptions): Promise<EventSourcePoller> {
  for (const consumer of options.consumers) assertSupportedFilter(consumer.filter, `task ${consumer.name}: filter`);
  const store = await CheckpointStore.open(options.checkpointFile);
  const clientConfig = {
    endpoint: options.endpoint,
    region: options.region ?? 'us-east-1',
    credentials: LOCAL_CREDENTIALS,
  };
  const dynamodb = new DynamoDBClient(clientConfig);
  const streams = new DynamoDBStreamsClient(clientConfig);
  const aborted = new AbortController();
  const runs = options.consumers.map((consumer) =>
    new ConsumerPoller(consumer, options, store, dynamodb, streams).run(aborted.signal),
  );
  return {
    async stop() {
      aborted.abort();
      if (!(await settledWithin(Promise.all(runs), options.stopGraceMs ?? 10_000))) {
        console.error('The table stream poller stopped with a batch still being handled');
      }
      await store.flush();
      dynamodb.destroy();
      streams.destroy();
    },
  };
}

class ConsumerPoller {
  private readonly region: string;
  private readonly idlePollMs: number;
  private readonly describeEveryMs: number;
  private readonly retryDelay: { firstMs: number; maxMs: number };
  private readonly maxRetryAttempts: number;
  private streamArn: string | undefined;
  private readonly shards = new Map<string, ShardState>();
  private nextDescribeAt = 0;
  private savedShardsChecked = false;

  constructor(
    private readonly consumer: StreamConsumer,
    private readonly options: TableStreamPollerOptions,
    private readonly store: CheckpointStore,
    private readonly dynamodb: DynamoDBClient,
    private readonly streams: DynamoDBStreamsClient,
  ) {
    this.region = options.region ?? 'us-east-1';
    this.idlePollMs = options.idlePollMs ?? 150;
    this.describeEveryMs = options.describeEveryMs ?? 5000;
    this.retryDelay = options.retryDelay ?? { firstMs: 100, maxMs: 2000 };
    this.maxRetryAttempts = options.maxRetryAttempts ?? 10;
  }

  private log(message: string, error?: unknown) {
    const line = `[table-stream] task ${this.consumer.name}: ${message}`;
    if (error === undefined) console.error(line);
    else console.error(line, error);
  }

  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        if (Date.now() >= this.nextDescribeAt) {
          await this.describe(signal);
          this.nextDescribeAt = Date.now() + this.describeEveryMs;
        }
        let busy = false;
        for (const shard of this.readableShards()) {
          if (signal.aborted) break;
          if (await this.step(shard, signal)) busy = true;
        }
        if (!busy && !signal.aborted) await pause(this.idleWait(), signal);
      } catch (error) {
        if (signal.aborted) break;
        this.log(`reading the stream failed (${describeError(error)}); trying again in ${ERROR_DELAY_MS} ms`);
        await pause(ERROR_DELAY_MS, signal);
      }
    }
  }

  /** Nothing to do: wait for the next read, or for the earliest retry if it comes sooner. */
  private idleWait(): number {
    const retries = [...this.shards.values()].filter((shard) => shard.pending.length > 0).map((s) => s.retryAt);
    const untilRetry = Math.min(...retries) - Date.now();
    return Math.max(0, Math.min(this.idlePollMs, untilRetry));
  }

  /** Shards not ended whose parent has ended, or is no longer listed (trimmed), or that have none. */
  private readableShards(): ShardState[] {
    return [...this.shards.values()].filter((shard) => {
      if (shard.ended) return false;
      const parent = shard.parentId === undefined ? undefined : this.shards.get(shard.parentId);
      return parent === undefined || parent.ended;
    });
  }

  private async describe(signal: AbortSignal): Promise<void> {
    const { Table } = await this.dynamodb.send(new DescribeTableCommand({ TableName: this.options.tableName }), {
      abortSignal: signal,
    });
    const streamArn = Table?.StreamSpecification?.StreamEnabled ? Table.LatestStreamArn : undefined;
    if (!streamArn) throw new Error(`the table ${this.options.tableName} has no stream enabled`);
    if (streamArn !== this.streamArn) this.useStream(streamArn);

    const listed: Shard[] = [];
    let exclusiveStartShardId: string | undefined;
    do {
      const { StreamDescription } = await this.streams.send(
        new DescribeStreamCommand({ StreamArn: streamArn, ExclusiveStartShardId: exclusiveStartShardId }),
        { abortSignal: signal },
      );
      listed.push(...(StreamDescription?.Shards ?? []));
      exclusiveStartShardId = StreamDescription?.LastEvaluatedShardId;
    } while (exclusiveStartShardId);

    const saved = this.savedShards();
    const listedIds = new Set(listed.map((shard) => shard.ShardId));
    if (!this.savedShardsChecked) {
      this.savedShardsChecked = true;
      const gone = Object.keys(saved).filter((id) => !listedIds.has(id) && !saved[id]!.ended);
      if (gone.length > 0) {
        this.log(
          `checkpointed shards ${gone.join(', ')} are no longer in the stream (trimmed): the live shards are read from TRIM_HORIZON where no checkpoint says otherwise`,
        );
      }
    }
    for (const shard of listed) {
      if (!shard.ShardId || this.shards.has(shard.ShardId)) continue;
      const checkpoint: ShardCheckpoint = saved[shard.ShardId] ?? {};
      this.shards.set(shard.ShardId, {
        id: shard.ShardId,
        parentId: shard.ParentShardId,
        after: checkpoint.after,
        closed: false,
        ended: checkpoint.ended === true,
        pending: [],
        attempts: 0,
        retryAt: 0,
      });
    }
    // A shard no longer listed was trimmed (its records are past the stream's retention).
    let trimmed = false;
    for (const [id, shard] of this.shards) {
      if (listedIds.has(id)) continue;
      if (!shard.ended) this.log(`shard ${id} is no longer in the stream: its unread records are lost`);
      this.shards.delete(id);
      trimmed = true;
    }
    if (trimmed) await this.save();
  }

  private savedShards(): Record<string, ShardCheckpoint> {
    const saved = this.store.get(this.consumer.name);
    return saved && saved.streamArn === this.streamArn ? saved.shards : {};
  }

  private useStream(streamArn: string) {
    const saved = this.store.get(this.consumer.name);
    if (this.streamArn) {
      this.log(`the table has a new stream (${streamArn}): reading it from its start`);
    } else if (saved && saved.streamArn !== streamArn) {
      this.log(`the checkpoints are of another stream (${saved.streamArn}): reading ${streamArn} from its start`);
    }
    this.streamArn = streamArn;
    this.shards.clear();
    this.savedShardsChecked = false;
  }

  private checkpoint(): ConsumerCheckpoint {
    const shards: Record<string, ShardCheckpoint> = {};
    for (const shard of this.shards.values()) {
      if (shard.ended) shards[shard.id] = { ended: true };
      else if (shard.after !== undefined) shards[shard.id] = { after: shard.after };
    }
    return { streamArn: this.streamArn!, shards };
  }

  private save(): Promise<void> {
    return this.store.save(this.consumer.name, this.checkpoint());
  }

  private async iteratorFor(shard: ShardState, signal: AbortSignal): Promise<string | undefined> {
    const request = { StreamArn: this.streamArn, ShardId: shard.id };
    if (shard.after !== undefined) {
      try {
        const { ShardIterator } = await this.streams.send(
          new GetShardIteratorCommand({
            ...request,
            ShardIteratorType: 'AFTER_SEQUENCE_NUMBER',
            SequenceNumber: shard.after,
          }),
          { abortSignal: signal },
        );
        return ShardIterator;
      } catch (error) {
        if (signal.aborted) throw error;
        if (!(error instanceof TrimmedDataAccessException || isNamed(error, 'ValidationException'))) throw error;
        this.log(
          `the checkpoint ${shard.after} of shard ${shard.id} is no longer valid (${describeError(error)}): reading the shard from TRIM_HORIZON`,
        );
        shard.after = undefined;
      }
    }
    const { ShardIterator } = await this.streams.send(
      new GetShardIteratorCommand({ ...request, ShardIteratorType: 'TRIM_HORIZON' }),
      { abortSignal: signal },
    );
    return ShardIterator;
  }

  /** One read or one batch on the shard; answers whether it did anything. */
  private async step(shard: ShardState, signal: AbortSignal): Promise<boolean> {
    if (shard.pending.length > 0) {
      if (shard.retryAt > Date.now()) return false;
      await this.deliverBatch(shard);
      return true;
    }
    if (shard.closed) {
      shard.ended = true;
      await this.save();
      this.nextDescribeAt = 0; // its children may be listed by now
      return true;
    }
    shard.iterator ??= await this.iteratorFor(shard, signal);
    if (shard.iterator === undefined) {
      shard.closed = true;
      return true;
    }
    let page;
    try {
      page = await this.streams.send(new GetRecordsCommand({ ShardIterator: shard.iterator, Limit: 1000 }), {
        abortSignal: signal,
      });
    } catch (error) {
      if (signal.aborted) throw error;
      if (error instanceof ExpiredIteratorException) {
        shard.iterator = undefined; // read again after the checkpoint
        return true;
      }
      if (error instanceof TrimmedDataAccessException || error instanceof ResourceNotFoundException) {
        this.log(`shard ${shard.id} cannot be read past ${shard.after} (${describeError(error)}): TRIM_HORIZON`);
        shard.iterator = undefined;
        shard.after = undefined;
        this.nextDescribeAt = 0;
        return true;
      }
      throw error;
    }
    shard.iterator = page.NextShardIterator;
    if (shard.iterator === undefined) shard.closed = true;
    shard.pending = (page.Records ?? []).map((raw) => {
      const record = lambdaStreamRecord(raw, this.streamArn!, this.region);
      return {
        record,
        sequenceNumber: record.dynamodb!.SequenceNumber!,
        matched: matchesFilter(this.consumer.filter, record),
      };
    });
    return shard.pending.length > 0 || shard.closed;
  }

  /** Takes the first `count` pending records as handled. */
  private advance(shard: ShardState, count: number) {
    if (count <= 0) return;
    shard.after = shard.pending[count - 1]!.sequenceNumber;
    shard.pending.splice(0, count);
  }

  private async deliverBatch(shard: ShardState): Promise<void> {
    // Records the filter drops are handled as far as the mapping is concerned.
    const firstMatch = shard.pending.findIndex((pending) => pending.matched);
    if (firstMatch === -1) {
      this.advance(shard, shard.pending.length);
      await this.save();
      return;
    }
    this.advance(shard, firstMatch);

    const batch: PendingRecord[] = [];
    let windowEnd = 0;
    for (let index = 0; index < shard.pending.length && batch.length < this.consumer.batchSize; index++) {
      if (!shard.pending[index]!.matched) continue;
      batch.push(shard.pending[index]!);
      windowEnd = index + 1;
    }
    const identifiers = batch.map((pending) => pending.sequenceNumber);

    let failures: string[] | 'all';
    try {
      const response = await invokeTask(this.options.loadHandler, this.consumer.handler, {
        Records: batch.map((pending) => pending.record),
      });
      failures = failedItems(response, identifiers);
      if (failures === 'all') this.log(`the partial batch response names no record of the batch: retrying it whole`);
    } catch (error) {
      this.log(`the batch of ${batch.length} records from ${identifiers[0]} failed:`, error);
      failures = 'all';
    }

    if (failures !== 'all' && failures.length === 0) {
      this.advance(shard, windowEnd);
      shard.attempts = 0;
      await this.save();
      return;
    }

    // Retry from the first failed record; the records before it are handled.
    const failed = failures === 'all' ? new Set([identifiers[0]]) : new Set(failures);
    const firstFailed = batch.findIndex((pending) => failed.has(pending.sequenceNumber));
    if (firstFailed > 0) {
      this.advance(shard, shard.pending.indexOf(batch[firstFailed]!));
      shard.attempts = 1;
    } else {
      shard.attempts += 1;
    }
    if (failures !== 'all') {
      this.log(
        `${failures.length} of ${batch.length} records failed; retrying from ${identifiers[firstFailed]} (attempt ${shard.attempts})`,
      );
    }
    if (shard.attempts > this.maxRetryAttempts) {
      const givenUp = shard.pending.slice(0, shard.pending.indexOf(batch[batch.length - 1]!) + 1);
      this.log(
        `giving up on records ${givenUp[0]?.sequenceNumber} to ${givenUp[givenUp.length - 1]?.sequenceNumber} of shard ${shard.id} after ${this.maxRetryAttempts} retries`,
      );
      this.advance(shard, givenUp.length);
      shard.attempts = 0;
    } else {
      const delay = Math.min(this.retryDelay.firstMs * 2 ** (shard.attempts - 1), this.retryDelay.maxMs);
      shard.retryAt = Date.now() + delay;
    }
    await this.save();
  }
}
