import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { AddressInfo } from 'node:net';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ResourceNotFoundException,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { CreateBucketCommand, HeadBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { CURSOR_KEY_ENVIRONMENT } from '#platform/cursor-key-environment';
import { TABLE_DESIGN } from '#platform/table-design';
import { TRANSCRIPTION_PROVIDER_ENV } from '#domain/split-jobs/transcription/provider-setting';
import { startDynamoDb } from './emulators/dynamodb';
import { mediaToolEnvironment } from './media-tools';
import { startS3AndSqs } from './emulators/s3-sqs';
import { startStepFunctions, type ExecutionStatusChangeEvent } from './emulators/step-functions';
import { createGateway, type LambdaHandler } from './http-gateway';
import { writeStackInfo } from './stack-info';
import { RENDER_SCHEDULE_ENVIRONMENT } from '#domain/video-jobs/render-schedule';
import { TASKS, type Task } from '#tasks';
import { definitionWithWorkers, WORKFLOWS } from '#workflows';

export const LOCAL_TABLE_NAME = 'video-api-local';
export const LOCAL_BUCKET_NAME = 'video-api-media-local';

const localStateMachineArn = (workflowName: string) =>
  `arn:aws:states:us-east-1:000000000000:stateMachine:${workflowName}`;

/** The environment the deployed Lambdas get from CDK, pointed at the emulators instead of AWS. */
function handlerEnvironment(
  endpoints: {
    dynamodb: string;
    s3: string;
    sqs: string;
    sfn: string;
  },
  cursorKey: string,
): Record<string, string> {
  return {
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_ENDPOINT_URL_DYNAMODB: endpoints.dynamodb,
    AWS_ENDPOINT_URL_S3: endpoints.s3,
    AWS_ENDPOINT_URL_SQS: endpoints.sqs,
    AWS_ENDPOINT_URL_SFN: endpoints.sfn,
    S3_FORCE_PATH_STYLE: 'true',
    TABLE_NAME: LOCAL_TABLE_NAME,
    MEDIA_BUCKET_NAME: LOCAL_BUCKET_NAME,
    [CURSOR_KEY_ENVIRONMENT.localKey]: cursorKey,
    // The local renderer takes seconds, not minutes: poll it often, and give up sooner.
    VIDEO_PROVIDER: 'local',
    // No speech-to-text service runs here: split jobs' clips get no captions or titles.
    [TRANSCRIPTION_PROVIDER_ENV]: 'none',
    [RENDER_SCHEDULE_ENVIRONMENT.pollIntervalSeconds]:
      process.env[RENDER_SCHEDULE_ENVIRONMENT.pollIntervalSeconds] ?? '2',
    [RENDER_SCHEDULE_ENVIRONMENT.deadlineSeconds]: process.env[RENDER_SCHEDULE_ENVIRONMENT.deadlineSeconds] ?? '300',
    ...Object.fromEntries(
      WORKFLOWS.map((workflow) => [workflow.arnEnvironmentVariable, localStateMachineArn(workflow.name)]),
    ),
  };
}

/** Loads a Lambda module the way the runtime would: once, then reused for every invocation. */
function moduleLoader<T>(folder: string) {
  const loaded = new Map<string, Promise<T>>();
  return (name: string): Promise<T> => {
    let handler = loaded.get(name);
    if (!handler) {
      handler = import(`../lambdas/${folder}/${name}`).then((module: { handler: T }) => module.handler);
      loaded.set(name, handler);
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

/** Creates the table as the CDK stack declares it; answers whether it had to (a fresh data dir). */
async function ensureTable(client: DynamoDBClient): Promise<boolean> {
  try {
    await client.send(new DescribeTableCommand({ TableName: LOCAL_TABLE_NAME }));
    return false;
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException)) throw error;
  }
  const { partitionKey, sortKey, indexes, timeToLiveAttribute } = TABLE_DESIGN;
  const keyAttributes = new Set([
    partitionKey,
    sortKey,
    ...indexes.flatMap((index) => [index.partitionKey, index.sortKey]),
  ]);
  await client.send(
    new CreateTableCommand({
      TableName: LOCAL_TABLE_NAME,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [...keyAttributes].map((name) => ({ AttributeName: name, AttributeType: 'S' })),
      KeySchema: [
        { AttributeName: partitionKey, KeyType: 'HASH' },
        { AttributeName: sortKey, KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: indexes.map((index) => ({
        IndexName: index.indexName,
        KeySchema: [
          { AttributeName: index.partitionKey, KeyType: 'HASH' },
          { AttributeName: index.sortKey, KeyType: 'RANGE' },
        ],
        Projection:
          index.projection === 'all'
            ? { ProjectionType: 'ALL' }
            : { ProjectionType: 'INCLUDE', NonKeyAttributes: [...index.projection] },
      })),
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
 * The local stand-in for the cursor key's secret: generated with the data dir and kept in it, so
 * cursors survive a restart as they survive a redeploy in AWS.
 */
async function ensureCursorKey(root: string): Promise<string> {
  const file = join(root, 'cursor-key');
  try {
    return (await readFile(file, 'utf8')).trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const key = `local-${randomBytes(4).toString('hex')}:${randomBytes(32).toString('base64')}`;
  await writeFile(file, `${key}\n`, { mode: 0o600 });
  return key;
}

async function ensureBucket(client: S3Client) {
  try {
    await client.send(new HeadBucketCommand({ Bucket: LOCAL_BUCKET_NAME }));
  } catch {
    await client.send(new CreateBucketCommand({ Bucket: LOCAL_BUCKET_NAME }));
  }
}

type TaskHandler = (event: unknown) => Promise<unknown>;

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
 * The local Step Functions emulator keeps executions in memory, so a restart loses the ones
 * under way (in AWS they survive). The reconciler, run at once for every active job whatever its
 * age, starts them again; the state machine finds each render gone and ends the job through its
 * normal failure path (refund, slot released).
 */
async function restartInterruptedJobs() {
  // Imported only now: its clients read the emulator endpoints from the environment when created.
  const { reconcileJobs } = await import('#domain/jobs/reconciler');
  await reconcileJobs({ restartAfterSeconds: 0 });
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
  stop(): Promise<void>;
}

export async function startLocalStack({ port, dataDir, onFreshStart }: LocalStackOptions): Promise<LocalStack> {
  const root = resolve(dataDir);
  await mkdir(join(root, 'dynamodb'), { recursive: true });
  await mkdir(join(root, 's3-sqs'), { recursive: true });
  const stoppers: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const stopOne of stoppers.reverse()) await stopOne().catch((error) => console.error(error));
  };
  try {
    const [dynamodb, s3sqs] = await Promise.all([
      startDynamoDb({ dataDir: join(root, 'dynamodb') }).then((emulator) => {
        stoppers.push(emulator.stop);
        return emulator;
      }),
      startS3AndSqs({ dataDir: join(root, 's3-sqs') }).then((emulator) => {
        stoppers.push(emulator.stop);
        return emulator;
      }),
    ]);
    const loadWorker = moduleLoader<(payload: unknown) => Promise<unknown>>('workers');
    const tasks = taskEventSources(moduleLoader<TaskHandler>('tasks'));
    const stepFunctions = await startStepFunctions({
      stateMachines: localStateMachines(),
      lambdaInvoker: async (name, payload) => (await loadWorker(name))(payload),
      onExecutionEnded: tasks.onExecutionEnded,
    });
    stoppers.push(stepFunctions.stop);
    const environment = {
      ...handlerEnvironment(
        { dynamodb: dynamodb.endpoint, s3: s3sqs.endpoint, sqs: s3sqs.endpoint, sfn: stepFunctions.endpoint },
        await ensureCursorKey(root),
      ),
      ...(await mediaToolEnvironment()),
    };
    Object.assign(process.env, environment);

    const fresh = await ensureTable(new DynamoDBClient({ endpoint: dynamodb.endpoint }));
    await ensureBucket(new S3Client({ endpoint: s3sqs.endpoint, forcePathStyle: true }));

    let ready = false;
    const gateway = createGateway({
      loadHandler: moduleLoader<LambdaHandler>('handlers'),
      extraRoutes: {
        '/healthz': (response) => {
          response.writeHead(ready ? 200 : 503, { 'Content-Type': 'application/json' });
          response.end(JSON.stringify({ status: ready ? 'ok' : 'starting' }));
        },
      },
    });
    await new Promise<void>((resolveListen, reject) => {
      gateway.once('error', reject);
      gateway.listen(port, '127.0.0.1', () => resolveListen());
    });
    stoppers.push(
      () =>
        new Promise<void>((resolveClose) => {
          gateway.close(() => resolveClose());
          gateway.closeAllConnections();
        }),
    );
    const boundPort = (gateway.address() as AddressInfo).port;
    const apiUrl = `http://127.0.0.1:${boundPort}/api/v1/developer`;
    if (fresh && onFreshStart) await onFreshStart();
    else await restartInterruptedJobs();
    tasks.startSchedules();
    stoppers.push(async () => tasks.stopSchedules());
    await writeStackInfo(root, { pid: process.pid, apiUrl, environment });
    ready = true;
    return { apiUrl, port: boundPort, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
