import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, paginateQuery, UpdateCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from '#platform/clients/dynamodb';
import { DAY_MS, utcDay } from '#platform/instants';
import { log } from '#platform/log';
import { organizationPartition } from '#platform/table-design';

const MINUTE_MS = 60_000;
/** Daily counters double as request history for the usage routes (custom periods reach 90 days). */
const DAY_COUNTER_RETENTION_MS = 100 * DAY_MS;
/**
 * Each failed attempt moves the count to a later minute or from opening a minute to continuing
 * it, so a count lands within a few attempts unless minutes keep passing while it is tried.
 */
const MAX_COUNT_ATTEMPTS = 4;

export interface WindowState {
  limit: number;
  used: number;
  remaining: number;
  /** Unix seconds at which the window resets. */
  resetsAt: number;
}

export interface RateLimitState {
  minute: WindowState;
  day: WindowState;
  /** The windows that refused this request; empty when it was admitted. */
  exceeded: ('minute' | 'day')[];
}

/**
 * Both windows of a request live on one item, the organization's day window
 * (`RATE#ORG#<id>` / `DAY#<date>`): `request_count` counts the organization's requests of the
 * day, `key_<prefix>` each key's, and `minute_<prefix>` names each key's current minute (epoch
 * minutes) whose requests `minute_count_<prefix>` counts. One item, so that counting a request is
 * one write: writes to one table are what DynamoDB serializes and bills, reads beside them are not.
 * A minute never spans two days, so a key's minute always lies on the day item of its day.
 */
interface DayItem {
  key: { pk: string; sk: string };
  names: { '#key_day': string; '#minute': string; '#minute_count': string };
  endMs: number;
  retainUntilMs: number;
}

const dayPartition = (organizationId: number) => `RATE#${organizationPartition(organizationId)}`;
const daySortKey = (day: string) => `DAY#${day}`;
/** The attribute of a day window that counts one key's requests. */
const keyRequestCounter = (keyPrefix: string) => `key_${keyPrefix}`;
const epochMinute = (nowMs: number) => Math.floor(nowMs / MINUTE_MS);

function dayItem(organizationId: number, keyPrefix: string, nowMs: number): DayItem {
  const startMs = Math.floor(nowMs / DAY_MS) * DAY_MS;
  return {
    key: { pk: dayPartition(organizationId), sk: daySortKey(utcDay(startMs)) },
    names: {
      '#key_day': keyRequestCounter(keyPrefix),
      '#minute': `minute_${keyPrefix}`,
      '#minute_count': `minute_count_${keyPrefix}`,
    },
    endMs: startMs + DAY_MS,
    retainUntilMs: startMs + DAY_COUNTER_RETENTION_MS,
  };
}

/**
 * A window as a response reports it. A count above the limit is the limit: the requests beyond it
 * were refused and are being given back.
 */
function stateOf(endMs: number, limit: number, count: number): WindowState {
  const used = Math.min(count, limit);
  return { limit, used, remaining: limit - used, resetsAt: Math.floor(endMs / 1000) };
}

/**
 * How a count treats the key's minute: `continue` adds to the minute the item already holds,
 * `open` starts the minute at one, replacing an earlier one. Each is conditional on the minute the
 * item holds, so that two requests can neither open the same minute twice nor add to a passed one.
 */
type MinuteCounting = 'continue' | 'open';

/** Kept with the day window's first count, for the request history of the usage routes. */
const KEEP_UNTIL = 'expires_at = if_not_exists(expires_at, :expires)';

const COUNTING: Record<MinuteCounting, { update: string; condition: string }> = {
  continue: {
    update: `ADD request_count :one, #key_day :one, #minute_count :one SET ${KEEP_UNTIL}`,
    condition: '#minute = :minute',
  },
  open: {
    update: `ADD request_count :one, #key_day :one SET #minute = :minute, #minute_count = :one, ${KEEP_UNTIL}`,
    condition: 'attribute_not_exists(#minute) OR #minute < :minute',
  },
};

/** The container's last minute counted for each key: it guesses whether a count continues or opens a minute. */
const lastMinuteCounted = new Map<string, number>();

type Attempt = { counted: { day: number; minute: number } } | { heldMinute: number | undefined };

async function attemptCount(item: DayItem, minute: number, counting: MinuteCounting): Promise<Attempt> {
  const { update, condition } = COUNTING[counting];
  try {
    const { Attributes } = await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: item.key,
        UpdateExpression: update,
        ConditionExpression: condition,
        ExpressionAttributeNames: item.names,
        ExpressionAttributeValues: {
          ':one': 1,
          ':minute': minute,
          ':expires': Math.floor(item.retainUntilMs / 1000),
        },
        ReturnValues: 'UPDATED_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return {
      counted: {
        day: Number(Attributes?.request_count ?? 1),
        minute: Number(Attributes?.[item.names['#minute_count']] ?? 1),
      },
    };
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    const held = error.Item?.[item.names['#minute']]?.N;
    return { heldMinute: held === undefined ? undefined : Number(held) };
  }
}

/** A request counted in the key's minute and the organization's day, not yet judged against the limits. */
export interface CountedRequest {
  item: DayItem;
  /** The epoch minute the request was counted in. */
  minute: number;
  counts: { minute: number; day: number };
}

/**
 * Counts a request in the key's minute window and the organization's day window, in one write
 * and without judging it, so that counting needs nothing but the caller's identity and runs beside
 * the read of the organization whose limits judge it (`admitCounted`). A count lands in the key's
 * current minute, or in a later one the item already holds (another container's clock being
 * ahead), never in a passed one.
 */
export async function countRequest(
  keyPrefix: string,
  organizationId: number,
  nowMs = Date.now(),
): Promise<CountedRequest> {
  const item = dayItem(organizationId, keyPrefix, nowMs);
  let minute = epochMinute(nowMs);
  let counting: MinuteCounting = lastMinuteCounted.get(keyPrefix) === minute ? 'continue' : 'open';
  for (let attempt = 1; attempt <= MAX_COUNT_ATTEMPTS; attempt += 1) {
    const outcome = await attemptCount(item, minute, counting);
    if ('counted' in outcome) {
      lastMinuteCounted.set(keyPrefix, minute);
      return { item, minute, counts: outcome.counted };
    }
    const { heldMinute } = outcome;
    if (heldMinute !== undefined && heldMinute >= minute) {
      minute = heldMinute;
      counting = 'continue';
    } else {
      counting = 'open';
    }
  }
  throw new Error(`The request of key ${keyPrefix} could not be counted in ${MAX_COUNT_ATTEMPTS} attempts`);
}

/**
 * Takes a counted request back, best effort: from the day's counts, and from the key's minute
 * while the item still holds that minute (once it has passed, nothing counts in it any more).
 * When the write fails the request stays counted, which is better than failing a request whose
 * answer is already known. Answers whether the request was taken back.
 */
async function giveBack({ item, minute }: CountedRequest): Promise<boolean> {
  const fromTheMinuteToo = {
    UpdateExpression: 'ADD request_count :minus_one, #key_day :minus_one, #minute_count :minus_one',
    ConditionExpression: COUNTING.continue.condition,
    ExpressionAttributeNames: item.names,
    ExpressionAttributeValues: { ':minus_one': -1, ':minute': minute },
  };
  const fromTheDayOnly = {
    UpdateExpression: 'ADD request_count :minus_one, #key_day :minus_one',
    ExpressionAttributeNames: { '#key_day': item.names['#key_day'] },
    ExpressionAttributeValues: { ':minus_one': -1 },
  };
  const takeBack = (update: Omit<UpdateCommandInput, 'TableName' | 'Key'>) =>
    dynamo().send(new UpdateCommand({ TableName: tableName(), Key: item.key, ...update }));
  try {
    await takeBack(fromTheMinuteToo).catch((error: unknown) => {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      return takeBack(fromTheDayOnly);
    });
    return true;
  } catch (error) {
    log('warn', 'rate-limit slot not given back', {
      counter: item.key,
      error: error instanceof Error ? { name: error.name, message: error.message } : String(error),
    });
    return false;
  }
}

/** Takes a counted request back, best effort: a request refused before it was judged. */
export async function uncountRequest(counted: CountedRequest): Promise<void> {
  await giveBack(counted);
}

/**
 * Judges a counted request against the limits: admitted when neither window's count passed its
 * limit, else given back, so a refused request never counts. Every request that was admitted saw
 * a count within the limit, and a window's count is never below the requests it admitted, so no
 * window can admit more than its limit, however many requests race.
 */
export async function admitCounted(
  counted: CountedRequest,
  limits: { perMinute: number; perDay: number },
): Promise<RateLimitState> {
  const exceeded: RateLimitState['exceeded'] = [];
  if (counted.counts.minute > limits.perMinute) exceeded.push('minute');
  if (counted.counts.day > limits.perDay) exceeded.push('day');
  const takenBack = exceeded.length > 0 && (await giveBack(counted)) ? 1 : 0;
  return {
    minute: stateOf((counted.minute + 1) * MINUTE_MS, limits.perMinute, counted.counts.minute - takenBack),
    day: stateOf(counted.item.endMs, limits.perDay, counted.counts.day - takenBack),
    exceeded,
  };
}

export function retryAfterSeconds(state: RateLimitState, nowMs = Date.now()): number {
  const resets = state.exceeded.map((name) => state[name].resetsAt * 1000);
  return Math.max(1, Math.ceil((Math.max(...resets) - nowMs) / 1000));
}

export function rateLimitHeaders(state: RateLimitState): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(state.minute.limit),
    'X-RateLimit-Remaining': String(state.minute.remaining),
    'X-RateLimit-Reset': String(state.minute.resetsAt),
    'X-RateLimit-Limit-Organization-Day': String(state.day.limit),
    'X-RateLimit-Remaining-Organization-Day': String(state.day.remaining),
    'X-RateLimit-Reset-Organization-Day': String(state.day.resetsAt),
  };
}

/**
 * The two windows as they stand, without counting anything: for reporting another key's
 * minute, or the organization's day, from a request already counted.
 */
export async function readRateLimitState(
  keyPrefix: string,
  organizationId: number,
  limits: { perMinute: number; perDay: number },
  nowMs = Date.now(),
): Promise<Pick<RateLimitState, 'minute' | 'day'>> {
  const item = dayItem(organizationId, keyPrefix, nowMs);
  const minute = epochMinute(nowMs);
  const { Item } = await dynamo().send(new GetCommand({ TableName: tableName(), Key: item.key, ConsistentRead: true }));
  const minuteCount = Item?.[item.names['#minute']] === minute ? Number(Item[item.names['#minute_count']] ?? 0) : 0;
  return {
    minute: stateOf((minute + 1) * MINUTE_MS, limits.perMinute, minuteCount),
    day: stateOf(item.endMs, limits.perDay, Number(Item?.request_count ?? 0)),
  };
}

/**
 * Requests counted in the organization's day windows from `firstDay` to `lastDay` (UTC,
 * inclusive, `YYYY-MM-DD`); with `keyPrefix`, only that key's. Day windows are kept for 100 days.
 */
export async function requestsInDays(
  organizationId: number,
  range: { firstDay: string; lastDay: string },
  keyPrefix?: string,
): Promise<number> {
  const counterName = keyPrefix ? keyRequestCounter(keyPrefix) : 'request_count';
  const pages = paginateQuery(
    { client: dynamo() },
    {
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :first AND :last',
      ExpressionAttributeNames: { '#count': counterName },
      ExpressionAttributeValues: {
        ':pk': dayPartition(organizationId),
        ':first': daySortKey(range.firstDay),
        ':last': daySortKey(range.lastDay),
      },
      ProjectionExpression: '#count',
      ConsistentRead: true,
    },
  );
  let total = 0;
  for await (const page of pages) {
    for (const item of page.Items ?? []) total += Number(item[counterName] ?? 0);
  }
  return total;
}
