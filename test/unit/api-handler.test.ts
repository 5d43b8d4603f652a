import { mockClient } from 'aws-sdk-client-mock';
import { BatchGetCommand, DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { ApiError } from '#platform/errors';
import { operation as createVideoJob } from '#contract/operations/createVideoJob';
import { operation as getMe } from '#contract/operations/getMe';
import {
  CALLER_PREFIX,
  callerEvent,
  callerItems,
  callerKey,
  NAMING_CALLER_PREFIX,
  tableKnowsCaller,
} from './support/api-caller';

process.env.TABLE_NAME = 'table';
process.env.AWS_REGION = 'us-east-1';

const dynamo = mockClient(DynamoDBDocumentClient);

async function invoke(
  operation: () => Promise<never>,
  prefix = CALLER_PREFIX,
): Promise<APIGatewayProxyStructuredResultV2> {
  const { apiHandler } = await import('#http/api-handler');
  const handler = apiHandler(getMe, operation);
  const event = callerEvent('GET', '/me', { key: callerKey(prefix) });
  return (await handler(event, {} as Context)) as APIGatewayProxyStructuredResultV2;
}

beforeEach(() => {
  dynamo.reset();
  tableKnowsCaller(dynamo);
  dynamo.on(UpdateCommand).resolves({ Attributes: { request_count: 1 } });
});

describe('the request pipeline', () => {
  it('turns an unexpected failure into a 500 envelope with the request id and no internals', async () => {
    const errors = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    const response = await invoke(async () => {
      throw new Error('connect ECONNREFUSED 10.0.0.7:5432 table=secret-internal');
    });
    const body = JSON.parse(response.body as string) as {
      error: { code: string; message: string; request_id: string };
    };
    expect(response.statusCode).toBe(500);
    expect(body.error.code).toBe('INTERNAL_ERROR');
    expect(body.error.request_id).toMatch(/^req_/);
    expect(body.error.message).toContain(body.error.request_id);
    expect(response.body).not.toContain('ECONNREFUSED');
    expect(response.body).not.toContain('secret-internal');
    expect(response.headers).toMatchObject({
      'X-Request-Id': body.error.request_id,
      'X-RateLimit-Limit': '60',
      'X-RateLimit-Remaining': '59',
    });
    const logged = errors.mock.calls.map((call) => String(call[0])).join('\n');
    expect(logged).toContain(body.error.request_id);
    expect(logged).toContain('ECONNREFUSED');
    errors.mockRestore();
  });

  it('maps an application error to its status and code once, with the rate-limit headers', async () => {
    const response = await invoke(async () => {
      throw new ApiError('JOB_NOT_READY', 'Not yet.');
    });
    expect(response.statusCode).toBe(409);
    expect(JSON.parse(response.body as string)).toMatchObject({
      error: { code: 'JOB_NOT_READY', message: 'Not yet.' },
    });
    expect(response.headers).toMatchObject({
      'X-RateLimit-Limit-Organization-Day': '10000',
      'Cache-Control': 'no-store',
    });
  });

  it.each([
    ['whose prefix names its organization', 'two', NAMING_CALLER_PREFIX, [['key and organization'], ['counter']]],
    [
      'whose prefix is random (made before prefixes named it)',
      'three',
      CALLER_PREFIX,
      [['key'], ['counter', 'organization']],
    ],
  ])(
    'authenticates and counts a key %s in two round trips of %s table calls',
    async (_, __, prefix, expectedRounds) => {
      // Each call is held until the test releases every call in flight: one release is one round trip.
      const rounds: string[][] = [[]];
      const held: (() => void)[] = [];
      const heldCall = (name: string, answer: unknown) => async () => {
        rounds.at(-1)?.push(name);
        await new Promise<void>((release) => held.push(release));
        return answer;
      };
      const items = callerItems([], prefix);
      dynamo.reset();
      for (const [name, item] of Object.entries(items)) {
        dynamo.on(GetCommand, { Key: { pk: item.pk, sk: item.sk } }).callsFake(heldCall(name, { Item: item }));
      }
      dynamo
        .on(BatchGetCommand)
        .callsFake(heldCall('key and organization', { Responses: { table: Object.values(items) } }));
      dynamo.on(UpdateCommand).callsFake(heldCall('counter', { Attributes: { request_count: 1 } }));
      let answered = false;
      const response = invoke(async () => {
        throw new ApiError('JOB_NOT_READY', 'Not yet.');
      }, prefix).finally(() => (answered = true));

      while (!answered) {
        await new Promise((settle) => setImmediate(settle));
        if (held.length > 0 && rounds.at(-1)?.length === held.length) {
          rounds.push([]);
          for (const release of held.splice(0)) release();
        }
      }

      expect((await response).statusCode).toBe(409);
      expect(rounds.filter((round) => round.length > 0).map((round) => round.sort())).toEqual(expectedRounds);
    },
  );

  it('refuses a key whose named organization is gone, without counting the request', async () => {
    dynamo.reset();
    dynamo.on(BatchGetCommand).resolves({ Responses: { table: [callerItems([], NAMING_CALLER_PREFIX).key] } });
    const response = await invoke(async () => {
      throw new Error('the operation must not run');
    }, NAMING_CALLER_PREFIX);
    expect(response.statusCode).toBe(401);
    expect(JSON.parse(response.body as string)).toMatchObject({ error: { code: 'API_KEY_INVALID' } });
    expect(dynamo.commandCalls(UpdateCommand)).toHaveLength(0);
  });
});

describe('header values', () => {
  /** A text as the gateway passes a header of its UTF-8 bytes: one character a byte. */
  const sentAsUtf8 = (text: string) => Buffer.from(text, 'utf8').toString('latin1');

  /** The Idempotency-Key a create reads from the header sent, or its 400 message. */
  async function idempotencyKeyRead(sent: string): Promise<{ key?: string; refusal?: string }> {
    const { apiHandler } = await import('#http/api-handler');
    let key: string | undefined;
    const handler = apiHandler(createVideoJob, async ({ headers }) => {
      key = headers['idempotency-key'];
      throw new ApiError('JOB_NOT_READY', 'Read, not created.');
    });
    const event = callerEvent('POST', '/video-jobs', {
      body: JSON.stringify({ prompt: 'A lighthouse', duration_seconds: 5 }),
      headers: { 'idempotency-key': sent },
    });
    const response = (await handler(event, {} as Context)) as APIGatewayProxyStructuredResultV2;
    if (response.statusCode === 400) {
      return { refusal: (JSON.parse(response.body as string) as { error: { message: string } }).error.message };
    }
    expect(response.statusCode).toBe(409);
    return { key };
  }

  beforeEach(() => tableKnowsCaller(dynamo, ['video:create']));

  it('counts an Idempotency-Key sent as UTF-8 in characters: 120 "€" are taken, 121 refused', async () => {
    expect(await idempotencyKeyRead(sentAsUtf8('€'.repeat(120)))).toEqual({ key: '€'.repeat(120) });
    expect(await idempotencyKeyRead(sentAsUtf8('😀'.repeat(120)))).toEqual({ key: '😀'.repeat(120) });
    expect(await idempotencyKeyRead(sentAsUtf8('€'.repeat(121)))).toEqual({
      refusal: 'Header Idempotency-Key must be at most 120 characters',
    });
  });

  it('keeps a value whose bytes are not UTF-8 (ISO-8859-1, as fetch sends é), and one decoded already', async () => {
    expect(await idempotencyKeyRead('é'.repeat(120))).toEqual({ key: 'é'.repeat(120) });
    expect(await idempotencyKeyRead('order-42 ü')).toEqual({ key: 'order-42 ü' });
    expect(await idempotencyKeyRead('€'.repeat(120))).toEqual({ key: '€'.repeat(120) });
    expect(await idempotencyKeyRead('order-42')).toEqual({ key: 'order-42' });
  });
});
