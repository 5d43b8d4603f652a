import { paginateQuery, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetConsistent } from '#platform/batch-get';
import { dynamo, tableName } from '#platform/clients/dynamodb';
import { DAY_MS, utcDay } from '#platform/instants';
import { log } from '#platform/log';
import { organizationPartition } from '#platform/table-design';

const MINUTE_MS = 60_000;
/** Daily counters double as request history for the usage routes (custom periods reach 90 days). */
const DAY_COUNTER_RETENTION_MS = 100 * DAY_MS;

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

interface Window {
  key: { pk: string; sk: string };
  /**
   * A second counter the same update moves with `request_count`: in the organization's day, the
   * calling key's requests, so usage per key agrees with the organization's to the request.
   */
  keyCounter?: string;
  startMs: number;
  endMs: number;
  retainUntilMs: number;
}

function minuteWindow(keyPrefix: string, nowMs: number): Window {
  const startMs = Math.floor(nowMs / MINUTE_MS) * MINUTE_MS;
  return {
    key: { pk: `RATE#KEY#${keyPrefix}`, sk: `MINUTE#${startMs / MINUTE_MS}` },
    startMs,
    endMs: startMs + MINUTE_MS,
    retainUntilMs: startMs + 2 * MINUTE_MS,
  };
}

const dayPartition = (organizationId: number) => `RATE#${organizationPartition(organizationId)}`;
const daySortKey = (day: string) => `DAY#${day}`;
/** The attribute of a day window that counts one key's requests. */
const keyRequestCounter = (keyPrefix: string) => `key_${keyPrefix}`;

function dayWindow(organizationId: number, keyPrefix: string, nowMs: number): Window {
  const startMs = Math.floor(nowMs / DAY_MS) * DAY_MS;
  return {
    key: { pk: dayPartition(organizationId), sk: daySortKey(utcDay(startMs)) },
    keyCounter: keyRequestCounter(keyPrefix),
    startMs,
    endMs: startMs + DAY_MS,
    retainUntilMs: startMs + DAY_COUNTER_RETENTION_MS,
  };
}

/**
 * A window as a response reports it. A count above the limit is the limit: the requests beyond it
 * were refused and are being given back.
 */
function stateOf(window: Window, limit: number, count: number): WindowState {
  const used = Math.min(count, limit);
  return { limit, used, remaining: limit - used, resetsAt: Math.floor(window.endMs / 1000) };
}

/** `ADD` of `amount` to the window's counters, with the names the expression needs. */
function counting(window: Window, amount: string) {
  return window.keyCounter
    ? {
        add: `request_count ${amount}, #key ${amount}`,
        names: { ExpressionAttributeNames: { '#key': window.keyCounter } },
      }
    : { add: `request_count ${amount}`, names: {} };
}

/** Counts one request in a window, answering the window's count with it. */
async function add(window: Window): Promise<number> {
  const { add: addition, names } = counting(window, ':one');
  const { Attributes } = await dynamo().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: window.key,
      UpdateExpression: `ADD ${addition} SET expires_at = if_not_exists(expires_at, :expires)`,
      ...names,
      ExpressionAttributeValues: { ':one': 1, ':expires': Math.floor(window.retainUntilMs / 1000) },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return Number(Attributes?.request_count ?? 1);
}

async function giveBack(window: Window): Promise<void> {
  const { add: addition, names } = counting(window, ':minus_one');
  await dynamo().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: window.key,
      UpdateExpression: `ADD ${addition}`,
      ...names,
      ExpressionAttributeValues: { ':minus_one': -1 },
    }),
  );
}

/**
 * Gives a slot back, best effort: when that fails the request stays counted once too many in one
 * window, which is better than failing a request whose answer is already known. Answers whether
 * the slot was given back.
 */
async function tryGiveBack(window: Window): Promise<boolean> {
  try {
    await giveBack(window);
    return true;
  } catch (error) {
    log('warn', 'rate-limit slot not given back', {
      counter: window.key,
      error: error instanceof Error ? { name: error.name, message: error.message } : String(error),
    });
    return false;
  }
}

/** A request counted in the key's minute and the organization's day, not yet judged against the limits. */
export interface CountedRequest {
  minute: { window: Window; count: number };
  day: { window: Window; count: number };
}

/**
 * Counts a request in the key's minute window and the organization's day window, both at once and
 * without a condition, so that counting needs nothing but the caller's identity and runs beside
 * the read of the organization whose limits judge it (`admitCounted`). When one count fails
 * outright, the other is given back and the failure is thrown.
 */
export async function countRequest(
  keyPrefix: string,
  organizationId: number,
  nowMs = Date.now(),
): Promise<CountedRequest> {
  const minute = minuteWindow(keyPrefix, nowMs);
  const day = dayWindow(organizationId, keyPrefix, nowMs);
  const [minuteCount, dayCount] = await Promise.allSettled([add(minute), add(day)]);
  if (minuteCount.status === 'rejected') {
    if (dayCount.status === 'fulfilled') await tryGiveBack(day);
    throw minuteCount.reason;
  }
  if (dayCount.status === 'rejected') {
    await tryGiveBack(minute);
    throw dayCount.reason;
  }
  return { minute: { window: minute, count: minuteCount.value }, day: { window: day, count: dayCount.value } };
}

/** Takes a counted request back from both windows, best effort: a request refused before it was judged. */
export async function uncountRequest({ minute, day }: CountedRequest): Promise<void> {
  await Promise.all([tryGiveBack(minute.window), tryGiveBack(day.window)]);
}

/**
 * Judges a counted request against the limits: admitted when neither window's count passed its
 * limit, else given back from both, so a refused request never counts. Every request that was
 * admitted saw a count within the limit, and a window's count is never below the requests it
 * admitted, so no window can admit more than its limit, however many requests race.
 */
export async function admitCounted(
  { minute, day }: CountedRequest,
  limits: { perMinute: number; perDay: number },
): Promise<RateLimitState> {
  const exceeded: RateLimitState['exceeded'] = [];
  if (minute.count > limits.perMinute) exceeded.push('minute');
  if (day.count > limits.perDay) exceeded.push('day');
  let [minuteCount, dayCount] = [minute.count, day.count];
  if (exceeded.length > 0) {
    const [minuteGivenBack, dayGivenBack] = await Promise.all([tryGiveBack(minute.window), tryGiveBack(day.window)]);
    if (minuteGivenBack) minuteCount -= 1;
    if (dayGivenBack) dayCount -= 1;
  }
  return {
    minute: stateOf(minute.window, limits.perMinute, minuteCount),
    day: stateOf(day.window, limits.perDay, dayCount),
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
  const minute = minuteWindow(keyPrefix, nowMs);
  const day = dayWindow(organizationId, keyPrefix, nowMs);
  const items = await batchGetConsistent([minute.key, day.key]);
  const countOf = (window: Window) =>
    Number(items.find((item) => item.pk === window.key.pk && item.sk === window.key.sk)?.request_count ?? 0);
  return {
    minute: stateOf(minute, limits.perMinute, countOf(minute)),
    day: stateOf(day, limits.perDay, countOf(day)),
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
