import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  ExecutionAbortedError,
  ExecutionError,
  ExecutionTimeoutError,
  StateMachine,
  type RunOptions,
  type StateMachineDefinition,
} from 'aws-local-stepfunctions';

/**
 * A Step Functions endpoint for the local stack: the AWS JSON 1.0 protocol `@aws-sdk/client-sfn`
 * speaks (StartExecution, DescribeExecution, ListExecutions, StopExecution), executions run in
 * the background by aws-local-stepfunctions, and every Lambda task handed to `lambdaInvoker`.
 *
 * Executions live in memory only: a restart forgets them, and ones still running are lost
 * (nothing resumes them). Only Lambda tasks run: `arn:aws:states:::lambda:invoke` (the optimised
 * integration) and plain function ARNs or names; any other integration, `.waitForTaskToken` and
 * activities included, is refused when the emulator starts.
 */

/** Runs a Lambda function locally; what it throws, by `name`, is what Retry and Catch match on. */
export type LambdaInvoker = (functionNameOrArn: string, payload: unknown) => Promise<unknown>;

export interface StepFunctionsOptions {
  /** Defaults to a free port. */
  port?: number;
  /** Keyed by state machine ARN (`arn:aws:states:<region>:<account>:stateMachine:<name>`). */
  stateMachines: Record<string, { definition: object }>;
  lambdaInvoker: LambdaInvoker;
  /**
   * Multiplies every Wait state's duration and every Retry interval (and MaxDelaySeconds).
   * 1, the default, waits as AWS does; 0.01 turns a 10 s wait into 100 ms, for tests.
   */
  waitTimeScale?: number;
  /**
   * Receives every execution's end as the EventBridge event Step Functions sends in AWS
   * ("Step Functions Execution Status Change"), for the local stack to route like a rule would.
   */
  onExecutionEnded?: (event: ExecutionStatusChangeEvent) => void;
}

/** The EventBridge event of an execution's status change, as Step Functions emits it. */
export interface ExecutionStatusChangeEvent {
  version: '0';
  id: string;
  'detail-type': 'Step Functions Execution Status Change';
  source: 'aws.states';
  account: string;
  time: string;
  region: string;
  resources: string[];
  detail: {
    executionArn: string;
    stateMachineArn: string;
    name: string;
    status: Exclude<ExecutionStatus, 'RUNNING'>;
    /** Epoch milliseconds, as in AWS. */
    startDate: number;
    stopDate: number;
    input: string;
    output: string | null;
    error: string | null;
    cause: string | null;
  };
}

export interface StepFunctionsEmulator {
  /** `http://127.0.0.1:<port>`, for `new SFNClient({ endpoint })` or AWS_ENDPOINT_URL_SFN. */
  endpoint: string;
  /** Aborts running executions and closes the server. Lambda invocations already under way finish on their own. */
  stop(): Promise<void>;
  /** Resolves once no execution is running, including ones started meanwhile. */
  idle(): Promise<void>;
}

type ExecutionStatus = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT' | 'ABORTED';

/** What DescribeExecution and ListExecutions tell of an execution: all that is kept of it once it has ended. */
interface Execution {
  executionArn: string;
  stateMachineArn: string;
  name: string;
  /** As the caller sent it: AWS compares it verbatim to decide whether a repeated start is idempotent. */
  input: string;
  status: ExecutionStatus;
  startDate: Date;
  stopDate?: Date;
  output?: string;
  error?: string;
  cause?: string;
}

/**
 * What a running execution needs besides: its run's state lives in these closures, so they are
 * dropped when it ends, and an execution kept for DescribeExecution holds its data only.
 */
interface RunControls {
  abort: () => void;
  /**
   * Settles the tasks still waiting when the execution ends on its own (a timeout): the library
   * leaves them waiting, each with its task timer, which would keep the process alive for days.
   */
  releaseTasks: () => void;
  settled: Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// State machine definitions

type AslState = Record<string, unknown> & { Type: string };
interface AslStates {
  States: Record<string, AslState>;
}

const LAMBDA_INVOKE = /^arn:[^:]+:states:::lambda:invoke$/;
const ANY_STATES_RESOURCE = /^arn:[^:]+:states:/;
const STATE_MACHINE_ARN = /^arn:[^:]+:states:[^:]*:[^:]*:stateMachine:[^:]+$/;

/**
 * The longest delay a Node timer takes (2^31-1 ms, about 24.8 days). The library's Task default
 * is 60 s, where AWS has none: a task without TimeoutSeconds gets this instead.
 */
const MAX_TIMER_SECONDS = Math.floor(0x7fffffff / 1000);

/** How a Task state runs here. */
type TaskRoute = { kind: 'lambda:invoke' } | { kind: 'function'; functionNameOrArn: string } | { kind: 'scaled-wait' };

interface PreparedStateMachine {
  arn: string;
  name: string;
  machine: StateMachine;
  /** By state name: Step Functions requires state names to be unique across the whole machine, nested ones included. */
  tasks: Map<string, TaskRoute>;
}

const STATE_TYPES: ReadonlySet<string> = new Set([
  'Task',
  'Parallel',
  'Map',
  'Pass',
  'Wait',
  'Choice',
  'Succeed',
  'Fail',
] satisfies StateMachineDefinition['States'][string]['Type'][]);

/**
 * Whether a machine has the frame aws-local-stepfunctions runs: its StartAt, and every state,
 * nested ones too, of a type the library knows. What the states say beyond that is the library's
 * own validation's to check, which `prepare` runs on the definition as written; the copy it runs
 * skips it, since its adjustments would not pass (fractional intervals, local resources).
 */
function isRunnable(machine: AslStates): machine is AslStates & StateMachineDefinition {
  let known = 'StartAt' in machine && typeof machine.StartAt === 'string';
  forEachState(machine, (_, state) => {
    known &&= STATE_TYPES.has(state.Type);
  });
  return known;
}

function forEachState(machine: AslStates, visit: (name: string, state: AslState) => void) {
  for (const [name, state] of Object.entries(machine.States)) {
    visit(name, state);
    for (const branch of (state.Branches as AslStates[] | undefined) ?? []) forEachState(branch, visit);
    const processor = (state.ItemProcessor ?? state.Iterator) as AslStates | undefined;
    if (processor) forEachState(processor, visit);
  }
}

/**
 * Validates the definition as written, then runs a copy adjusted for local use: Task timeouts
 * as in AWS, and, when waits are scaled, Retry intervals scaled and Wait states turned into
 * local tasks that sleep the scaled time (the library's wait override is a fixed duration per
 * state, which cannot follow SecondsPath or a Timestamp).
 */
function prepare(arn: string, definition: object, waitTimeScale: number): PreparedStateMachine {
  if (!STATE_MACHINE_ARN.test(arn)) throw new Error(`Not a state machine ARN: ${arn}`);
  try {
    // Not checkArn: locally a task's Resource may name a function that is no ARN (workflows.ts
    // substitutes handler modules), and any states ARN other than lambda:invoke is refused below.
    new StateMachine(definition as StateMachineDefinition, { validationOptions: { checkArn: false } });
  } catch (error) {
    throw new Error(`State machine ${arn}: ${(error as Error).message}`);
  }
  // A JSON copy, not structuredClone: the library only expands payload templates whose prototype
  // is its own realm's Object.prototype, and under Jest structuredClone builds objects in another realm.
  const runnable = JSON.parse(JSON.stringify(definition)) as AslStates;
  const tasks = new Map<string, TaskRoute>();
  const scaled = waitTimeScale !== 1;
  forEachState(runnable, (stateName, state) => {
    if (state.Type === 'Task') {
      const resource = String(state.Resource);
      if (LAMBDA_INVOKE.test(resource)) tasks.set(stateName, { kind: 'lambda:invoke' });
      else if (ANY_STATES_RESOURCE.test(resource)) {
        throw new Error(
          `State machine ${arn}, state "${stateName}": ${resource} is not supported locally (only Lambda tasks are)`,
        );
      } else tasks.set(stateName, { kind: 'function', functionNameOrArn: resource });
      if (state.TimeoutSeconds === undefined && state.TimeoutSecondsPath === undefined)
        state.TimeoutSeconds = MAX_TIMER_SECONDS;
      else if (typeof state.TimeoutSeconds === 'number')
        state.TimeoutSeconds = Math.min(state.TimeoutSeconds, MAX_TIMER_SECONDS);
    }
    if (scaled && Array.isArray(state.Retry)) {
      state.Retry = (state.Retry as Record<string, unknown>[]).map((retrier) => ({
        ...retrier,
        IntervalSeconds: Number(retrier.IntervalSeconds ?? 1) * waitTimeScale,
        ...(retrier.MaxDelaySeconds === undefined
          ? {}
          : { MaxDelaySeconds: Number(retrier.MaxDelaySeconds) * waitTimeScale }),
      }));
    }
    if (scaled && state.Type === 'Wait') {
      const { Seconds, SecondsPath, Timestamp, TimestampPath } = state;
      const duration =
        Seconds !== undefined
          ? { seconds: Seconds }
          : SecondsPath !== undefined
            ? { 'seconds.$': SecondsPath }
            : Timestamp !== undefined
              ? { timestamp: Timestamp }
              : { 'timestamp.$': TimestampPath };
      for (const field of ['Seconds', 'SecondsPath', 'Timestamp', 'TimestampPath']) delete state[field];
      // InputPath, OutputPath, Next and End carry over; without a ResultPath the task's result (its input) is the output.
      Object.assign(state, {
        Type: 'Task',
        Resource: 'local:scaled-wait',
        Parameters: { 'input.$': '$', ...duration },
        TimeoutSeconds: MAX_TIMER_SECONDS,
      });
      tasks.set(stateName, { kind: 'scaled-wait' });
    }
  });
  if (!isRunnable(runnable))
    throw new Error(`State machine ${arn}: its adjusted copy lost its StartAt or a state's Type`);
  return {
    arn,
    name: arn.slice(arn.lastIndexOf(':') + 1),
    // Already validated above; the adjusted copy is not valid ASL (fractional intervals, local resources).
    machine: new StateMachine(runnable, { validationOptions: { noValidate: true } }),
    tasks,
  };
}

/** What Step Functions reports when a Lambda function throws: the error type, and the Lambda error document as cause. */
function lambdaFailure(thrown: unknown): Error {
  // Not `instanceof Error`: under Jest, errors from Node's own modules come from another realm.
  const { name, message, stack } = (typeof thrown === 'object' && thrown !== null ? thrown : {}) as Partial<Error>;
  const errorType = typeof name === 'string' ? name : 'Error';
  const errorMessage = typeof message === 'string' ? message : String(thrown);
  const failure = new Error(JSON.stringify({ errorType, errorMessage, trace: (stack ?? '').split('\n') }));
  failure.name = errorType;
  return failure;
}

/** A Lambda response goes through JSON on its way back, as it would over the wire. */
async function invokeAsLambda(invoke: LambdaInvoker, functionNameOrArn: string, payload: unknown): Promise<JsonValue> {
  try {
    const result = await invoke(functionNameOrArn, payload);
    return JSON.parse(JSON.stringify(result ?? null));
  } catch (error) {
    throw lambdaFailure(error);
  }
}

type LocalTaskHandlers = NonNullable<NonNullable<RunOptions['overrides']>['taskResourceLocalHandlers']>;
type JsonValue = Parameters<LocalTaskHandlers[string]>[0];
type TaskHandler = (input: JsonValue) => Promise<JsonValue>;

/**
 * Settles a task when its execution is stopped. The library does not: it would keep waiting for
 * the invocation, and keep its task timeout timer (days long, see MAX_TIMER_SECONDS) alive.
 * Nor does it stop a Retry from running the task again: once stopped, nothing is invoked.
 */
function untilAborted(task: () => Promise<JsonValue>, signal: AbortSignal): Promise<JsonValue> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    task()
      .then(resolve, reject)
      .finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function taskHandlers(
  prepared: PreparedStateMachine,
  invoke: LambdaInvoker,
  waitTimeScale: number,
  signal: AbortSignal,
): LocalTaskHandlers {
  const handlers: Record<string, TaskHandler> = {};
  for (const [stateName, route] of prepared.tasks) {
    if (route.kind === 'function') {
      handlers[stateName] = (input) => invokeAsLambda(invoke, route.functionNameOrArn, input);
    } else if (route.kind === 'lambda:invoke') {
      handlers[stateName] = async (input) => {
        const { FunctionName, Payload } = (input ?? {}) as { FunctionName?: unknown; Payload?: unknown };
        if (typeof FunctionName !== 'string')
          throw statesRuntimeError(`State "${stateName}": Parameters.FunctionName must be a string`);
        const result = await invokeAsLambda(invoke, FunctionName, Payload ?? {});
        // The optimised integration's result: the Invoke response, with Payload parsed.
        return {
          ExecutedVersion: '$LATEST',
          Payload: result,
          SdkHttpMetadata: { HttpHeaders: {}, HttpStatusCode: 200 },
          SdkResponseMetadata: { RequestId: randomUUID() },
          StatusCode: 200,
        };
      };
    } else {
      handlers[stateName] = async (input) => {
        const {
          input: stateInput,
          seconds,
          timestamp,
        } = input as { input: JsonValue; seconds?: JsonValue; timestamp?: JsonValue };
        const milliseconds =
          seconds !== undefined ? Number(seconds) * 1000 : Date.parse(String(timestamp)) - Date.now();
        if (Number.isNaN(milliseconds))
          throw statesRuntimeError(
            `State "${stateName}": not a wait duration: ${JSON.stringify(seconds ?? timestamp)}`,
          );
        await sleep(Math.max(0, milliseconds) * waitTimeScale, undefined, { signal });
        return stateInput;
      };
    }
  }
  return Object.fromEntries(
    Object.entries(handlers).map(([stateName, handler]) => [
      stateName,
      (input: JsonValue) => untilAborted(() => handler(input), signal),
    ]),
  );
}

function statesRuntimeError(message: string) {
  const error = new Error(message);
  error.name = 'States.Runtime';
  return error;
}

// ---------------------------------------------------------------------------------------------
// The API

/** An error in the AWS JSON protocol: `__type` is what the SDK turns into an exception class. */
class ServiceError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly statusCode = 400,
  ) {
    super(message);
  }
}

type Body = Record<string, unknown>;

function requiredString(body: Body, field: string): string {
  const value = body[field];
  if (typeof value !== 'string' || value === '') throw new ServiceError('ValidationException', `${field} is required`);
  return value;
}

/** 1-80 characters, none of them whitespace, brackets, wildcards, `"#%\^|~`$&,;:/` or control characters. */
const EXECUTION_NAME = /^[^\s<>{}[\]?*"#%\\^|~`$&,;:/\p{Cc}]{1,80}$/u;

const epochSeconds = (date: Date) => date.getTime() / 1000;

function summary(execution: Execution) {
  return {
    executionArn: execution.executionArn,
    stateMachineArn: execution.stateMachineArn,
    name: execution.name,
    status: execution.status,
    startDate: epochSeconds(execution.startDate),
    ...(execution.stopDate ? { stopDate: epochSeconds(execution.stopDate) } : {}),
  };
}

function statusChangeEvent(
  execution: Execution,
  status: Exclude<ExecutionStatus, 'RUNNING'>,
): ExecutionStatusChangeEvent {
  const [, , , region = 'us-east-1', account = '000000000000'] = execution.executionArn.split(':');
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': 'Step Functions Execution Status Change',
    source: 'aws.states',
    account,
    time: new Date().toISOString(),
    region,
    resources: [execution.executionArn],
    detail: {
      executionArn: execution.executionArn,
      stateMachineArn: execution.stateMachineArn,
      name: execution.name,
      status,
      startDate: execution.startDate.getTime(),
      stopDate: (execution.stopDate ?? new Date()).getTime(),
      input: execution.input,
      output: execution.output ?? null,
      error: execution.error ?? null,
      cause: execution.cause ?? null,
    },
  };
}

function debug(line: string) {
  if (process.env.LOCAL_DEBUG) console.error(`[step-functions] ${line}`);
}

export async function startStepFunctions({
  port = 0,
  stateMachines,
  lambdaInvoker,
  waitTimeScale = 1,
  onExecutionEnded,
}: StepFunctionsOptions): Promise<StepFunctionsEmulator> {
  const machines = new Map(
    Object.entries(stateMachines).map(([arn, { definition }]) => [arn, prepare(arn, definition, waitTimeScale)]),
  );
  const executions = new Map<string, Execution>();
  const running = new Map<Execution, RunControls>();

  function finish(
    execution: Execution,
    status: Exclude<ExecutionStatus, 'RUNNING'>,
    result: Partial<Pick<Execution, 'output' | 'error' | 'cause'>> = {},
  ) {
    const controls = running.get(execution);
    if (!controls) return;
    Object.assign(execution, { status, stopDate: new Date() }, result);
    running.delete(execution);
    controls.releaseTasks();
    const elapsed = execution.stopDate!.getTime() - execution.startDate.getTime();
    debug(`${status} ${execution.executionArn} in ${elapsed} ms${execution.error ? ` (${execution.error})` : ''}`);
    onExecutionEnded?.(statusChangeEvent(execution, status));
  }

  function run(prepared: PreparedStateMachine, name: string, input: string): Execution {
    const executionArn = `${prepared.arn.replace(':stateMachine:', ':execution:')}:${name}`;
    const startDate = new Date();
    const stopped = new AbortController();
    const { result, abort } = prepared.machine.run(JSON.parse(input), {
      overrides: { taskResourceLocalHandlers: taskHandlers(prepared, lambdaInvoker, waitTimeScale, stopped.signal) },
      context: {
        Execution: { Id: executionArn, Name: name, RoleArn: 'arn:aws:iam::000000000000:role/local-step-functions' },
        StateMachine: { Id: prepared.arn, Name: prepared.name },
      },
    });
    const execution: Execution = {
      executionArn,
      stateMachineArn: prepared.arn,
      name,
      input,
      status: 'RUNNING',
      startDate,
    };
    running.set(execution, {
      abort: () => {
        abort();
        stopped.abort();
      },
      releaseTasks: () => stopped.abort(),
      settled: result.then(
        (output) => finish(execution, 'SUCCEEDED', { output: JSON.stringify(output) }),
        (error: unknown) => {
          if (error instanceof ExecutionAbortedError) finish(execution, 'ABORTED');
          else if (error instanceof ExecutionTimeoutError) finish(execution, 'TIMED_OUT');
          else if (error instanceof ExecutionError && error.cause instanceof Error)
            finish(execution, 'FAILED', { error: error.cause.name, cause: error.cause.message });
          else finish(execution, 'FAILED', { error: 'States.Runtime', cause: String(error) });
        },
      ),
    });
    executions.set(executionArn, execution);
    debug(`started ${executionArn}`);
    return execution;
  }

  function existingExecution(body: Body): Execution {
    const executionArn = requiredString(body, 'executionArn');
    const execution = executions.get(executionArn);
    if (!execution) throw new ServiceError('ExecutionDoesNotExist', `Execution Does Not Exist: '${executionArn}'`);
    return execution;
  }

  const actions: Record<string, (body: Body) => unknown> = {
    StartExecution(body) {
      const stateMachineArn = requiredString(body, 'stateMachineArn');
      const prepared = machines.get(stateMachineArn);
      if (!prepared)
        throw new ServiceError('StateMachineDoesNotExist', `State Machine Does Not Exist: '${stateMachineArn}'`);
      const name = body.name === undefined ? randomUUID() : String(body.name);
      if (!EXECUTION_NAME.test(name)) throw new ServiceError('InvalidName', `Invalid Name: '${name}'`);
      const input = body.input === undefined ? '{}' : String(body.input);
      try {
        JSON.parse(input);
      } catch {
        throw new ServiceError('InvalidExecutionInput', `Invalid State Machine Execution Input: '${input}'`);
      }
      const executionArn = `${stateMachineArn.replace(':stateMachine:', ':execution:')}:${name}`;
      const existing = executions.get(executionArn);
      if (existing) {
        // As in AWS: the same name and input while it still runs is the same start; anything else is a conflict.
        if (existing.status === 'RUNNING' && existing.input === input)
          return { executionArn, startDate: epochSeconds(existing.startDate) };
        throw new ServiceError('ExecutionAlreadyExists', `Execution Already Exists: '${executionArn}'`);
      }
      const execution = run(prepared, name, input);
      return { executionArn, startDate: epochSeconds(execution.startDate) };
    },

    DescribeExecution(body) {
      const execution = existingExecution(body);
      return {
        ...summary(execution),
        input: execution.input,
        inputDetails: { included: true },
        ...(execution.output === undefined ? {} : { output: execution.output, outputDetails: { included: true } }),
        ...(execution.error === undefined ? {} : { error: execution.error }),
        ...(execution.cause === undefined ? {} : { cause: execution.cause }),
      };
    },

    /** Newest first, like AWS; `nextToken` is an offset into that list. */
    ListExecutions(body) {
      const stateMachineArn = requiredString(body, 'stateMachineArn');
      if (!machines.has(stateMachineArn))
        throw new ServiceError('StateMachineDoesNotExist', `State Machine Does Not Exist: '${stateMachineArn}'`);
      const matching = [...executions.values()]
        .filter(
          (execution) =>
            execution.stateMachineArn === stateMachineArn &&
            (body.statusFilter === undefined || execution.status === body.statusFilter),
        )
        .reverse();
      const offset = body.nextToken === undefined ? 0 : Number(body.nextToken);
      const pageSize = Math.min(Number(body.maxResults) || 100, 1000);
      const page = matching.slice(offset, offset + pageSize);
      const next = offset + page.length < matching.length ? { nextToken: String(offset + page.length) } : {};
      return { executions: page.map(summary), ...next };
    },

    StopExecution(body) {
      const execution = existingExecution(body);
      const controls = running.get(execution);
      if (controls) {
        controls.abort();
        finish(execution, 'ABORTED', {
          ...(body.error === undefined ? {} : { error: String(body.error) }),
          ...(body.cause === undefined ? {} : { cause: String(body.cause) }),
        });
      }
      return { stopDate: epochSeconds(execution.stopDate!) };
    },
  };

  async function handle(request: IncomingMessage, response: ServerResponse) {
    const reply = (statusCode: number, payload: unknown, errorType?: string) => {
      response.writeHead(statusCode, {
        'Content-Type': 'application/x-amz-json-1.0',
        'x-amzn-RequestId': randomUUID(),
        ...(errorType ? { 'x-amzn-ErrorType': errorType } : {}),
      });
      response.end(JSON.stringify(payload));
    };
    try {
      const target = String(request.headers['x-amz-target'] ?? '');
      const action = target.startsWith('AWSStepFunctions.')
        ? actions[target.slice('AWSStepFunctions.'.length)]
        : undefined;
      if (request.method !== 'POST' || !action)
        throw new ServiceError(
          'UnknownOperationException',
          `Unknown operation ${target || `${request.method} ${request.url}`}`,
        );
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      let body: Body;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Body;
      } catch {
        throw new ServiceError('SerializationException', 'The request body is not JSON');
      }
      reply(200, action(body));
    } catch (error) {
      const serviceError =
        error instanceof ServiceError ? error : new ServiceError('InternalFailure', String(error), 500);
      reply(serviceError.statusCode, { __type: serviceError.code, message: serviceError.message }, serviceError.code);
    }
  }

  const server = createServer((request, response) => void handle(request, response));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  debug(`listening at ${endpoint} (${machines.size} state machines, wait time scale ${waitTimeScale})`);

  return {
    endpoint,
    async idle() {
      while (running.size > 0) await Promise.all([...running.values()].map((controls) => controls.settled));
    },
    async stop() {
      for (const [execution, controls] of [...running]) {
        controls.abort();
        finish(execution, 'ABORTED');
      }
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
