import { AsyncLocalStorage } from 'node:async_hooks';
import { subscribe } from 'node:diagnostics_channel';
import type { IncomingMessage, Server } from 'node:http';
import type { HandlerExecutionContext, InitializeMiddleware } from '@smithy/types';
import { round } from './statistics';

type Origin = 'api' | 'background';

/**
 * The sequential round trips of one request: a call that starts while none of the request's other
 * calls is in flight begins a new wave; calls started while one is in flight join its wave. So
 * calls sent in parallel count once, and calls one after another count each. A call that never
 * left the process (a presigned URL) is no round trip, and only its result tells: the waves are
 * counted from the starts and ends of the other calls, in the order they happened.
 */
export class RoundTrips {
  readonly #events: { call: number; starts: boolean }[] = [];
  readonly #stayedLocal = new Set<number>();
  #calls = 0;

  get count(): number {
    let waves = 0;
    let inFlight = 0;
    for (const { call, starts } of this.#events) {
      if (this.#stayedLocal.has(call)) continue;
      if (starts && inFlight === 0) waves += 1;
      inFlight += starts ? 1 : -1;
    }
    return waves;
  }

  async around<T>(call: () => Promise<T>, stayedLocal: (result: T) => boolean = () => false): Promise<T> {
    const id = this.#calls;
    this.#calls += 1;
    this.#events.push({ call: id, starts: true });
    try {
      const result = await call();
      if (stayedLocal(result)) this.#stayedLocal.add(id);
      return result;
    } finally {
      this.#events.push({ call: id, starts: false });
    }
  }
}

/** One request the gateway served: what it asked for, and the SDK calls it made by call label. */
export interface ServedRequest {
  readonly method: string;
  /** As the request line had it, query included. */
  readonly url: string;
  readonly calls: Map<string, number>;
  readonly roundTrips: RoundTrips;
}

const servedRequest = new AsyncLocalStorage<ServedRequest>();
/** Every request the gateway has served while they were kept (keepServedRequests), in the order they arrived. */
const served: ServedRequest[] = [];
let keepingServed = true;

/**
 * Whether the requests served from now on are kept for servedBetween. The soak turns it off: kept,
 * its thirteen thousand requests would grow the very memory it measures (a couple of KB each).
 */
export function keepServedRequests(keep: boolean): void {
  keepingServed = keep;
}

/** From now on, a command run inside a request the server on `gatewayPort` serves counts as `api`, and as that request's. */
export function countGatewayRequestsAsApi(gatewayPort: number): void {
  subscribe('http.server.request.start', (message) => {
    const { server, request } = message as { server: Server; request: IncomingMessage };
    const address = server.address();
    if (typeof address !== 'object' || address?.port !== gatewayPort) return;
    const record: ServedRequest = {
      method: request.method ?? '?',
      url: request.url ?? '?',
      calls: new Map(),
      roundTrips: new RoundTrips(),
    };
    if (keepingServed) served.push(record);
    // enterWith, not run: the channel is published synchronously just before the server emits
    // 'request', so the gateway's handler (and every await under it) runs in this context.
    servedRequest.enterWith(record);
  });
}

/** One counter per origin and call label, e.g. `api` + `DynamoDB UpdateItem RATE#ORG/DAY`. */
const counts = new Map<string, number>();
const COUNT_SEPARATOR = '\u0000';

/** Item kind of a table key with the ids left out: `ORG#12`/`JOB#video_job_…` → `ORG/JOB`. */
function itemKind(key: unknown): string {
  const record = (key ?? {}) as { pk?: unknown; sk?: unknown };
  const kind = (value: unknown) =>
    typeof value === 'string'
      ? value
          .split('#')
          .filter((part) => /^[A-Z_]+$/.test(part))
          .join('#')
      : '?';
  return `${kind(record.pk)}/${kind(record.sk)}`;
}

/**
 * `DynamoDB GetItem APIKEY/APIKEY`, `DynamoDB TransactWriteItems [Update ORG/ORG, Put ORG/JOB]`,
 * `SFN StartExecution`, `S3 presign-GetObject`.
 */
function callLabel(context: HandlerExecutionContext, input: unknown, presigned: boolean): string {
  const service = (context.clientName ?? '?').replace(/Client$/, '');
  const operation = `${presigned ? 'presign-' : ''}${(context.commandName ?? '?').replace(/Command$/, '')}`;
  const label = `${service} ${operation}`;
  if (service !== 'DynamoDB' || typeof input !== 'object' || input === null) return label;
  const request = input as {
    Key?: unknown;
    Item?: unknown;
    TransactItems?: Record<string, { Key?: unknown; Item?: unknown }>[];
  };
  if (request.TransactItems) {
    const parts = request.TransactItems.map((item) => {
      const [action, body] = Object.entries(item)[0] ?? ['?', {}];
      return `${action} ${itemKind(body.Key ?? body.Item)}`;
    });
    return `${label} [${parts.join(', ')}]`;
  }
  if (request.Key || request.Item) return `${label} ${itemKind(request.Key ?? request.Item)}`;
  return label;
}

function record(origin: Origin, label: string) {
  const key = `${origin}${COUNT_SEPARATOR}${label}`;
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

/**
 * Whether a command only went through the client to be presigned: getSignedUrl runs it through the
 * client's middleware, stops it before it is sent and answers the presigned request instead.
 */
const wasPresigned = (result: unknown) =>
  (result as { output?: { presigned?: unknown } } | undefined)?.output?.presigned !== undefined;

/**
 * Counts each command once, when it has ended (the initialize step runs before the SDK's retry
 * middleware, so an SDK-level retry is not a second call; an application-level retry is). A
 * presigned URL counts as a call of its own kind, `S3 presign-GetObject`.
 */
export function callCounter<Input extends object, Output extends object>(): InitializeMiddleware<Input, Output> {
  return (next, context) => async (args) => {
    const request = servedRequest.getStore();
    let presigned = false;
    try {
      const result = request ? await request.roundTrips.around(() => next(args), wasPresigned) : await next(args);
      presigned = wasPresigned(result);
      return result;
    } finally {
      const label = callLabel(context, (args as { input?: unknown }).input, presigned);
      record(request ? 'api' : 'background', label);
      request?.calls.set(label, (request.calls.get(label) ?? 0) + 1);
    }
  };
}

interface Snapshot {
  counts: Map<string, number>;
  served: number;
}
export const snapshot = (): Snapshot => ({ counts: new Map(counts), served: served.length });

/** The requests the gateway began serving between two snapshots. */
export const servedBetween = (before: Snapshot, after: Snapshot): readonly ServedRequest[] =>
  served.slice(before.served, after.served);

/** Calls per label between two snapshots, for one origin, divided by `per`. */
export function callsBetween(before: Snapshot, after: Snapshot, origin: Origin, per = 1): Record<string, number> {
  const result: Record<string, number> = {};
  for (const [key, value] of after.counts) {
    const [keyOrigin, label] = key.split(COUNT_SEPARATOR) as [Origin, string];
    const delta = value - (before.counts.get(key) ?? 0);
    if (keyOrigin === origin && delta > 0) result[label] = round(delta / per, 2);
  }
  return Object.fromEntries(Object.entries(result).sort(([a], [b]) => a.localeCompare(b)));
}

export const sum = (calls: Record<string, number>) =>
  round(
    Object.values(calls).reduce((total, value) => total + value, 0),
    2,
  );

/** Folds labels to the SDK command only: `DynamoDB GetItem APIKEY/APIKEY` → `DynamoDB GetItem`. */
export function byCommand(calls: Record<string, number>): Record<string, number> {
  const result: Record<string, number> = {};
  for (const [label, value] of Object.entries(calls)) {
    const command = label.split(' ').slice(0, 2).join(' ');
    result[command] = round((result[command] ?? 0) + value, 2);
  }
  return result;
}

/** What `calls` has beyond `base`, label by label. */
export function beyond(calls: Record<string, number>, base: Record<string, number>): Record<string, number> {
  const result: Record<string, number> = {};
  for (const [label, value] of Object.entries(calls)) {
    const extra = round(value - (base[label] ?? 0), 2);
    if (extra > 0) result[label] = extra;
  }
  return result;
}

/** The calls of these requests per label, divided by their number. */
export function callsPerRequest(requests: readonly ServedRequest[]): Record<string, number> {
  const totals = new Map<string, number>();
  for (const request of requests) {
    for (const [label, count] of request.calls) totals.set(label, (totals.get(label) ?? 0) + count);
  }
  return Object.fromEntries(
    [...totals]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([label, total]) => [label, round(total / requests.length, 2)]),
  );
}

/** How many of these requests made each number of sequential round trips: `{ "3": 80 }`. */
export function roundTripCounts(requests: readonly ServedRequest[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { roundTrips } of requests) counts[roundTrips.count] = (counts[roundTrips.count] ?? 0) + 1;
  return counts;
}
