import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ResourceNotFoundException,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
  type AttributeDefinition,
  type GlobalSecondaryIndex,
  type TableDescription,
} from '@aws-sdk/client-dynamodb';
import {
  CreateBucketCommand,
  GetObjectCommand,
  HeadBucketCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  SetQueueAttributesCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import {
  CURSOR_KEY_LOCAL,
  DEVELOPER_WEBHOOK_DELIVERY_ENABLED,
  MEDIA_BUCKET_NAME,
  S3_FORCE_PATH_STYLE,
  TABLE_NAME,
  VIDEO_MODEL_ID,
  VIDEO_PROVIDER,
  VIDEO_RENDER_DEADLINE_SECONDS,
  VIDEO_RENDER_POLL_SECONDS,
  WEBHOOK_LOOPBACK_ALLOWED,
  WEBHOOK_RETRY_SCALE,
  WEBHOOK_SECRETS_LOCAL_KEY,
  type Setting,
} from '#platform/settings';
import { DEFAULT_VIDEO_MODEL_ID } from '#domain/models/model-registry';
import { TABLE_DESIGN, type IndexDesign } from '#platform/table-design';
import { startDynamoDb } from './emulators/dynamodb';
import { captionFontsEnvironment } from './caption-fonts';
import { peopleDetectorEnvironment } from './people-detector';
import { mediaToolEnvironment } from './media-tools';
import { localLanguageModel } from './language-model';
import { localTranscription } from './transcription';
import { startS3Server } from './emulators/s3/s3-server';
import { startSqs } from './emulators/sqs';
import { startStepFunctions, type ExecutionStatusChangeEvent } from './emulators/step-functions';
import { createGateway, type LambdaHandler } from './http-gateway';
import { processExists, writeStackInfo } from './stack-info';
import { DEAD_LETTER_RETENTION_DAYS, QUEUES } from '#queues';
import { TASKS, visibilityTimeoutSecondsOf, type Task } from '#tasks';
import { definitionWithWorkers, WORKFLOWS } from '#workflows';
import { LOCAL_CREDENTIALS, type TaskHandler } from './event-sources/invocation';
import { startQueuePoller, queueConsumersOf } from './event-sources/queue';
import { startTableStreamPoller, streamConsumersOf } from './event-sources/table-stream';
import { referenceRoutes } from './reference-page';

export const LOCAL_TABLE_NAME = 'video-api-local';
export const LOCAL_BUCKET_NAME = 'video-api-media-local';

/** Clients of the stack's own (not the handlers'): the environment is not set yet when some are made. */
const LOCAL_CLIENT = { region: 'us-east-1', credentials: LOCAL_CREDENTIALS };

const localStateMachineArn = (workflowName: string) =>
  `arn:aws:states:us-east-1:000000000000:stateMachine:${workflowName}`;

/** A setting the operator gave `npm start` in its environment, which the stack passes on to the functions. */
const fromOperator = (name: Setting): string | undefined => process.env[name.variable];

/** The environment the deployed Lambdas get from CDK, pointed at the emulators instead of AWS. */
function handlerEnvironment(
  endpoints: {
    dynamodb: string;
    s3: string;
    sqs: string;
    sfn: string;
  },
  keys: { cursorKey: string; webhookSecretsKey: string },
  queueUrls: Readonly<Record<string, string>>,
): Record<string, string> {
  return {
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
    AWS_ENDPOINT_URL_DYNAMODB: endpoints.dynamodb,
    AWS_ENDPOINT_URL_S3: endpoints.s3,
    AWS_ENDPOINT_URL_SQS: endpoints.sqs,
    AWS_ENDPOINT_URL_SFN: endpoints.sfn,
    [S3_FORCE_PATH_STYLE.variable]: 'true',
    [TABLE_NAME.variable]: LOCAL_TABLE_NAME,
    [MEDIA_BUCKET_NAME.variable]: LOCAL_BUCKET_NAME,
    [CURSOR_KEY_LOCAL.variable]: keys.cursorKey,
    [VIDEO_PROVIDER.variable]: 'local',
    // The local renderer delivers what this model delivers (its frames, render lengths and rate),
    // so the planning, chaining and finishing are AWS's own.
    [VIDEO_MODEL_ID.variable]: DEFAULT_VIDEO_MODEL_ID,
    // The local renderer takes seconds, not minutes: poll it often, and give up sooner.
    [VIDEO_RENDER_POLL_SECONDS.variable]: fromOperator(VIDEO_RENDER_POLL_SECONDS) ?? '2',
    [VIDEO_RENDER_DEADLINE_SECONDS.variable]: fromOperator(VIDEO_RENDER_DEADLINE_SECONDS) ?? '300',
    ...Object.fromEntries(
      WORKFLOWS.map((workflow) => [workflow.arnSetting.variable, localStateMachineArn(workflow.name)]),
    ),
    ...Object.fromEntries(QUEUES.map((queue) => [queue.urlSetting.variable, queueUrls[queue.name]!])),
    // The `webhook-delivery` setting (lambdas/tasks.ts), which the CDK app gives the tasks that have it.
    [DEVELOPER_WEBHOOK_DELIVERY_ENABLED.variable]: fromOperator(DEVELOPER_WEBHOOK_DELIVERY_ENABLED) ?? 'true',
    // Six attempts in seconds rather than a day and a half.
    [WEBHOOK_RETRY_SCALE.variable]: fromOperator(WEBHOOK_RETRY_SCALE) ?? '0.001',
    // Receivers run on this machine.
    [WEBHOOK_LOOPBACK_ALLOWED.variable]: 'true',
    // In AWS: the KMS key's ARN (the webhookSecretsKeyArn setting) instead.
    [WEBHOOK_SECRETS_LOCAL_KEY.variable]: keys.webhookSecretsKey,
  };
}

/** Loads a Lambda module the way the runtime would: once (until it fails), then reused for every invocation. */
function moduleLoader<T>(folder: string) {
  const loaded = new Map<string, Promise<T>>();
  return (name: string): Promise<T> => {
    let handler = loaded.get(name);
    if (!handler) {
      handler = import(`../lambdas/${folder}/${name}`).then((module: { handler: T }) => module.handler);
      loaded.set(name, handler);
      // As Lambda does after a failed init: the next invocation tries to load it again.
      handler.catch(() => loaded.delete(name));
    }
    return handler;
  };
}

/** Each ASL file with its `${Substitution}`s pointing at worker modules instead of function ARNs. */
function localStateMachines() {
  return Object.fromEntries(
    WORKFLOWS.map((workflow) => {
      const modules = Object.fromEntries(
        Object.entries(workflow.workers).map(([substitution, worker]) => [substitution, worker.handler]),
      );
      return [
        localStateMachineArn(workflow.name),
        { definition: JSON.parse(definitionWithWorkers(workflow, modules)) as object },
      ];
    }),
  );
}

/** New images on the table's stream, as the CDK stack declares it (lib/constructs/data-table.ts). */
const TABLE_STREAM = { StreamEnabled: true, StreamViewType: TABLE_DESIGN.streamViewType };
const TABLE_ACTIVE_TIMEOUT_MS = 60_000;

const keyAttributes = (names: readonly string[]): AttributeDefinition[] =>
  [...new Set(names)].map((name) => ({ AttributeName: name, AttributeType: 'S' }));

function globalSecondaryIndex(index: IndexDesign): GlobalSecondaryIndex {
  return {
    IndexName: index.indexName,
    KeySchema: [
      { AttributeName: index.partitionKey, KeyType: 'HASH' },
      { AttributeName: index.sortKey, KeyType: 'RANGE' },
    ],
    Projection:
      index.projection === 'all'
        ? { ProjectionType: 'ALL' }
        : { ProjectionType: 'INCLUDE', NonKeyAttributes: [...index.projection] },
  };
}

async function describeTable(client: DynamoDBClient): Promise<TableDescription | undefined> {
  try {
    return (await client.send(new DescribeTableCommand({ TableName: LOCAL_TABLE_NAME }))).Table;
  } catch (error) {
    if (error instanceof ResourceNotFoundException) return undefined;
    throw error;
  }
}

/** Waits until the table and each of its indexes are ACTIVE: DynamoDB takes one change at a time. */
async function waitUntilActive(client: DynamoDBClient): Promise<TableDescription> {
  const deadline = Date.now() + TABLE_ACTIVE_TIMEOUT_MS;
  for (;;) {
    const table = await describeTable(client);
    if (!table) throw new Error(`The table ${LOCAL_TABLE_NAME} is gone`);
    const indexes = table.GlobalSecondaryIndexes ?? [];
    if (table.TableStatus === 'ACTIVE' && indexes.every((index) => index.IndexStatus === 'ACTIVE')) return table;
    if (Date.now() > deadline) throw new Error(`The table ${LOCAL_TABLE_NAME} did not become ACTIVE in time`);
    await sleep(100);
  }
}

/**
 * Brings a table made by an older version of the local stack to the current design: the stream
 * on, and every index of TABLE_DESIGN there (created one per call, as DynamoDB requires). Indexes
 * are not changed or dropped: the design only ever adds them.
 */
async function upgradeTable(client: DynamoDBClient, table: TableDescription): Promise<void> {
  const stream = table.StreamSpecification;
  if (!stream?.StreamEnabled || stream.StreamViewType !== TABLE_STREAM.StreamViewType) {
    await waitUntilActive(client);
    if (stream?.StreamEnabled) {
      // A stream's view type cannot change: the stream is replaced.
      await client.send(
        new UpdateTableCommand({ TableName: LOCAL_TABLE_NAME, StreamSpecification: { StreamEnabled: false } }),
      );
      await waitUntilActive(client);
    }
    await client.send(new UpdateTableCommand({ TableName: LOCAL_TABLE_NAME, StreamSpecification: TABLE_STREAM }));
    console.log(`Local table ${LOCAL_TABLE_NAME}: stream enabled (${TABLE_STREAM.StreamViewType})`);
  }
  const present = new Set((table.GlobalSecondaryIndexes ?? []).map((index) => index.IndexName));
  for (const index of TABLE_DESIGN.indexes) {
    if (present.has(index.indexName)) continue;
    await waitUntilActive(client);
    await client.send(
      new UpdateTableCommand({
        TableName: LOCAL_TABLE_NAME,
        AttributeDefinitions: keyAttributes([index.partitionKey, index.sortKey]),
        GlobalSecondaryIndexUpdates: [{ Create: globalSecondaryIndex(index) }],
      }),
    );
    await waitUntilActive(client);
    console.log(`Local table ${LOCAL_TABLE_NAME}: index ${index.indexName} created`);
  }
}

/**
 * Creates the table as the CDK stack declares it, or brings an existing one up to that design;
 * answers whether it had to create it (a fresh data dir).
 */
async function ensureTable(client: DynamoDBClient): Promise<boolean> {
  const existing = await describeTable(client);
  if (existing) {
    await upgradeTable(client, existing);
    return false;
  }
  const { partitionKey, sortKey, indexes, timeToLiveAttribute } = TABLE_DESIGN;
  await client.send(
    new CreateTableCommand({
      TableName: LOCAL_TABLE_NAME,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: keyAttributes([
        partitionKey,
        sortKey,
        ...indexes.flatMap((index) => [index.partitionKey, index.sortKey]),
      ]),
      KeySchema: [
        { AttributeName: partitionKey, KeyType: 'HASH' },
        { AttributeName: sortKey, KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: indexes.map(globalSecondaryIndex),
      StreamSpecification: TABLE_STREAM,
    }),
  );
  await client.send(
    new UpdateTimeToLiveCommand({
      TableName: LOCAL_TABLE_NAME,
      TimeToLiveSpecification: { AttributeName: timeToLiveAttribute, Enabled: true },
    }),
  );
  return true;
}

/**
 * A key kept in the data dir: read when it is there, else generated once (readable by its owner
 * only), so what it protects survives a restart as it survives a redeploy in AWS. The local
 * stand-ins for the cursor key's secret and for the KMS key that wraps webhook signing secrets.
 */
async function ensureKeyFile(root: string, name: string, generate: () => string): Promise<string> {
  const file = join(root, name);
  try {
    return (await readFile(file, 'utf8')).trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const key = generate();
  await writeFile(file, `${key}\n`, { mode: 0o600 });
  return key;
}

const ensureCursorKey = (root: string) =>
  ensureKeyFile(
    root,
    'cursor-key',
    () => `local-${randomBytes(4).toString('hex')}:${randomBytes(32).toString('base64')}`,
  );

const ensureWebhookSecretsKey = (root: string) =>
  ensureKeyFile(root, 'webhook-secrets-key', () => randomBytes(32).toString('base64'));

/**
 * Data dirs of older versions kept their objects in fauxqs (`s3-sqs/`), which served S3 too. The
 * first start with the S3 emulator copies them over, so uploads, videos and clips stay where their
 * items say; fauxqs's copies are left as they are.
 */
async function moveObjectsFromFauxqs(fauxqs: S3Client, s3: S3Client): Promise<number> {
  try {
    await fauxqs.send(new HeadBucketCommand({ Bucket: LOCAL_BUCKET_NAME }));
  } catch {
    return 0;
  }
  let moved = 0;
  let ContinuationToken: string | undefined;
  do {
    const page = await fauxqs.send(new ListObjectsV2Command({ Bucket: LOCAL_BUCKET_NAME, ContinuationToken }));
    for (const { Key } of page.Contents ?? []) {
      const object = await fauxqs.send(new GetObjectCommand({ Bucket: LOCAL_BUCKET_NAME, Key }));
      await s3.send(
        new PutObjectCommand({
          Bucket: LOCAL_BUCKET_NAME,
          Key,
          Body: object.Body,
          ContentLength: object.ContentLength,
          ContentType: object.ContentType,
        }),
      );
      moved++;
    }
    ContinuationToken = page.NextContinuationToken;
  } while (ContinuationToken);
  return moved;
}

async function ensureBucket(client: S3Client) {
  try {
    await client.send(new HeadBucketCommand({ Bucket: LOCAL_BUCKET_NAME }));
  } catch {
    await client.send(new CreateBucketCommand({ Bucket: LOCAL_BUCKET_NAME }));
  }
}

/**
 * The queues of lambdas/queues.ts, as the CDK stack declares them (lib/constructs/queues.ts): each
 * with a dead-letter queue `<name>-dlq` after `maxReceiveCount` receives, and a visibility
 * timeout of six times its consumer's timeout. The attributes are set at every start, so queues of
 * an older data dir follow a change to lambdas/queues.ts or lambdas/tasks.ts. Answers each queue's
 * URL by name.
 */
async function ensureQueues(client: SQSClient): Promise<Record<string, string>> {
  const urls: Record<string, string> = {};
  for (const queue of QUEUES) {
    // Created bare, then given its attributes: CreateQueue refuses attributes that differ from an existing queue's.
    const { QueueUrl: deadLetterUrl } = await client.send(new CreateQueueCommand({ QueueName: `${queue.name}-dlq` }));
    await client.send(
      new SetQueueAttributesCommand({
        QueueUrl: deadLetterUrl,
        Attributes: { MessageRetentionPeriod: String(DEAD_LETTER_RETENTION_DAYS * 86_400) },
      }),
    );
    const { Attributes } = await client.send(
      new GetQueueAttributesCommand({ QueueUrl: deadLetterUrl, AttributeNames: ['QueueArn'] }),
    );
    const { QueueUrl } = await client.send(new CreateQueueCommand({ QueueName: queue.name }));
    await client.send(
      new SetQueueAttributesCommand({
        QueueUrl,
        Attributes: {
          VisibilityTimeout: String(visibilityTimeoutSecondsOf(queue)),
          RedrivePolicy: JSON.stringify({
            deadLetterTargetArn: Attributes!.QueueArn,
            maxReceiveCount: queue.maxReceiveCount,
          }),
        },
      }),
    );
    urls[queue.name] = QueueUrl!;
  }
  return urls;
}

/**
 * The event sources AWS runs for the tasks of lambdas/tasks.ts: a timer for each schedule, and
 * for the execution-ended rule the Step Functions emulator's status changes, filtered as the rule
 * filters them. A failed run is logged; as in AWS, the reconciler covers what it missed.
 */
function taskEventSources(loadTask: (name: string) => Promise<TaskHandler>) {
  const run = (task: Task, event: unknown) =>
    loadTask(task.handler)
      .then((handler) => handler(event))
      .catch((error: unknown) => console.error(`Task ${task.name} failed:`, error));
  const timers: NodeJS.Timeout[] = [];
  return {
    onExecutionEnded(event: ExecutionStatusChangeEvent) {
      for (const task of TASKS) {
        if (task.trigger.kind !== 'execution-ended') continue;
        if ((task.trigger.statuses as readonly string[]).includes(event.detail.status)) void run(task, event);
      }
    },
    startSchedules() {
      for (const task of TASKS) {
        if (task.trigger.kind !== 'schedule') continue;
        const every = task.trigger.everyMinutes * 60_000;
        timers.push(
          setInterval(() => void run(task, { source: 'aws.events', 'detail-type': 'Scheduled Event' }), every),
        );
      }
    },
    stopSchedules() {
      for (const timer of timers) clearInterval(timer);
    },
  };
}

/**
 * The functions' temporary directory: one of this process's own under the data dir, as a Lambda
 * container's /tmp is its own. Those of stacks no longer running go now, with what their
 * unfinished work left in them.
 */
async function functionsTemporaryDirectory(root: string): Promise<string> {
  const parent = join(root, 'tmp');
  const owners = await readdir(parent).catch(() => []);
  for (const owner of owners.filter((pid) => !processExists(Number(pid)))) {
    await rm(join(parent, owner), { recursive: true, force: true });
  }
  const directory = join(parent, String(process.pid));
  await mkdir(directory, { recursive: true });
  return directory;
}

/**
 * The local Step Functions emulator keeps executions in memory, so a restart loses the ones
 * under way (in AWS they survive). The reconciler, run at once for every active job whatever its
 * age, starts them again; the state machine finds each render gone and ends the job through its
 * normal failure path (refund, slot released). A failure is logged and does not stop the start:
 * the scheduled reconciler, which the stack runs every few minutes, finds the same jobs again.
 */
async function restartInterruptedJobs() {
  try {
    // Imported only now: its clients read the emulator endpoints from the environment when created.
    const { reconcileJobs } = await import('#domain/jobs/reconciler');
    const { JOB_CLIPS } = await import('#domain/split-jobs/clip-store');
    await reconcileJobs(JOB_CLIPS, { restartAfterSeconds: 0 });
  } catch (error) {
    console.error('Restarting the interrupted jobs at start failed:', error);
  }
}

/**
 * What the stream and the queue missed while the stack was stopped, or before the stream existed
 * (a data dir made by an older version): the sweeper, run at once with no wait, relays every event
 * still in the outbox and queues every delivery due. Relays and queued deliveries are idempotent,
 * so racing the stream poller costs nothing. A failure is logged, as a failed scheduled run would be.
 */
async function sweepWebhookOutbox() {
  try {
    // Imported only now, like the reconciler.
    const { sweepOutbox } = await import('#domain/webhooks/outbox');
    const { relayedEvents, queuedDeliveries } = await sweepOutbox({ overdueSeconds: 0 });
    if (relayedEvents > 0 || queuedDeliveries > 0) {
      console.log(`Webhook outbox swept: ${relayedEvents} events relayed, ${queuedDeliveries} deliveries queued`);
    }
  } catch (error) {
    console.error('The webhook outbox sweep at start failed:', error);
  }
}

export interface LocalStackOptions {
  port: number;
  dataDir: string;
  /** Runs once, after the table was created in a fresh data dir. */
  onFreshStart?: () => Promise<void>;
}

export interface LocalStack {
  apiUrl: string;
  port: number;
  /** What transcribes speech, in one line for the operator (local/transcription.ts). */
  transcription: string;
  stop(): Promise<void>;
}

export async function startLocalStack({ port, dataDir, onFreshStart }: LocalStackOptions): Promise<LocalStack> {
  // Before any emulator starts: a recognizer asked for but missing stops the start here.
  const transcription = await localTranscription();
  const root = resolve(dataDir);
  await mkdir(join(root, 'dynamodb'), { recursive: true });
  let ready = false;
  const gateway = createGateway({
    loadHandler: moduleLoader<LambdaHandler>('handlers'),
    extraRoutes: {
      ...referenceRoutes(),
      '/healthz': (response) => {
        response.writeHead(ready ? 200 : 503, { 'Content-Type': 'application/json' });
        response.end(JSON.stringify({ status: ready ? 'ok' : 'starting' }));
      },
    },
    isReady: () => ready,
  });
  // Bound before any emulator starts: their ports and the stack's own connections to them come from
  // the same ephemeral range as a PORT a tool picked by asking the OS, and could take it first.
  await new Promise<void>((resolveListen, reject) => {
    gateway.once('error', reject);
    gateway.listen(port, '127.0.0.1', () => resolveListen());
  });
  const stoppers: (() => Promise<void>)[] = [];
  const stop = async () => {
    // Requests stop first, so none reaches an emulator that is already gone.
    await new Promise<void>((resolveClose) => {
      gateway.close(() => resolveClose());
      gateway.closeAllConnections();
    });
    for (const stopOne of stoppers.reverse()) await stopOne().catch((error) => console.error(error));
  };
  const started = <T extends { stop(): Promise<void> }>(emulator: T) => {
    stoppers.push(emulator.stop);
    return emulator;
  };
  const s3Dir = join(root, 's3');
  const fauxqsObjectsMoved = join(s3Dir, 'objects-moved-from-fauxqs');
  try {
    const [dynamodb, sqs, s3] = await Promise.all([
      startDynamoDb({ dataDir: join(root, 'dynamodb') }).then(started),
      startSqs({ dataDir: join(root, 's3-sqs') }).then(started),
      startS3Server({ dataDir: s3Dir, credentials: LOCAL_CREDENTIALS }).then(started),
    ]);
    const loadWorker = moduleLoader<(payload: unknown) => Promise<unknown>>('workers');
    const loadTask = moduleLoader<TaskHandler>('tasks');
    const tasks = taskEventSources(loadTask);
    const stepFunctions = await startStepFunctions({
      stateMachines: localStateMachines(),
      lambdaInvoker: async (name, payload) => (await loadWorker(name))(payload),
      onExecutionEnded: tasks.onExecutionEnded,
    });
    stoppers.push(stepFunctions.stop);
    const queueUrls = await ensureQueues(new SQSClient({ ...LOCAL_CLIENT, endpoint: sqs.endpoint }));
    const environment = {
      ...handlerEnvironment(
        { dynamodb: dynamodb.endpoint, s3: s3.endpoint, sqs: sqs.endpoint, sfn: stepFunctions.endpoint },
        { cursorKey: await ensureCursorKey(root), webhookSecretsKey: await ensureWebhookSecretsKey(root) },
        queueUrls,
      ),
      ...(await mediaToolEnvironment()),
      ...captionFontsEnvironment(),
      ...peopleDetectorEnvironment(),
      ...transcription.environment,
      ...localLanguageModel(),
    };
    Object.assign(process.env, environment);
    // Not in `environment`, which other processes take from stack.json: the directory is this one's.
    process.env.TMPDIR = await functionsTemporaryDirectory(root);

    const fresh = await ensureTable(new DynamoDBClient({ ...LOCAL_CLIENT, endpoint: dynamodb.endpoint }));
    const s3Client = new S3Client({ ...LOCAL_CLIENT, endpoint: s3.endpoint, forcePathStyle: true });
    await ensureBucket(s3Client);
    if (!existsSync(fauxqsObjectsMoved)) {
      const fauxqs = new S3Client({ ...LOCAL_CLIENT, endpoint: sqs.endpoint, forcePathStyle: true });
      const moved = fresh ? 0 : await moveObjectsFromFauxqs(fauxqs, s3Client);
      if (moved > 0) console.log(`Local S3: moved the ${moved} stored objects of an earlier version to ${s3Dir}`);
      fauxqs.destroy();
      await writeFile(fauxqsObjectsMoved, '');
    }
    s3Client.destroy();

    // The event sources AWS runs for the stream and queue tasks; stopped before the emulators.
    const streamPoller = await startTableStreamPoller({
      endpoint: dynamodb.endpoint,
      tableName: LOCAL_TABLE_NAME,
      consumers: streamConsumersOf(TASKS),
      loadHandler: loadTask,
      checkpointFile: join(root, 'stream-checkpoints.json'),
    });
    stoppers.push(streamPoller.stop);
    const queuePoller = await startQueuePoller({
      endpoint: sqs.endpoint,
      consumers: queueConsumersOf(TASKS, queueUrls),
      loadHandler: loadTask,
    });
    stoppers.push(queuePoller.stop);

    const boundPort = (gateway.address() as AddressInfo).port;
    const apiUrl = `http://127.0.0.1:${boundPort}/api/v1/developer`;
    if (fresh && onFreshStart) await onFreshStart();
    else await restartInterruptedJobs();
    await sweepWebhookOutbox();
    tasks.startSchedules();
    stoppers.push(async () => tasks.stopSchedules());
    await writeStackInfo(root, { pid: process.pid, apiUrl, environment });
    ready = true;
    return { apiUrl, port: boundPort, transcription: transcription.summary, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
