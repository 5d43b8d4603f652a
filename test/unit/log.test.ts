import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { operation as getMe } from '#contract/operations/getMe';
import { apiHandler } from '#http/api-handler';
import { ApiError } from '#platform/errors';
import { taskHandler, workerHandler } from '#platform/invocation';
import { addLogContext, log, withLogContext } from '#platform/log';
import { callerEvent, tableKnowsCaller } from './support/api-caller';
import { deferred } from './support/deferred';

process.env.TABLE_NAME = 'table';
process.env.AWS_REGION = 'us-east-1';

const dynamo = mockClient(DynamoDBDocumentClient);

const TRACE_ROOT = '1-67a1b2c3-0123456789abcdef01234567';

/** The lines written while `work` runs, parsed, with the stream each went to. */
async function linesOf(work: () => unknown): Promise<(Record<string, unknown> & { stream: 'stdout' | 'stderr' })[]> {
  const lines: (Record<string, unknown> & { stream: 'stdout' | 'stderr' })[] = [];
  const out = jest.spyOn(console, 'log').mockImplementation((line: string) => {
    lines.push({ ...(JSON.parse(line) as Record<string, unknown>), stream: 'stdout' });
  });
  const err = jest.spyOn(console, 'error').mockImplementation((line: string) => {
    lines.push({ ...(JSON.parse(line) as Record<string, unknown>), stream: 'stderr' });
  });
  try {
    await work();
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
  return lines;
}

const previousLogLevel = process.env.LOG_LEVEL;

beforeEach(() => {
  delete process.env.LOG_LEVEL;
  delete process.env._X_AMZN_TRACE_ID;
  dynamo.reset();
});

afterAll(() => {
  process.env.LOG_LEVEL = previousLogLevel;
});

describe('levels', () => {
  const everyLevel = () => {
    log('debug', 'd');
    log('info', 'i');
    log('warn', 'w');
    log('error', 'e');
  };

  it.each([
    [undefined, ['i', 'w', 'e']],
    ['debug', ['d', 'i', 'w', 'e']],
    ['info', ['i', 'w', 'e']],
    ['WARN', ['w', 'e']],
    ['error', ['e']],
    ['silent', []],
    ['verbose', ['i', 'w', 'e']],
  ])('LOG_LEVEL=%s writes %j', async (setting, written) => {
    if (setting !== undefined) process.env.LOG_LEVEL = setting;
    expect((await linesOf(everyLevel)).map((line) => line.message)).toEqual(written);
  });

  it('writes errors to stderr and the rest to stdout, one JSON object per line', async () => {
    expect((await linesOf(everyLevel)).map(({ level, stream }) => [level, stream])).toEqual([
      ['info', 'stdout'],
      ['warn', 'stdout'],
      ['error', 'stderr'],
    ]);
  });
});

describe('the context joined to every line', () => {
  it('adds the fields of the enclosing contexts, the innermost winning, and the line’s own last', async () => {
    const lines = await linesOf(() =>
      withLogContext({ request_id: 'req_1', operation: 'getMe' }, () =>
        withLogContext({ operation: 'getAsset', job_id: undefined }, () => log('info', 'inner', { status: 200 })),
      ),
    );
    expect(lines).toEqual([
      {
        level: 'info',
        message: 'inner',
        time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        request_id: 'req_1',
        operation: 'getAsset',
        status: 200,
        stream: 'stdout',
      },
    ]);
  });

  it('never lets a field replace the level, the message or the time', async () => {
    const [line] = await linesOf(() =>
      withLogContext({ level: 'debug' }, () => log('warn', 'kept', { message: 'replaced', time: 'never' })),
    );
    expect(line).toMatchObject({ level: 'warn', message: 'kept', time: expect.stringMatching(/^\d{4}-/) });
  });

  it('keeps concurrent invocations apart, each with what it added along the way', async () => {
    // Taking turns: both begin, a adds to its context, b adds to its own and logs, then a logs.
    const bBegun = deferred();
    const aAdded = deferred();
    const bLogged = deferred();
    const lines = await linesOf(() =>
      Promise.all([
        withLogContext({ request_id: 'req_a' }, async () => {
          await bBegun.promise;
          addLogContext({ organization_id: 1 });
          aAdded.resolve();
          await bLogged.promise;
          log('info', 'request');
        }),
        withLogContext({ request_id: 'req_b' }, async () => {
          bBegun.resolve();
          await aAdded.promise;
          addLogContext({ organization_id: 2 });
          log('info', 'request');
          bLogged.resolve();
        }),
      ]),
    );
    expect(lines.map(({ request_id, organization_id }) => [request_id, organization_id])).toEqual([
      ['req_b', 2],
      ['req_a', 1],
    ]);
  });

  it('adds nothing outside any context', async () => {
    const [line] = await linesOf(() => {
      addLogContext({ organization_id: 1 });
      log('info', 'alone');
    });
    expect(line).not.toHaveProperty('organization_id');
  });
});

describe('the request pipeline’s lines', () => {
  const context = { awsRequestId: 'lambda-request-1' } as Context;

  beforeEach(() => {
    tableKnowsCaller(dynamo);
    dynamo.on(UpdateCommand).resolves({ Attributes: { request_count: 1 } });
    process.env._X_AMZN_TRACE_ID = `Root=${TRACE_ROOT};Parent=53995c3f42cd8ad8;Sampled=1`;
  });

  it('carry the request’s ids, trace, operation and organization, on every line of the request', async () => {
    let response: APIGatewayProxyStructuredResultV2 | undefined;
    const plain = callerEvent('GET', '/me');
    const event = { ...plain, requestContext: { ...plain.requestContext, requestId: 'api-gateway-request-1' } };
    const lines = await linesOf(async () => {
      const handler = apiHandler(getMe, async () => {
        log('warn', 'inside the operation');
        throw new ApiError('JOB_NOT_READY', 'Not yet.');
      });
      response = (await handler(event, context)) as APIGatewayProxyStructuredResultV2;
    });
    const joined = {
      request_id: response!.headers!['X-Request-Id'],
      api_gateway_request_id: 'api-gateway-request-1',
      lambda_request_id: 'lambda-request-1',
      trace_id: TRACE_ROOT,
      operation: 'getMe',
      organization_id: 9,
      key_prefix: 'abcdefghjkmnpqrs',
    };
    expect(joined.request_id).toMatch(/^req_/);
    expect(lines).toEqual([
      expect.objectContaining({ level: 'warn', message: 'inside the operation', ...joined }),
      expect.objectContaining({
        level: 'info',
        message: 'request',
        status: 409,
        error_code: 'JOB_NOT_READY',
        ...joined,
      }),
    ]);
    expect(lines[1]!.duration_ms).toEqual(expect.any(Number));
  });

  it('log a 4xx without a caller as info, with no organization, and a 5xx as an error', async () => {
    const refused = await linesOf(() =>
      apiHandler(getMe, async () => ({ status: 200, body: {} as never }))(
        { ...callerEvent('GET', '/me'), headers: { authorization: 'Bearer nonsense' } },
        context,
      ),
    );
    expect(refused).toEqual([expect.objectContaining({ level: 'info', status: 401, error_code: 'API_KEY_INVALID' })]);
    expect(refused[0]).not.toHaveProperty('organization_id');

    const crashed = await linesOf(() =>
      apiHandler(getMe, async () => {
        throw new Error('boom');
      })(callerEvent('GET', '/me'), context),
    );
    expect(crashed.map(({ level, message, status, stream }) => [level, message, status, stream])).toEqual([
      ['error', 'unhandled error', undefined, 'stderr'],
      ['error', 'request', 500, 'stderr'],
    ]);
    expect(crashed[0]!.error).toMatchObject({ name: 'Error', message: 'boom', stack: expect.stringContaining('boom') });
  });
});

describe('workers and tasks', () => {
  it('name the worker, the invocation, its trace and the job on every line a worker logs', async () => {
    process.env._X_AMZN_TRACE_ID = `Root=${TRACE_ROOT};Sampled=0`;
    const handler = workerHandler(
      'video-jobs/poll-render',
      async (state: { organization_id: number; job_id: string }) => {
        log('info', 'polled');
        return state;
      },
    );
    const lines = await linesOf(() =>
      handler({ organization_id: 7, job_id: 'video_job_1' }, { awsRequestId: 'lambda-request-2' } as Context),
    );
    expect(lines).toEqual([
      expect.objectContaining({
        message: 'polled',
        worker: 'video-jobs/poll-render',
        lambda_request_id: 'lambda-request-2',
        trace_id: TRACE_ROOT,
        job_id: 'video_job_1',
        organization_id: 7,
      }),
    ]);
  });

  it('name the task and, when the event is about one, the job; without trace or context locally', async () => {
    const handler = taskHandler(
      'execution-ended',
      async (event: { detail: { executionArn: string } }) => log('warn', 'ended', { arn: event.detail.executionArn }),
      (event) => event.detail.executionArn.split(':').at(-1),
    );
    const [line] = await linesOf(() =>
      handler({ detail: { executionArn: 'arn:aws:states:us-east-1:1:execution:video-job:video_job_9' } }),
    );
    expect(line).toMatchObject({ task: 'execution-ended', job_id: 'video_job_9' });
    expect(line).not.toHaveProperty('trace_id');
    expect(line).not.toHaveProperty('lambda_request_id');
  });
});
