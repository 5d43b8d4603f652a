import { paginateQuery, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetConsistent } from '#platform/batch-get';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
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
  limit: number;
  startMs: number;
  endMs: number;
  retainUntilMs: number;
}

function minuteWindow(keyPrefix: string, limit: number, nowMs: number): Window {
  const startMs = Math.floor(nowMs / MINUTE_MS) * MINUTE_MS;
  return {
    key: { pk: `RATE#KEY#${keyPrefix}`, sk: `MINUTE#${startMs / MINUTE_MS}` },
    limit,
    startMs,
    endMs: startMs + MINUTE_MS,
    retainUntilMs: startMs + 2 * MINUTE_MS,
  };
}

const dayPartition = (organizationId: number) => `RATE#${organizationPartition(organizationId)}`;
const daySortKey = (day: string) => `DAY#${day}`;
/** The attribute of a day window that counts one key's requests. */
const keyRequestCounter = (keyPrefix: string) => `key_${keyPrefix}`;

function dayWindow(organizationId: number, keyPrefix: string, limit: number, nowMs: number): Window {
  const startMs = Math.floor(nowMs / DAY_MS) * DAY_MS;
  return {
    key: { pk: dayPartition(organizationId), sk: daySortKey(utcDay(startMs)) },
    keyCounter: keyRequestCounter(keyPrefix),
    limit,
    startMs,
    endMs: startMs + DAY_MS,
    retainUntilMs: startMs + DAY_COUNTER_RETENTION_MS,
  };
}

function stateOf(window: Window, used: number): WindowState {
  return {
    limit: window.limit,
    used,
    remaining: Math.max(0, window.limit - used),
    resetsAt: Math.floor(window.endMs / 1000),
  };
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

/** Counts one request in a window unless it is full; the condition makes overshoot impossible. */
async function take(window: Window): Promise<{ admitted: boolean; used: number }> {
  const { add, names } = counting(window, ':one');
  try {
    const { Attributes } = await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: window.key,
        UpdateExpression: `ADD ${add} SET expires_at = if_not_exists(expires_at, :expires)`,
        ConditionExpression: 'attribute_not_exists(request_count) OR request_count < :limit',
        ...names,
        ExpressionAttributeValues: {
          ':one': 1,
          ':limit': window.limit,
          ':expires': Math.floor(window.retainUntilMs / 1000),
        },
        ReturnValues: 'UPDATED_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return { admitted: true, used: Number(Attributes?.request_count ?? 1) };
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) {
      return { admitted: false, used: Number(error.Item?.request_count?.N ?? window.limit) };
    }
    throw error;
  }
}

async function giveBack(window: Window): Promise<void> {
  const { add, names } = counting(window, ':minus_one');
  await dynamo().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: window.key,
      UpdateExpression: `ADD ${add}`,
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

/**
 * Admits a request against the key's minute window and the organization's day window at once.
 * Both counters are taken in parallel; when one refuses, the slot taken in the other is given
 * back, so a refused request never counts and neither counter can pass its limit. When taking
 * one fails outright, the other's slot is given back too and the failure is thrown.
 */
export async function admitRequest(
  keyPrefix: string,
  organizationId: number,
  limits: { perMinute: number; perDay: number },
  nowMs = Date.now(),
): Promise<RateLimitState> {
  const minute = minuteWindow(keyPrefix, limits.perMinute, nowMs);
  const day = dayWindow(organizationId, keyPrefix, limits.perDay, nowMs);
  const [minuteTake, dayTake] = await Promise.allSettled([take(minute), take(day)]);
  if (minuteTake.status === 'rejected') {
    if (dayTake.status === 'fulfilled' && dayTake.value.admitted) await tryGiveBack(day);
    throw minuteTake.reason;
  }
  if (dayTake.status === 'rejected') {
    if (minuteTake.value.admitted) await tryGiveBack(minute);
    throw dayTake.reason;
  }
  const [minuteTaken, dayTaken] = [minuteTake.value, dayTake.value];
  const exceeded: RateLimitState['exceeded'] = [];
  if (!minuteTaken.admitted) exceeded.push('minute');
  if (!dayTaken.admitted) exceeded.push('day');
  let minuteUsed = minuteTaken.used;
  let dayUsed = dayTaken.used;
  if (exceeded.length === 1) {
    if (minuteTaken.admitted) {
      if (await tryGiveBack(minute)) minuteUsed -= 1;
    } else if (await tryGiveBack(day)) {
      dayUsed -= 1;
    }
  }
  return { minute: stateOf(minute, minuteUsed), day: stateOf(day, dayUsed), exceeded };
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
  const minute = minuteWindow(keyPrefix, limits.perMinute, nowMs);
  const day = dayWindow(organizationId, keyPrefix, limits.perDay, nowMs);
  const items = await batchGetConsistent([minute.key, day.key]);
  const countOf = (window: Window) =>
    Number(items.find((item) => item.pk === window.key.pk && item.sk === window.key.sk)?.request_count ?? 0);
  return { minute: stateOf(minute, countOf(minute)), day: stateOf(day, countOf(day)) };
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
