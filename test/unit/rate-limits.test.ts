import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, UpdateCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import type { APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { operation as getMe } from '#contract/operations/getMe';
import { admitRequest } from '#domain/access/rate-limits';
import { callerEvent, tableKnowsCaller } from './support/api-caller';

process.env.TABLE_NAME = 'table';
process.env.AWS_REGION = 'us-east-1';

const dynamo = mockClient(DynamoDBDocumentClient);

const LIMITS = { perMinute: 60, perDay: 10_000 };
const NOW_MS = Date.parse('2026-03-01T12:00:30.000Z');
const MINUTE_COUNTER = { pk: 'RATE#KEY#abcdefghjkmnpqrs', sk: `MINUTE#${Math.floor(NOW_MS / 60_000)}` };
const DAY_COUNTER = { pk: 'RATE#ORG#9', sk: 'DAY#2026-03-01' };

type Outcome = 'admit' | 'refuse' | 'throw';

function throttled() {
  return Object.assign(new Error('Rate of requests exceeds the allowed throughput.'), { name: 'ThrottlingException' });
}

/**
 * The two counters as DynamoDB would answer them: each take admits (count 5), refuses (already at
 * its limit) or fails outright; a give-back succeeds unless `giveBack` is 'throw'.
 */
function counters(outcomes: { minute: Outcome; day: Outcome; giveBack?: 'succeed' | 'throw' }) {
  dynamo.on(UpdateCommand).callsFake(async (input: UpdateCommandInput) => {
    const isMinute = input.Key?.pk === MINUTE_COUNTER.pk;
    if (input.ExpressionAttributeValues?.[':minus_one'] === -1) {
      if (outcomes.giveBack === 'throw') throw throttled();
      return {};
    }
    switch (isMinute ? outcomes.minute : outcomes.day) {
      case 'admit':
        return { Attributes: { request_count: 5 } };
      case 'refuse':
        throw new ConditionalCheckFailedException({
          message: 'The conditional request failed',
          $metadata: {},
          Item: { request_count: { N: String(isMinute ? LIMITS.perMinute : LIMITS.perDay) } },
        });
      case 'throw':
        throw throttled();
    }
  });
}

/** The counters whose slot was given back (ADD -1), in call order. */
function givenBack() {
  return dynamo
    .commandCalls(UpdateCommand)
    .map((call) => call.args[0].input)
    .filter((input) => input.ExpressionAttributeValues?.[':minus_one'] === -1)
    .map((input) => input.Key);
}

beforeEach(() => {
  dynamo.reset();
});

describe('admitting a request when a counter update fails outright', () => {
  it("gives the day's slot back when the minute counter throws, then throws that error", async () => {
    counters({ minute: 'throw', day: 'admit' });

    await expect(admitRequest('abcdefghjkmnpqrs', 9, LIMITS, NOW_MS)).rejects.toMatchObject({
      name: 'ThrottlingException',
    });
    expect(givenBack()).toEqual([DAY_COUNTER]);
  });

  it("gives the minute's slot back when the day counter throws, then throws that error", async () => {
    counters({ minute: 'admit', day: 'throw' });

    await expect(admitRequest('abcdefghjkmnpqrs', 9, LIMITS, NOW_MS)).rejects.toMatchObject({
      name: 'ThrottlingException',
    });
    expect(givenBack()).toEqual([MINUTE_COUNTER]);
  });

  it.each([
    ['the other refused', { minute: 'throw', day: 'refuse' }],
    ['both threw', { minute: 'throw', day: 'throw' }],
  ] as const)('gives nothing back when %s: no slot was taken', async (_, outcomes) => {
    counters(outcomes);

    await expect(admitRequest('abcdefghjkmnpqrs', 9, LIMITS, NOW_MS)).rejects.toMatchObject({
      name: 'ThrottlingException',
    });
    expect(givenBack()).toEqual([]);
  });

  it('still throws the counter error when the give-back fails too, and logs the give-back', async () => {
    counters({ minute: 'admit', day: 'throw', giveBack: 'throw' });
    const lines = jest.spyOn(console, 'log').mockImplementation(() => undefined);

    await expect(admitRequest('abcdefghjkmnpqrs', 9, LIMITS, NOW_MS)).rejects.toMatchObject({
      name: 'ThrottlingException',
    });
    expect(lines.mock.calls.map(([line]) => JSON.parse(String(line)))).toEqual([
      expect.objectContaining({ level: 'warn', counter: MINUTE_COUNTER }),
    ]);
    lines.mockRestore();
  });
});

describe('refusing a request when the give-back fails', () => {
  it('answers the refusal, keeping the slot counted in the window that could not give it back', async () => {
    counters({ minute: 'refuse', day: 'admit', giveBack: 'throw' });
    const lines = jest.spyOn(console, 'log').mockImplementation(() => undefined);

    const state = await admitRequest('abcdefghjkmnpqrs', 9, LIMITS, NOW_MS);

    expect(state.exceeded).toEqual(['minute']);
    expect(state.minute).toMatchObject({ used: 60, remaining: 0 });
    expect(state.day).toMatchObject({ used: 5, remaining: LIMITS.perDay - 5 });
    expect(givenBack()).toEqual([DAY_COUNTER]);
    expect(lines.mock.calls.map(([line]) => JSON.parse(String(line)))).toEqual([
      expect.objectContaining({
        level: 'warn',
        counter: DAY_COUNTER,
        error: { name: 'ThrottlingException', message: expect.any(String) },
      }),
    ]);
    lines.mockRestore();
  });

  it('answers 429 with Retry-After and the rate-limit headers through the request pipeline', async () => {
    tableKnowsCaller(dynamo);
    // The pipeline takes the counters at the real time, so the fake matches them by partition.
    dynamo.on(UpdateCommand).callsFake(async (input: UpdateCommandInput) => {
      if (input.ExpressionAttributeValues?.[':minus_one'] === -1) throw throttled();
      if (input.Key?.pk === MINUTE_COUNTER.pk) {
        throw new ConditionalCheckFailedException({
          message: 'The conditional request failed',
          $metadata: {},
          Item: { request_count: { N: '60' } },
        });
      }
      return { Attributes: { request_count: 5 } };
    });
    const lines = jest.spyOn(console, 'log').mockImplementation(() => undefined);
    const { apiHandler } = await import('#http/api-handler');
    const handler = apiHandler(getMe, async () => {
      throw new Error('a refused request must not reach the operation');
    });

    const response = (await handler(callerEvent('GET', '/me'), {} as Context)) as APIGatewayProxyStructuredResultV2;

    expect(response.statusCode).toBe(429);
    expect(JSON.parse(response.body as string)).toMatchObject({ error: { code: 'RATE_LIMIT_EXCEEDED' } });
    expect(response.headers).toMatchObject({
      'Retry-After': expect.stringMatching(/^\d+$/),
      'X-RateLimit-Limit': '60',
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Limit-Organization-Day': '10000',
      'X-RateLimit-Remaining-Organization-Day': '9995',
    });
    lines.mockRestore();
  });
});
