import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { VideoApiClient, WebhookEvent } from './client.ts';
import { ApiError } from './errors.ts';
import { sleep } from './retries.ts';
import { newSigningSecret, signWebhook } from './webhooks.ts';

/**
 * `listen`: pulls an organization's new events from GET /events with nothing but an API key, and
 * forwards each to a local URL signed as a real delivery is, so that a receiver on a laptop gets
 * the events of a stack it cannot be reached from. Events go out oldest first, one at a time; the
 * ones handed on are kept in a state file (those of the last minute), so a restart goes on after
 * them.
 */

export interface ListenOptions {
  /** A client whose key has `webhooks:read`. */
  client: VideoApiClient;
  forwardTo: string;
  stateFile: string;
  /** Only these event types are forwarded; all of them when empty. */
  types: readonly string[];
  pollIntervalMs: number;
  /** Each line of progress: the start, every forward's outcome, the stop. */
  report: (line: string) => void;
  signal: AbortSignal;
}

/** An event already handed on (or there before the first start), by id and creation. */
interface SeenEvent {
  id: string;
  created_at: string;
}

/** What a restart needs: the secret the receiver was told, and the events of the lookback already seen. */
interface ListenState {
  secret: string;
  seen: SeenEvent[];
}

/**
 * An event's id and time are taken before the transaction that writes it commits, so one may
 * become readable after a later one: each poll reads this far back before the newest event seen,
 * and forwards what it has not seen.
 */
const LOOKBACK_MS = 60_000;

const PAGE_SIZE = 100;
const FORWARD_TIMEOUT_MS = 10_000;
/** How long to wait after a failed poll that named no time to wait. */
const RETRY_SECONDS = 5;

async function readState(file: string): Promise<ListenState | undefined> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as ListenState;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

async function writeState(file: string, state: ListenState): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
}

/** Resolves after `ms`, or at once when the listener is stopped. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return sleep(ms, signal).catch(() => undefined);
}

type EventQuery = { limit: number; created_after?: string; cursor?: string };

async function eventsPage({ client, signal }: ListenOptions, query: EventQuery) {
  const { data } = await client.GET('/events', { params: { query }, signal });
  return data;
}

const newestOf = (seen: readonly SeenEvent[]) =>
  seen.reduce<SeenEvent | undefined>((newest, event) => (!newest || event.id > newest.id ? event : newest), undefined);

/** The start of the lookback before the newest event seen; everything when nothing was seen. */
function lookbackStart(seen: readonly SeenEvent[]): string | undefined {
  const newest = newestOf(seen);
  return newest && new Date(Date.parse(newest.created_at) - LOOKBACK_MS).toISOString();
}

/** Every event of the lookback and after that was not seen yet, oldest first. */
async function unseenEvents(options: ListenOptions, seen: readonly SeenEvent[]): Promise<WebhookEvent[]> {
  const since = lookbackStart(seen);
  const seenIds = new Set(seen.map((event) => event.id));
  const events: WebhookEvent[] = [];
  let cursor: string | null = null;
  do {
    const page = await eventsPage(options, {
      limit: PAGE_SIZE,
      ...(since ? { created_after: since } : {}),
      ...(cursor ? { cursor } : {}),
    });
    events.push(...page.data);
    cursor = page.pagination.next_cursor;
  } while (cursor);
  return events.filter((event) => !seenIds.has(event.id)).reverse();
}

/** The events seen, without those that fell out of the lookback. */
function withinLookback(seen: SeenEvent[]): SeenEvent[] {
  const since = lookbackStart(seen);
  return since ? seen.filter((event) => event.created_at >= since) : seen;
}

/** Hands one event to the receiver, signed like a delivery; answers the line that reports it. */
async function forward(options: ListenOptions, secret: string, event: WebhookEvent): Promise<string> {
  const rawBody = JSON.stringify(event);
  const headers = signWebhook({ eventId: event.id, eventType: event.type, secrets: secret, rawBody });
  const started = performance.now();
  try {
    const response = await fetch(options.forwardTo, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: rawBody,
      signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
    });
    await response.arrayBuffer();
    return `${event.type} ${event.id} → ${response.status} in ${Math.round(performance.now() - started)} ms`;
  } catch (error) {
    return `${event.type} ${event.id} → not delivered: ${(error as Error).message}`;
  }
}

/** Throttled, failing or out of reach (a stack restarting): worth waiting for. */
function passing(error: unknown): boolean {
  return error instanceof ApiError ? error.status === 429 || error.status >= 500 : error instanceof TypeError;
}

/** Runs until the signal aborts: polls for new events and forwards each once, oldest first. */
export async function listen(options: ListenOptions): Promise<void> {
  const saved = await readState(options.stateFile);
  const state: ListenState = saved ?? { secret: newSigningSecret(), seen: [] };
  if (!saved) {
    // A first start forwards what happens from now on, not the 30 days already there: the newest
    // event, and those of the lookback before it, count as seen.
    const [newest] = (await eventsPage(options, { limit: 1 })).data;
    if (newest) {
      const seen = [{ id: newest.id, created_at: newest.created_at }];
      const alsoThere = await unseenEvents(options, seen);
      state.seen = [...seen, ...alsoThere.map(({ id, created_at }) => ({ id, created_at }))];
    }
    await writeState(options.stateFile, state);
  }
  options.report(`Forwarding events to ${options.forwardTo}, signed with ${state.secret}`);
  const newest = newestOf(state.seen);
  options.report(newest ? `Going on after ${newest.id}.` : 'Waiting for the first event.');
  while (!options.signal.aborted) {
    try {
      for (const event of await unseenEvents(options, state.seen)) {
        if (options.types.length === 0 || options.types.includes(event.type)) {
          options.report(await forward(options, state.secret, event));
        }
        state.seen = withinLookback([...state.seen, { id: event.id, created_at: event.created_at }]);
        await writeState(options.stateFile, state);
        if (options.signal.aborted) break;
      }
      await pause(options.pollIntervalMs, options.signal);
    } catch (error) {
      if (options.signal.aborted) break;
      if (!passing(error)) throw error;
      options.report(`${(error as Error).message}; trying again`);
      const retryAfter = error instanceof ApiError ? error.retryAfter : undefined;
      await pause((retryAfter || RETRY_SECONDS) * 1000, options.signal);
    }
  }
  const last = newestOf(state.seen);
  options.report(`Stopped${last ? `; the next start goes on after ${last.id}` : ''}.`);
}
