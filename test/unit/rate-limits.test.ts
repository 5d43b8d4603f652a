import fc from 'fast-check';
import {
  BatchGetCommand,
  DynamoDBDocumentClient,
  QueryCommand,
  UpdateCommand,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import type { APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { operation as getMe } from '#contract/operations/getMe';
import { admitCounted, countRequest, readRateLimitState, requestsInDays } from '#domain/access/rate-limits';
import { callerEvent, tableKnowsCaller } from './support/api-caller';
import { addedCounters } from './support/transactions';

process.env.TABLE_NAME = 'table';
process.env.AWS_REGION = 'us-east-1';

const dynamo = mockClient(DynamoDBDocumentClient);

const LIMITS = { perMinute: 60, perDay: 10_000 };
const NOW_MS = Date.parse('2026-03-01T12:00:30.000Z');
const MINUTE_COUNTER = { pk: 'RATE#KEY#abcdefghjkmnpqrs', sk: `MINUTE#${Math.floor(NOW_MS / 60_000)}` };
const DAY_COUNTER = { pk: 'RATE#ORG#9', sk: 'DAY#2026-03-01' };

type Outcome = number | 'throw';

function throttled() {
  return Object.assign(new Error('Rate of requests exceeds the allowed throughput.'), { name: 'ThrottlingException' });
}

/**
 * The two counters as DynamoDB would answer them: each count answers the window's count with the
 * request in it, or fails outright; a give-back succeeds unless `giveBack` is 'throw'.
 */
function counters(outcomes: { minute: Outcome; day: Outcome; giveBack?: 'succeed' | 'throw' }) {
  dynamo.on(UpdateCommand).callsFake(async (input: UpdateCommandInput) => {
    if (input.ExpressionAttributeValues?.[':minus_one'] === -1) {
      if (outcomes.giveBack === 'throw') throw throttled();
      return {};
    }
    const outcome = input.Key?.pk === MINUTE_COUNTER.pk ? outcomes.minute : outcomes.day;
    if (outcome === 'throw') throw throttled();
    return { Attributes: { request_count: outcome } };
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

async function admit(limits = LIMITS) {
  return admitCounted(await countRequest('abcdefghjkmnpqrs', 9, NOW_MS), limits);
}

beforeEach(() => {
  dynamo.reset();
});

describe('counting a request when a counter update fails outright', () => {
  it("gives the day's count back when the minute counter throws, then throws that error", async () => {
    counters({ minute: 'throw', day: 5 });

    await expect(countRequest('abcdefghjkmnpqrs', 9, NOW_MS)).rejects.toMatchObject({ name: 'ThrottlingException' });
    expect(givenBack()).toEqual([DAY_COUNTER]);
  });

  it("gives the minute's count back when the day counter throws, then throws that error", async () => {
    counters({ minute: 5, day: 'throw' });

    await expect(countRequest('abcdefghjkmnpqrs', 9, NOW_MS)).rejects.toMatchObject({ name: 'ThrottlingException' });
    expect(givenBack()).toEqual([MINUTE_COUNTER]);
  });

  it('gives nothing back when both threw: nothing was counted', async () => {
    counters({ minute: 'throw', day: 'throw' });

    await expect(countRequest('abcdefghjkmnpqrs', 9, NOW_MS)).rejects.toMatchObject({ name: 'ThrottlingException' });
    expect(givenBack()).toEqual([]);
  });

  it('still throws the counter error when the give-back fails too, and logs the give-back', async () => {
    counters({ minute: 5, day: 'throw', giveBack: 'throw' });
    const lines = jest.spyOn(console, 'log').mockImplementation(() => undefined);

    await expect(countRequest('abcdefghjkmnpqrs', 9, NOW_MS)).rejects.toMatchObject({ name: 'ThrottlingException' });
    expect(lines.mock.calls.map(([line]) => JSON.parse(String(line)))).toEqual([
      expect.objectContaining({ level: 'warn', counter: MINUTE_COUNTER }),
    ]);
    lines.mockRestore();
  });
});

describe('judging a counted request against the limits', () => {
  it('admits a request whose counts are within both limits, giving nothing back', async () => {
    counters({ minute: LIMITS.perMinute, day: 5 });

    const state = await admit();

    expect(state.exceeded).toEqual([]);
    expect(state.minute).toMatchObject({ limit: 60, used: 60, remaining: 0 });
    expect(state.day).toMatchObject({ limit: 10_000, used: 5, remaining: 9995 });
    expect(givenBack()).toEqual([]);
  });

  it.each([
    ['the minute', { minute: 61, day: 5 }, ['minute']],
    ['the day', { minute: 5, day: 10_001 }, ['day']],
    ['both windows', { minute: 61, day: 10_001 }, ['minute', 'day']],
  ] as const)('refuses a request past %s, giving it back from both windows', async (_, counts, exceeded) => {
    counters(counts);

    const state = await admit();

    expect(state.exceeded).toEqual(exceeded);
    expect(givenBack()).toEqual(expect.arrayContaining([MINUTE_COUNTER, DAY_COUNTER]));
    expect(givenBack()).toHaveLength(2);
    expect(state.minute.used).toBe(Math.min(counts.minute - 1, LIMITS.perMinute));
    expect(state.day.used).toBe(Math.min(counts.day - 1, LIMITS.perDay));
  });

  it('reports a window crowded by other refused requests as full, never past its limit', async () => {
    counters({ minute: 75, day: 5 });

    const state = await admit();

    expect(state.minute).toMatchObject({ limit: 60, used: 60, remaining: 0 });
  });

  it('answers the refusal when a give-back fails, keeping the request counted in that window', async () => {
    counters({ minute: 61, day: 5, giveBack: 'throw' });
    const lines = jest.spyOn(console, 'log').mockImplementation(() => undefined);

    const state = await admit();

    expect(state.exceeded).toEqual(['minute']);
    expect(state.minute).toMatchObject({ used: 60, remaining: 0 });
    expect(state.day).toMatchObject({ used: 5, remaining: LIMITS.perDay - 5 });
    expect(lines.mock.calls.map(([line]) => JSON.parse(String(line)).counter)).toEqual(
      expect.arrayContaining([MINUTE_COUNTER, DAY_COUNTER]),
    );
    lines.mockRestore();
  });

  it('answers 429 with Retry-After and the rate-limit headers through the request pipeline', async () => {
    tableKnowsCaller(dynamo);
    // The pipeline counts at the real time, so the fake matches the counters by partition.
    dynamo.on(UpdateCommand).callsFake(async (input: UpdateCommandInput) => {
      if (input.ExpressionAttributeValues?.[':minus_one'] === -1) return {};
      return { Attributes: { request_count: input.Key?.pk === MINUTE_COUNTER.pk ? 61 : 6 } };
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

describe('requests racing for the last slots of a window', () => {
  /** One counter item that applies each update atomically, in the order the scheduler lets them land. */
  function atomicCounter(schedule: fc.Scheduler) {
    const counts = new Map<string, number>();
    dynamo.on(UpdateCommand).callsFake(async (input: UpdateCommandInput) => {
      await schedule.schedule(Promise.resolve(), 'update lands');
      const name = `${String(input.Key?.pk)}|${String(input.Key?.sk)}`;
      const amount = input.ExpressionAttributeValues?.[':minus_one'] === -1 ? -1 : 1;
      counts.set(name, (counts.get(name) ?? 0) + amount);
      return { Attributes: { request_count: counts.get(name) } };
    });
    return (counter: { pk: string; sk: string }) => counts.get(`${counter.pk}|${counter.sk}`) ?? 0;
  }

  it('admits exactly as many as the limit allows, in any order of landing, and counts only those', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.integer({ min: 0, max: 5 }),
        fc.integer({ min: 1, max: 12 }),
        async (schedule, limit, requests) => {
          dynamo.reset();
          const countOf = atomicCounter(schedule);
          const limits = { perMinute: limit, perDay: 1000 };
          const outcomes = Array.from({ length: requests }, () => admit(limits));
          await schedule.waitFor(Promise.all(outcomes));
          const admitted = (await Promise.all(outcomes)).filter((state) => state.exceeded.length === 0).length;
          expect(admitted).toBe(Math.min(limit, requests));
          expect(countOf(MINUTE_COUNTER)).toBe(admitted);
          expect(countOf(DAY_COUNTER)).toBe(admitted);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe("counting a key's requests in the organization's day", () => {
  /** What the updates of one counter's item added, in call order. */
  const additionsTo = (counter: { pk: string; sk: string }) =>
    dynamo
      .commandCalls(UpdateCommand)
      .map((call) => call.args[0].input)
      .filter((input) => input.Key?.pk === counter.pk && input.Key?.sk === counter.sk)
      .map(addedCounters);

  it("adds the request to the calling key's counter in the same update as the day's count", async () => {
    counters({ minute: 5, day: 5 });

    await admit();

    expect(additionsTo(DAY_COUNTER)).toEqual([{ request_count: 1, key_abcdefghjkmnpqrs: 1 }]);
    expect(additionsTo(MINUTE_COUNTER)).toEqual([{ request_count: 1 }]);
  });

  it("takes the request back from both of the day's counters when the minute refuses it", async () => {
    counters({ minute: 61, day: 5 });

    const state = await admit();

    expect(state.exceeded).toEqual(['minute']);
    expect(additionsTo(DAY_COUNTER)).toEqual([
      { request_count: 1, key_abcdefghjkmnpqrs: 1 },
      { request_count: -1, key_abcdefghjkmnpqrs: -1 },
    ]);
  });
});

describe('reading the rate-limit windows', () => {
  it('answers both windows as they stand, reading them consistently and counting nothing', async () => {
    dynamo.on(BatchGetCommand).resolves({
      Responses: {
        table: [
          { ...DAY_COUNTER, request_count: 40, key_abcdefghjkmnpqrs: 12 },
          { ...MINUTE_COUNTER, request_count: 3 },
        ],
      },
    });

    const state = await readRateLimitState('abcdefghjkmnpqrs', 9, LIMITS, NOW_MS);

    expect(state.minute).toMatchObject({ limit: 60, used: 3, remaining: 57 });
    expect(state.day).toMatchObject({ limit: 10_000, used: 40, remaining: 9960 });
    expect(dynamo.commandCalls(BatchGetCommand)[0]!.args[0].input.RequestItems).toEqual({
      table: { Keys: [MINUTE_COUNTER, DAY_COUNTER], ConsistentRead: true },
    });
    expect(dynamo.calls()).toHaveLength(1);
  });

  it('answers a window not yet counted as unused', async () => {
    dynamo.on(BatchGetCommand).resolves({ Responses: { table: [] } });

    const state = await readRateLimitState('abcdefghjkmnpqrs', 9, LIMITS, NOW_MS);

    expect(state.minute).toMatchObject({ used: 0, remaining: 60 });
    expect(state.day).toMatchObject({ used: 0, remaining: 10_000 });
  });
});

describe('the requests of a range of days', () => {
  /** Two pages of day windows, the second missing the key's counter (it made no request that day). */
  function dayWindows() {
    dynamo
      .on(QueryCommand)
      .resolvesOnce({
        Items: [
          { request_count: 40, key_abcdefghjkmnpqrs: 12 },
          { request_count: 7, key_abcdefghjkmnpqrs: 7 },
        ],
        LastEvaluatedKey: { pk: 'RATE#ORG#9', sk: 'DAY#2026-03-02' },
      })
      .resolvesOnce({ Items: [{ request_count: 5 }] });
  }

  it("sums the organization's requests across every page of the range", async () => {
    dayWindows();

    await expect(requestsInDays(9, { firstDay: '2026-03-01', lastDay: '2026-03-03' })).resolves.toBe(52);

    const queries = dynamo.commandCalls(QueryCommand).map((call) => call.args[0].input);
    expect(queries).toHaveLength(2);
    expect(queries[0]).toMatchObject({
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :first AND :last',
      ExpressionAttributeValues: { ':pk': 'RATE#ORG#9', ':first': 'DAY#2026-03-01', ':last': 'DAY#2026-03-03' },
      ConsistentRead: true,
    });
    expect(queries[1]!.ExclusiveStartKey).toEqual({ pk: 'RATE#ORG#9', sk: 'DAY#2026-03-02' });
  });

  it("sums one key's counter across every page, a day without it counting none", async () => {
    dayWindows();

    await expect(
      requestsInDays(9, { firstDay: '2026-03-01', lastDay: '2026-03-03' }, 'abcdefghjkmnpqrs'),
    ).resolves.toBe(19);

    const [query] = dynamo.commandCalls(QueryCommand).map((call) => call.args[0].input);
    expect(query!.ExpressionAttributeNames).toEqual({ '#count': 'key_abcdefghjkmnpqrs' });
  });
});
