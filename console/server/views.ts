/**
 * What each view of the page reads from the API, and how long each answer stays fresh. This is
 * the allowlist of the console's reads: the page names a view, never an API path, and only these
 * paths are ever read. Freshness follows what can change: an active job every few seconds, an
 * ended one hardly ever (its signed URLs when they near expiry), past days of usage rarely.
 */

export type View = { name: 'jobs' } | { name: 'job'; id: string } | { name: 'webhooks' } | { name: 'usage' };

/** A read the poller keeps fresh: `key` names it to the page, `path` is the API's. */
export interface ReadPlan {
  key: string;
  path: string;
  /** How long the answer read at that time stays fresh (recomputed as other reads change). */
  freshForMs: (read: CachedRead) => number;
}

export interface CachedRead {
  key: string;
  status: number;
  body: unknown;
  fetchedAt: number;
}

type Cache = (key: string) => CachedRead | undefined;

const SECOND = 1000;
const MINUTE = 60 * SECOND;

/** Active jobs and pending deliveries change within seconds. */
const LIVE_MS = 3 * SECOND;
/** What nothing in the console changes: an ended job, past days. */
const SETTLED_MS = 10 * MINUTE;
/** Signed URLs are read again this long before they expire, so a player never holds a dead one. */
const URL_MARGIN_MS = MINUTE;

export const JOB_ID = /^(video_job|split_job)_[0-9a-hjkmnp-tv-z]{26}$/;
const WEBHOOK_ID = /^webhook_[0-9a-hjkmnp-tv-z]{26}$/;
/** Days of the usage chart, today included. */
export const CHART_DAYS = 7;
export const JOBS_LISTED = 25;
export const DELIVERIES_LISTED = 20;

const isActive = (status: unknown) => status === 'queued' || status === 'processing';

const bodyOf = (read: CachedRead | undefined) =>
  read && read.status === 200 ? (read.body as Record<string, unknown>) : undefined;

/** Fresh until the earliest `expires_at` found less the margin, and never longer than SETTLED_MS. */
function untilUrlsExpire(read: CachedRead, expiries: unknown[]): number {
  const times = expiries
    .filter((value): value is string => typeof value === 'string')
    .map((value) => Date.parse(value));
  if (times.length === 0) return SETTLED_MS;
  return Math.max(LIVE_MS, Math.min(SETTLED_MS, Math.min(...times) - URL_MARGIN_MS - read.fetchedAt));
}

const fixed = (ms: number) => (): number => ms;

const me: ReadPlan = { key: 'me', path: '/me', freshForMs: fixed(5 * MINUTE) };

function jobsPlans(): ReadPlan[] {
  return [
    {
      key: 'jobs',
      path: `/jobs?limit=${JOBS_LISTED}`,
      freshForMs: (read) => {
        const jobs = (bodyOf(read)?.data ?? []) as { status: string }[];
        return jobs.some((job) => isActive(job.status)) ? LIVE_MS : 20 * SECOND;
      },
    },
  ];
}

function jobPlans(id: string, cache: Cache): ReadPlan[] {
  const jobKey = `job:${id}`;
  const jobActive = () => {
    const job = bodyOf(cache(jobKey));
    return job === undefined || isActive(job.status);
  };
  const plans: ReadPlan[] = [
    { key: jobKey, path: `/jobs/${id}`, freshForMs: (read) => (isActive(bodyOf(read)?.status) ? LIVE_MS : SETTLED_MS) },
  ];
  const job = bodyOf(cache(jobKey));
  if (id.startsWith('split_job_')) {
    plans.push({
      key: `clips:${id}`,
      path: `/split-jobs/${id}/clips`,
      freshForMs: (read) => {
        const clips = (bodyOf(read)?.clips ?? []) as { status: string; expires_at: string | null }[];
        // Clips still pending or processing change, even when the job was read as ended after them.
        const settled = clips.every((clip) => clip.status === 'completed' || clip.status === 'failed');
        if (jobActive() || !settled) return 5 * SECOND;
        return untilUrlsExpire(
          read,
          clips.map((clip) => clip.expires_at),
        );
      },
    });
  } else if (job?.status === 'completed') {
    plans.push({
      key: `video-result:${id}`,
      path: `/video-jobs/${id}/result`,
      freshForMs: (read) => {
        const asset = bodyOf(read)?.asset as { expires_at?: string } | undefined;
        return untilUrlsExpire(read, [asset?.expires_at]);
      },
    });
  }
  return plans;
}

function webhooksPlans(cache: Cache): ReadPlan[] {
  const endpoints = (bodyOf(cache('webhooks'))?.data ?? []) as { id: string }[];
  return [
    { key: 'webhooks', path: '/webhooks', freshForMs: fixed(30 * SECOND) },
    ...endpoints
      .filter((endpoint) => WEBHOOK_ID.test(endpoint.id))
      .map((endpoint): ReadPlan => ({
        key: `deliveries:${endpoint.id}`,
        path: `/webhooks/${endpoint.id}/deliveries?limit=${DELIVERIES_LISTED}`,
        freshForMs: (read) => {
          const deliveries = (bodyOf(read)?.data ?? []) as { status: string }[];
          return deliveries.some((delivery) => delivery.status === 'pending') ? LIVE_MS : 15 * SECOND;
        },
      })),
  ];
}

/** The UTC days of the chart, oldest first, as YYYY-MM-DD. */
export function chartDays(now: number): string[] {
  return Array.from({ length: CHART_DAYS }, (_, index) =>
    new Date(now - (CHART_DAYS - 1 - index) * 24 * 60 * MINUTE).toISOString().slice(0, 10),
  );
}

function usagePlans(now: number): ReadPlan[] {
  const days = chartDays(now);
  const today = days.at(-1);
  return [
    { key: 'usage', path: '/usage', freshForMs: fixed(15 * SECOND) },
    { key: 'usage-credits', path: '/usage/credits', freshForMs: fixed(15 * SECOND) },
    { key: 'usage-rate-limits', path: '/usage/rate-limits', freshForMs: fixed(10 * SECOND) },
    // Today first: the chart draws each day as it comes, and today's bar is the one that moves.
    ...days.reverse().map((day): ReadPlan => ({
      key: `usage-day:${day}`,
      path: `/usage?period=custom&start_date=${day}&end_date=${day}`,
      freshForMs: fixed(day === today ? 30 * SECOND : SETTLED_MS),
    })),
  ];
}

/** The reads a view needs now; `me` (the header) with every view. */
export function plansOf(view: View, cache: Cache, now: number): ReadPlan[] {
  switch (view.name) {
    case 'jobs':
      return [me, ...jobsPlans()];
    case 'job':
      return [me, ...jobPlans(view.id, cache)];
    case 'webhooks':
      return [me, ...webhooksPlans(cache)];
    case 'usage':
      return [me, ...usagePlans(now)];
  }
}

/** The view a stream's query names, or undefined when it names none the console has. */
export function parseView(query: URLSearchParams): View | undefined {
  const name = query.get('view');
  if (name === 'jobs' || name === 'webhooks' || name === 'usage') return { name };
  const id = query.get('id');
  if (name === 'job' && id !== null && JOB_ID.test(id)) return { name, id };
  return undefined;
}
