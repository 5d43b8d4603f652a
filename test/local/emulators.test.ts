import { rm } from 'node:fs/promises';
import {
  CreateTableCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  TransactionCanceledException,
  TransactWriteItemsCommand,
} from '@aws-sdk/client-dynamodb';
import {
  DescribeExecutionCommand,
  ExecutionAlreadyExists,
  ExecutionDoesNotExist,
  ListExecutionsCommand,
  SFNClient,
  StartExecutionCommand,
  StopExecutionCommand,
} from '@aws-sdk/client-sfn';
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { startDynamoDb, type DynamoDbEmulator } from '../../local/emulators/dynamodb';
import { startSqs, type SqsEmulator } from '../../local/emulators/sqs';
import {
  startStepFunctions,
  type ExecutionStatusChangeEvent,
  type LambdaInvoker,
  type StepFunctionsEmulator,
} from '../../local/emulators/step-functions';
import { stackDataDir } from '../support/stack-data-dir';

const LOCAL = { region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } };

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const dataDirs: string[] = [];
async function tempDataDir() {
  const dir = await stackDataDir('emulators-test-');
  dataDirs.push(dir);
  return dir;
}
afterAll(async () => {
  await Promise.all(dataDirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('DynamoDB Local', () => {
  let dataDir: string;
  let emulator: DynamoDbEmulator;
  const dynamo = () => new DynamoDBClient({ ...LOCAL, endpoint: emulator.endpoint });

  beforeAll(async () => {
    dataDir = await tempDataDir();
    emulator = await startDynamoDb({ dataDir });
    await dynamo().send(
      new CreateTableCommand({
        TableName: 'things',
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      }),
    );
  });
  afterAll(() => emulator.stop());

  it('cancels a transaction whose condition fails, with one reason per item', async () => {
    await dynamo().send(
      new PutItemCommand({ TableName: 'things', Item: { pk: { S: 'taken' }, owner: { S: 'first' } } }),
    );
    const transaction = dynamo().send(
      new TransactWriteItemsCommand({
        TransactItems: [
          { Put: { TableName: 'things', Item: { pk: { S: 'new' } } } },
          {
            Put: {
              TableName: 'things',
              Item: { pk: { S: 'taken' }, owner: { S: 'second' } },
              ConditionExpression: 'attribute_not_exists(pk)',
              ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
            },
          },
        ],
      }),
    );
    const error = await transaction.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TransactionCanceledException);
    expect((error as TransactionCanceledException).CancellationReasons).toEqual([
      { Code: 'None' },
      expect.objectContaining({ Code: 'ConditionalCheckFailed', Item: { pk: { S: 'taken' }, owner: { S: 'first' } } }),
    ]);
    const untouched = await dynamo().send(new GetItemCommand({ TableName: 'things', Key: { pk: { S: 'new' } } }));
    expect(untouched.Item).toBeUndefined();
  });

  it('keeps tables and items in the data dir across a restart, and stop() ends the java process', async () => {
    await dynamo().send(new PutItemCommand({ TableName: 'things', Item: { pk: { S: 'kept' } } }));
    const firstPid = emulator.pid;
    await emulator.stop();
    expect(isRunning(firstPid)).toBe(false);

    emulator = await startDynamoDb({ dataDir });
    const kept = await dynamo().send(new GetItemCommand({ TableName: 'things', Key: { pk: { S: 'kept' } } }));
    expect(kept.Item).toEqual({ pk: { S: 'kept' } });
  });
});

describe('fauxqs as SQS', () => {
  let dataDir: string;
  let emulator: SqsEmulator;
  const sqs = () => new SQSClient({ ...LOCAL, endpoint: emulator.endpoint });

  beforeAll(async () => {
    dataDir = await tempDataDir();
    emulator = await startSqs({ dataDir });
  });
  afterAll(() => emulator.stop());

  it('sends, receives and deletes SQS messages', async () => {
    const { QueueUrl } = await sqs().send(new CreateQueueCommand({ QueueName: 'work' }));
    await sqs().send(new SendMessageCommand({ QueueUrl, MessageBody: '{"job":1}' }));
    const received = await sqs().send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 1 }));
    expect(received.Messages?.map((message) => message.Body)).toEqual(['{"job":1}']);
    await sqs().send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: received.Messages?.[0]?.ReceiptHandle }));
    const attributes = await sqs().send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['All'] }));
    expect(attributes.Attributes).toMatchObject({
      ApproximateNumberOfMessages: '0',
      ApproximateNumberOfMessagesNotVisible: '0',
    });
  });

  it('hands out queue URLs on its own endpoint, which clients configured only by AWS_ENDPOINT_URL_SQS follow', async () => {
    const { QueueUrl } = await sqs().send(new CreateQueueCommand({ QueueName: 'by-environment' }));
    expect(QueueUrl).toBe(`${emulator.endpoint}/000000000000/by-environment`);
    const previous = process.env.AWS_ENDPOINT_URL_SQS;
    process.env.AWS_ENDPOINT_URL_SQS = emulator.endpoint;
    try {
      // No `endpoint` in code: the SDK sends the call to the QueueUrl's host.
      const viaEnvironment = new SQSClient(LOCAL);
      await viaEnvironment.send(new SendMessageCommand({ QueueUrl, MessageBody: 'hello' }));
      const received = await viaEnvironment.send(new ReceiveMessageCommand({ QueueUrl }));
      expect(received.Messages?.[0]?.Body).toBe('hello');
    } finally {
      if (previous === undefined) delete process.env.AWS_ENDPOINT_URL_SQS;
      else process.env.AWS_ENDPOINT_URL_SQS = previous;
    }
  });

  it('keeps queues and messages in the data dir across a restart, and stop() ends its process', async () => {
    const { QueueUrl } = await sqs().send(new CreateQueueCommand({ QueueName: 'kept' }));
    await sqs().send(new SendMessageCommand({ QueueUrl, MessageBody: 'pending' }));
    const firstPid = emulator.pid;
    await emulator.stop();
    expect(isRunning(firstPid)).toBe(false);

    emulator = await startSqs({ dataDir });
    const queue = await sqs().send(new GetQueueUrlCommand({ QueueName: 'kept' }));
    expect(queue.QueueUrl).toBe(`${emulator.endpoint}/000000000000/kept`);
    const received = await sqs().send(new ReceiveMessageCommand({ QueueUrl: queue.QueueUrl }));
    expect(received.Messages?.map((message) => message.Body)).toEqual(['pending']);
  });
});

describe('Step Functions emulator', () => {
  const RENDER_MACHINE = 'arn:aws:states:us-east-1:000000000000:stateMachine:render';
  const PLAIN_TASK_MACHINE = 'arn:aws:states:us-east-1:000000000000:stateMachine:plain-task';
  const WAIT_MACHINE = 'arn:aws:states:us-east-1:000000000000:stateMachine:wait';
  const TIMEOUT_MACHINE = 'arn:aws:states:us-east-1:000000000000:stateMachine:timeout';

  /** Render until the function says done: retried when busy, polled after a wait, failed on anything else. */
  const renderDefinition = {
    StartAt: 'Render',
    States: {
      Render: {
        Type: 'Task',
        Resource: 'arn:aws:states:::lambda:invoke',
        Parameters: { FunctionName: 'render-function', Payload: { 'job.$': '$.job' } },
        ResultSelector: { 'payload.$': '$.Payload' },
        ResultPath: '$.render',
        Retry: [{ ErrorEquals: ['RenderBusy'], IntervalSeconds: 1, MaxAttempts: 2, BackoffRate: 2 }],
        Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: '$.failure', Next: 'RenderFailed' }],
        Next: 'IsDone',
      },
      IsDone: {
        Type: 'Choice',
        Choices: [{ Variable: '$.render.payload.status', StringEquals: 'done', Next: 'Done' }],
        Default: 'WaitForRender',
      },
      WaitForRender: { Type: 'Wait', Seconds: 10, Next: 'Render' },
      Done: { Type: 'Succeed', OutputPath: '$.render.payload' },
      RenderFailed: { Type: 'Fail', Error: 'RenderFailed', CausePath: '$.failure.Cause' },
    },
  };
  const plainTaskDefinition = {
    StartAt: 'Render',
    States: {
      Render: { Type: 'Task', Resource: 'arn:aws:lambda:us-east-1:000000000000:function:render-function', End: true },
    },
  };

  const waitDefinition = {
    StartAt: 'Pause',
    States: { Pause: { Type: 'Wait', SecondsPath: '$.delaySeconds', Next: 'Echo' }, Echo: { Type: 'Pass', End: true } },
  };

  const timeoutDefinition = { ...plainTaskDefinition, TimeoutSeconds: 1 };

  let emulator: StepFunctionsEmulator;
  const ended: ExecutionStatusChangeEvent[] = [];
  const sfn = () => new SFNClient({ ...LOCAL, endpoint: emulator.endpoint });
  const calls: { functionName: string; payload: unknown }[] = [];
  /** What the render function does, call by call, per job. */
  const scripts = new Map<string, (() => Promise<unknown>)[]>();

  const namedError = (name: string, message: string) => Object.assign(new Error(message), { name });
  const lambdaInvoker: LambdaInvoker = async (functionName, payload) => {
    calls.push({ functionName, payload });
    const step = scripts.get((payload as { job: string }).job)?.shift();
    if (!step) throw new Error('the render function was called more often than scripted');
    return step();
  };

  async function finished(executionArn: string) {
    await emulator.idle();
    return sfn().send(new DescribeExecutionCommand({ executionArn }));
  }

  beforeAll(async () => {
    emulator = await startStepFunctions({
      stateMachines: {
        [RENDER_MACHINE]: { definition: renderDefinition },
        [PLAIN_TASK_MACHINE]: { definition: plainTaskDefinition },
        [WAIT_MACHINE]: { definition: waitDefinition },
        [TIMEOUT_MACHINE]: { definition: timeoutDefinition },
      },
      lambdaInvoker,
      waitTimeScale: 0.01,
      onExecutionEnded: (event) => ended.push(event),
    });
  });
  afterAll(() => emulator.stop());
  beforeEach(() => {
    calls.length = 0;
  });

  it('retries a named error, waits (scaled) between polls, and succeeds with the output the definition selects', async () => {
    scripts.set('retried', [
      async () => Promise.reject(namedError('RenderBusy', 'try again')),
      async () => ({ status: 'pending' }),
      async () => ({ status: 'done', url: 's3://media/out.mp4' }),
    ]);
    const startedAt = Date.now();
    const { executionArn } = await sfn().send(
      new StartExecutionCommand({ stateMachineArn: RENDER_MACHINE, name: 'retried', input: '{"job":"retried"}' }),
    );
    const execution = await finished(executionArn!);

    expect(execution).toMatchObject({
      status: 'SUCCEEDED',
      name: 'retried',
      stateMachineArn: RENDER_MACHINE,
      input: '{"job":"retried"}',
    });
    expect(JSON.parse(execution.output!)).toEqual({ status: 'done', url: 's3://media/out.mp4' });
    expect(execution.stopDate!.getTime()).toBeGreaterThanOrEqual(execution.startDate!.getTime());
    expect(calls).toEqual(Array(3).fill({ functionName: 'render-function', payload: { job: 'retried' } }));
    // A 1 s retry interval and a 10 s wait, both scaled by 0.01.
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(100);
    expect(Date.now() - startedAt).toBeLessThan(5000);
  });

  it('catches an error no retrier matches and fails through the Fail state, with the Lambda error as cause', async () => {
    scripts.set('rejected', [async () => Promise.reject(namedError('RenderRejected', 'unsupported codec'))]);
    const { executionArn } = await sfn().send(
      new StartExecutionCommand({ stateMachineArn: RENDER_MACHINE, name: 'rejected', input: '{"job":"rejected"}' }),
    );
    const execution = await finished(executionArn!);

    expect(execution.status).toBe('FAILED');
    expect(execution.error).toBe('RenderFailed');
    expect(JSON.parse(execution.cause!)).toMatchObject({
      errorType: 'RenderRejected',
      errorMessage: 'unsupported codec',
    });
    expect(execution.output).toBeUndefined();
    expect(calls).toHaveLength(1);
  });

  it('fails the execution with the error name and the Lambda error document when nothing catches the error', async () => {
    const plainTask = 'arn:aws:lambda:us-east-1:000000000000:function:render-function';
    scripts.set('plain', [async () => Promise.reject(namedError('RenderBusy', 'still busy'))]);
    const { executionArn } = await sfn().send(
      new StartExecutionCommand({ stateMachineArn: PLAIN_TASK_MACHINE, input: '{"job":"plain"}' }),
    );
    const execution = await finished(executionArn!);

    expect(execution).toMatchObject({ status: 'FAILED', error: 'RenderBusy' });
    expect(JSON.parse(execution.cause!)).toMatchObject({ errorType: 'RenderBusy', errorMessage: 'still busy' });
    expect(calls).toEqual([{ functionName: plainTask, payload: { job: 'plain' } }]);
  });

  it('passes a plain function ARN task the state input and takes its raw result as output', async () => {
    scripts.set('raw', [async () => ({ rendered: true })]);
    const { executionArn } = await sfn().send(
      new StartExecutionCommand({ stateMachineArn: PLAIN_TASK_MACHINE, input: '{"job":"raw"}' }),
    );
    const execution = await finished(executionArn!);
    expect(execution.status).toBe('SUCCEEDED');
    expect(JSON.parse(execution.output!)).toEqual({ rendered: true });
  });

  it('waits the seconds SecondsPath names, scaled, and passes the input through', async () => {
    const startedAt = Date.now();
    const { executionArn } = await sfn().send(
      new StartExecutionCommand({ stateMachineArn: WAIT_MACHINE, input: '{"delaySeconds":20}' }),
    );
    const execution = await finished(executionArn!);
    expect(execution.status).toBe('SUCCEEDED');
    expect(JSON.parse(execution.output!)).toEqual({ delaySeconds: 20 });
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(200);
  });

  it('treats a repeated start as idempotent only while the execution runs with the same input', async () => {
    let release!: () => void;
    const held = new Promise<unknown>((resolve) => {
      release = () => resolve({ status: 'done' });
    });
    scripts.set('held', [() => held]);
    const start = (input: string) =>
      sfn().send(new StartExecutionCommand({ stateMachineArn: RENDER_MACHINE, name: 'held', input }));

    const first = await start('{"job":"held"}');
    const again = await start('{"job":"held"}');
    expect(again).toMatchObject({ executionArn: first.executionArn, startDate: first.startDate });
    await expect(start('{"job":"held","other":true}')).rejects.toBeInstanceOf(ExecutionAlreadyExists);

    const listed = await sfn().send(
      new ListExecutionsCommand({ stateMachineArn: RENDER_MACHINE, statusFilter: 'RUNNING' }),
    );
    expect(listed.executions?.map((execution) => execution.name)).toEqual(['held']);

    release();
    expect((await finished(first.executionArn!)).status).toBe('SUCCEEDED');
    await expect(start('{"job":"held"}')).rejects.toBeInstanceOf(ExecutionAlreadyExists);
  });

  it('aborts an execution on StopExecution, keeping the given error and cause', async () => {
    scripts.set('stopped', [() => new Promise(() => {})]);
    const { executionArn } = await sfn().send(
      new StartExecutionCommand({ stateMachineArn: RENDER_MACHINE, name: 'stopped', input: '{"job":"stopped"}' }),
    );
    await sfn().send(new StopExecutionCommand({ executionArn, error: 'Cancelled', cause: 'by the test' }));
    const execution = await finished(executionArn!);
    expect(execution).toMatchObject({ status: 'ABORTED', error: 'Cancelled', cause: 'by the test' });
  });

  it('ends an execution past its TimeoutSeconds as TIMED_OUT', async () => {
    scripts.set('slow', [() => new Promise(() => {})]);
    const { executionArn } = await sfn().send(
      new StartExecutionCommand({ stateMachineArn: TIMEOUT_MACHINE, name: 'slow', input: '{"job":"slow"}' }),
    );
    expect((await finished(executionArn!)).status).toBe('TIMED_OUT');
  });

  it('sends every end of an execution as the EventBridge status change event, with its input', async () => {
    scripts.set('announced', [async () => Promise.reject(namedError('RenderBusy', 'still busy'))]);
    const { executionArn } = await sfn().send(
      new StartExecutionCommand({
        stateMachineArn: PLAIN_TASK_MACHINE,
        name: 'announced',
        input: '{"job":"announced"}',
      }),
    );
    await finished(executionArn!);
    const event = ended.find((candidate) => candidate.detail.executionArn === executionArn);
    expect(event).toMatchObject({
      source: 'aws.states',
      'detail-type': 'Step Functions Execution Status Change',
      region: 'us-east-1',
      account: '000000000000',
      resources: [executionArn],
      detail: {
        stateMachineArn: PLAIN_TASK_MACHINE,
        name: 'announced',
        status: 'FAILED',
        input: '{"job":"announced"}',
        error: 'RenderBusy',
      },
    });
    expect(new Set(ended.map((candidate) => candidate.detail.status))).toEqual(
      new Set(['SUCCEEDED', 'FAILED', 'ABORTED', 'TIMED_OUT']),
    );
  });

  it('refuses to start with a task that is not a Lambda function', async () => {
    const sendsToSqs = {
      StartAt: 'Send',
      States: { Send: { Type: 'Task', Resource: 'arn:aws:states:::sqs:sendMessage', End: true } },
    };
    const starting = startStepFunctions({
      stateMachines: { [RENDER_MACHINE]: { definition: sendsToSqs } },
      lambdaInvoker,
    });
    await expect(starting).rejects.toThrow('state "Send": arn:aws:states:::sqs:sendMessage is not supported locally');
  });

  it('answers ExecutionDoesNotExist for an unknown execution ARN', async () => {
    const unknown = sfn().send(
      new DescribeExecutionCommand({
        executionArn: `${RENDER_MACHINE.replace(':stateMachine:', ':execution:')}:nobody`,
      }),
    );
    await expect(unknown).rejects.toBeInstanceOf(ExecutionDoesNotExist);
  });
});
