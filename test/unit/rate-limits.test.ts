import fc from 'fast-check';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  UpdateCommand,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import type { APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { operation as getMe } from '#contract/operations/getMe';
import {
  admitCounted,
  countRequest,
  readRateLimitState,
  requestsInDays,
  uncountRequest,
} from '#domain/access/rate-limits';
import { CALLER_PREFIX, callerEvent, tableKnowsCaller } from './support/api-caller';

process.env.TABLE_NAME = 'table';
process.env.AWS_REGION = 'us-east-1';

const dynamo = mockClient(DynamoDBDocumentClient);

const LIMITS = { perMinute: 60, perDay: 10_000 };
const NOW_MS = Date.parse('2026-03-01T12:00:30.000Z');
const MINUTE = Math.floor(NOW_MS / 60_000);
const DAY_WINDOW = { pk: 'RATE#ORG#9', sk: 'DAY#2026-03-01' };

type Item = Record<string, number>;

/** The conditions rate-limits.ts puts on its updates, as DynamoDB evaluates them. */
const CONDITIONS: Record<string, (item: Item, name: (token: string) => string, minute: number) => boolean> = {
  '#minute = :minute': (item, name, minute) => item[name('#minute')] === minute,
  'attribute_not_exists(#minute) OR #minute < :minute': (item, name, minute) =>
    item[name('#minute')] === undefined || item[name('#minute')]! < minute,
};

/**
 * The day windows as DynamoDB keeps them: each update lands atomically (after `beforeLanding`,
 * where a test holds it), checks its condition, applies its `ADD` and `SET` actions and answers the
 * attributes it updated, or fails its condition answering the item as it was.
 */
function dayWindows({ beforeLanding }: { beforeLanding?: () => Promise<void> } = {}) {
  const items = new Map<string, Item>();
  const at = (key: { pk: string; sk: string }) => `${key.pk}|${key.sk}`;
  dynamo.on(UpdateCommand).callsFake(async (input: UpdateCommandInput) => {
    await beforeLanding?.();
    const stored = items.get(at(input.Key as { pk: string; sk: string })) ?? {};
    const name = (token: string) => (token.startsWith('#') ? input.ExpressionAttributeNames![token]! : token);
    const value = (token: string) => input.ExpressionAttributeValues![token] as number;
    if (input.ConditionExpression !== undefined) {
      const holds = CONDITIONS[input.ConditionExpression];
      if (!holds) throw new Error(`Unknown condition ${input.ConditionExpression}`);
      if (!holds(stored, name, value(':minute'))) {
        throw new ConditionalCheckFailedException({
          message: 'The conditional request failed',
          $metadata: {},
          ...(input.ReturnValuesOnConditionCheckFailure === 'ALL_OLD' ? { Item: marshall(stored) } : {}),
        });
      }
    }
    const [, additions = '', settings] = /^ADD (.*?)(?: SET (.*))?$/.exec(input.UpdateExpression!)!;
    const updated: Item = { ...stored };
    for (const action of additions.split(', ')) {
      const [attribute = '', amount = ''] = action.split(' ');
      updated[name(attribute)] = (updated[name(attribute)] ?? 0) + value(amount);
    }
    for (const action of settings?.split(/, (?![^(]*\))/) ?? []) {
      const [, attribute = '', ifNotExists, assigned] = /^(\S+) = (?:if_not_exists\(\S+, (\S+)\)|(\S+))$/.exec(action)!;
      updated[name(attribute)] = ifNotExists ? (stored[name(attribute)] ?? value(ifNotExists)) : value(assigned!);
    }
    items.set(at(input.Key as { pk: string; sk: string }), updated);
    const changed = Object.keys(updated).filter((attribute) => updated[attribute] !== stored[attribute]);
    return { Attributes: Object.fromEntries(changed.map((attribute) => [attribute, updated[attribute]])) };
  });
  return {
    item: (key = DAY_WINDOW) => items.get(at(key)),
    hold: (key: { pk: string; sk: string }, item: Item) => items.set(at(key), item),
  };
}

function throttled() {
  return Object.assign(new Error('Rate of requests exceeds the allowed throughput.'), { name: 'ThrottlingException' });
}

/** Every prefix names a key no earlier test has counted in this container. */
let keys = 0;
const freshKey = () => `key${String((keys += 1)).padStart(13, '0')}`;

const updates = () => dynamo.commandCalls(UpdateCommand).map((call) => call.args[0].input);

async function admit(keyPrefix: string, limits = LIMITS, nowMs = NOW_MS) {
  return admitCounted(await countRequest(keyPrefix, 9, nowMs), limits);
}

beforeEach(() => {
  dynamo.reset();
});

describe("counting a request in the key's minute and the organization's day", () => {
  it('counts in one write to the day window, opening the minute of a key it has not counted', async () => {
    const table = dayWindows();
    const key = freshKey();

    const counted = await countRequest(key, 9, NOW_MS);

    expect(counted.counts).toEqual({ minute: 1, day: 1 });
    expect(updates()).toHaveLength(1);
    expect(table.item()).toEqual({
      request_count: 1,
      [`key_${key}`]: 1,
      [`minute_${key}`]: MINUTE,
      [`minute_count_${key}`]: 1,
      expires_at: Math.floor(Date.parse('2026-03-01T00:00:00Z') / 1000) + 100 * 86_400,
    });
  });

  it('continues the minute in one write while it lasts, then opens the next, the day counting on', async () => {
    const table = dayWindows();
    const key = freshKey();

    await countRequest(key, 9, NOW_MS);
    const second = await countRequest(key, 9, NOW_MS + 20_000);
    const nextMinute = await countRequest(key, 9, NOW_MS + 40_000);

    expect(second.counts).toEqual({ minute: 2, day: 2 });
    expect(nextMinute.counts).toEqual({ minute: 1, day: 3 });
    expect(nextMinute.minute).toBe(MINUTE + 1);
    expect(updates()).toHaveLength(3);
    expect(table.item()).toMatchObject({ [`minute_${key}`]: MINUTE + 1, [`key_${key}`]: 3 });
  });

  it('continues a minute another container opened, after its own open is refused', async () => {
    const table = dayWindows();
    const key = freshKey();
    table.hold(DAY_WINDOW, {
      request_count: 40,
      [`key_${key}`]: 7,
      [`minute_${key}`]: MINUTE,
      [`minute_count_${key}`]: 5,
    });

    const counted = await countRequest(key, 9, NOW_MS);

    expect(counted.counts).toEqual({ minute: 6, day: 41 });
    expect(updates().map((update) => update.ConditionExpression)).toEqual([
      'attribute_not_exists(#minute) OR #minute < :minute',
      '#minute = :minute',
    ]);
  });

  it('counts in the later minute a container whose clock is ahead opened, never in a passed one', async () => {
    const table = dayWindows();
    const key = freshKey();
    table.hold(DAY_WINDOW, { request_count: 3, [`minute_${key}`]: MINUTE + 1, [`minute_count_${key}`]: 2 });

    const state = await admit(key);

    expect(state.minute).toMatchObject({ used: 3, resetsAt: (MINUTE + 2) * 60 });
    expect(table.item()).toMatchObject({ [`minute_${key}`]: MINUTE + 1, [`minute_count_${key}`]: 3 });
  });

  it('throws when the write fails outright, having counted nothing and given nothing back', async () => {
    dynamo.on(UpdateCommand).rejects(throttled());

    await expect(countRequest(freshKey(), 9, NOW_MS)).rejects.toMatchObject({ name: 'ThrottlingException' });
    expect(updates()).toHaveLength(1);
  });
});

describe('judging a counted request against the limits', () => {
  /** The day window holding `minute` requests of the key in this minute and `day` of the organization. */
  function counted(key: string, { minute, day }: { minute: number; day: number }) {
    const table = dayWindows();
    table.hold(DAY_WINDOW, {
      request_count: day - 1,
      [`key_${key}`]: minute - 1,
      [`minute_${key}`]: MINUTE,
      [`minute_count_${key}`]: minute - 1,
    });
    return table;
  }

  it('admits a request whose counts are within both limits, giving nothing back', async () => {
    const key = freshKey();
    counted(key, { minute: LIMITS.perMinute, day: 5 });

    const state = await admit(key);

    expect(state.exceeded).toEqual([]);
    expect(state.minute).toMatchObject({ limit: 60, used: 60, remaining: 0, resetsAt: (MINUTE + 1) * 60 });
    expect(state.day).toMatchObject({ limit: 10_000, used: 5, remaining: 9995 });
    expect(state.day.resetsAt).toBe(Date.parse('2026-03-02T00:00:00Z') / 1000);
    expect(updates().filter((update) => update.ExpressionAttributeValues?.[':minus_one'])).toEqual([]);
  });

  it.each([
    ['the minute', { minute: 61, day: 5 }, ['minute']],
    ['the day', { minute: 5, day: 10_001 }, ['day']],
    ['both windows', { minute: 61, day: 10_001 }, ['minute', 'day']],
  ] as const)(
    'refuses a request past %s, taking it back from every count in one write',
    async (_, counts, exceeded) => {
      const key = freshKey();
      const table = counted(key, counts);

      const state = await admit(key);

      expect(state.exceeded).toEqual(exceeded);
      expect(state.minute.used).toBe(Math.min(counts.minute - 1, LIMITS.perMinute));
      expect(state.day.used).toBe(Math.min(counts.day - 1, LIMITS.perDay));
      expect(updates().filter((update) => update.ExpressionAttributeValues?.[':minus_one'])).toHaveLength(1);
      expect(table.item()).toMatchObject({
        request_count: counts.day - 1,
        [`key_${key}`]: counts.minute - 1,
        [`minute_count_${key}`]: counts.minute - 1,
      });
    },
  );

  it('reports a window crowded by other refused requests as full, never past its limit', async () => {
    const key = freshKey();
    counted(key, { minute: 75, day: 5 });

    const state = await admit(key);

    expect(state.minute).toMatchObject({ limit: 60, used: 60, remaining: 0 });
  });

  it("takes a request back from the day alone once the key's minute has passed", async () => {
    const key = freshKey();
    const table = dayWindows();
    const request = await countRequest(key, 9, NOW_MS);
    table.hold(DAY_WINDOW, { ...table.item()!, [`minute_${key}`]: MINUTE + 1, [`minute_count_${key}`]: 4 });

    await uncountRequest(request);

    expect(table.item()).toMatchObject({
      request_count: 0,
      [`key_${key}`]: 0,
      [`minute_${key}`]: MINUTE + 1,
      [`minute_count_${key}`]: 4,
    });
  });

  it('answers the refusal when the give-back fails, keeping the request counted', async () => {
    const key = freshKey();
    counted(key, { minute: 61, day: 5 });
    const request = await countRequest(key, 9, NOW_MS);
    dynamo.on(UpdateCommand).rejects(throttled());
    const lines = jest.spyOn(console, 'log').mockImplementation(() => undefined);

    const state = await admitCounted(request, LIMITS);

    expect(state.exceeded).toEqual(['minute']);
    expect(state.minute).toMatchObject({ used: 60, remaining: 0 });
    expect(state.day).toMatchObject({ used: 5, remaining: LIMITS.perDay - 5 });
    expect(lines.mock.calls.map(([line]) => JSON.parse(String(line)))).toEqual([
      expect.objectContaining({ level: 'warn', counter: DAY_WINDOW }),
    ]);
    lines.mockRestore();
  });

  it('answers 429 with Retry-After and the rate-limit headers through the request pipeline', async () => {
    tableKnowsCaller(dynamo);
    const table = dayWindows();
    // The pipeline counts at the real time, in the real day's window.
    const today = { pk: 'RATE#ORG#9', sk: `DAY#${new Date().toISOString().slice(0, 10)}` };
    table.hold(today, {
      request_count: 5,
      [`minute_${CALLER_PREFIX}`]: Math.floor(Date.now() / 60_000) + 1,
      [`minute_count_${CALLER_PREFIX}`]: 60,
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
  it('admits as many as the limit allows in each minute, in any order of landing, and counts only those', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.integer({ min: 0, max: 5 }),
        fc.array(fc.boolean(), { minLength: 1, maxLength: 12 }),
        async (schedule, limit, inNextMinute) => {
          dynamo.reset();
          const table = dayWindows({ beforeLanding: () => schedule.schedule(Promise.resolve(), 'update lands') });
          const key = freshKey();
          const limits = { perMinute: limit, perDay: 1000 };
          const outcomes = inNextMinute.map(async (next) => {
            const request = await countRequest(key, 9, NOW_MS + (next ? 30_000 : 0));
            return { minute: request.minute, state: await admitCounted(request, limits) };
          });
          await schedule.waitFor(Promise.all(outcomes));
          const requests = await Promise.all(outcomes);
          const admitted = requests.filter(({ state }) => state.exceeded.length === 0);
          const inMinute = (minute: number) => (request: { minute: number }) => request.minute === minute;
          for (const minute of [MINUTE, MINUTE + 1]) {
            const counted = requests.filter(inMinute(minute)).length;
            expect(admitted.filter(inMinute(minute))).toHaveLength(Math.min(limit, counted));
          }
          const item = table.item()!;
          expect(item.request_count).toBe(admitted.length);
          expect(item[`key_${key}`]).toBe(admitted.length);
          expect(item[`minute_count_${key}`]).toBe(admitted.filter(inMinute(item[`minute_${key}`]!)).length);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('reading the rate-limit windows', () => {
  it("answers another key's minute and the organization's day as they stand, in one consistent read", async () => {
    dynamo.on(GetCommand).resolves({
      Item: { ...DAY_WINDOW, request_count: 40, key_other: 12, minute_other: MINUTE, minute_count_other: 3 },
    });

    const state = await readRateLimitState('other', 9, LIMITS, NOW_MS);

    expect(state.minute).toMatchObject({ limit: 60, used: 3, remaining: 57 });
    expect(state.day).toMatchObject({ limit: 10_000, used: 40, remaining: 9960 });
    expect(dynamo.commandCalls(GetCommand)[0]!.args[0].input).toMatchObject({ Key: DAY_WINDOW, ConsistentRead: true });
    expect(dynamo.calls()).toHaveLength(1);
  });

  it("answers a key's passed minute, and a window not yet counted, as unused", async () => {
    dynamo
      .on(GetCommand)
      .resolvesOnce({ Item: { ...DAY_WINDOW, request_count: 40, minute_other: MINUTE - 1, minute_count_other: 3 } })
      .resolvesOnce({});

    const passed = await readRateLimitState('other', 9, LIMITS, NOW_MS);
    const uncounted = await readRateLimitState('other', 9, LIMITS, NOW_MS);

    expect(passed.minute).toMatchObject({ used: 0, remaining: 60 });
    expect(uncounted.minute).toMatchObject({ used: 0, remaining: 60 });
    expect(uncounted.day).toMatchObject({ used: 0, remaining: 10_000 });
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
