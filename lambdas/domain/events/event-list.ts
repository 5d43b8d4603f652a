import type { Operations } from '#contract/types';
import { jobCreationTime } from '#domain/jobs/jobs';
import { cursorKeyRing } from '#platform/cursor-keys';
import { openCursor, sealCursor, type CursorScope } from '#platform/cursors';
import { boundedPage } from '#platform/bounded-pages';
import { ApiError } from '#platform/errors';
import { instantRoundedUp } from '#platform/instants';
import {
  EVENT_RETENTION_DAYS,
  findRetainedPayload,
  readEventRange,
  type EventPayload,
  type EventRange,
} from './events';

type ListEventsQuery = Operations['listEvents']['query'];

export interface EventPage {
  payloads: EventPayload[];
  nextCursor: string | null;
}

/**
 * The most event items one page reads to find its events. Type and job are a filter expression
 * over the organization's events (docs/data-model.md, Pulling events), so without a bound a filter
 * that matches little would read 30 days of events in one request; with it a page costs at most
 * this many reads and may come back short, even empty, with a cursor to go on.
 */
export const EVENTS_READ_PER_PAGE = 1000;

/**
 * A job's events are written after the job, but by other functions, on other clocks: the margin
 * by which the range of a job's events starts before the creation its id records.
 */
const JOB_CLOCK_MARGIN_MS = 60_000;

/** A bound of the creation range, to the millisecond, or 400 naming the parameter. */
function creationBound(name: 'created_after' | 'created_before', value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const instant = instantRoundedUp(value);
  if (instant === undefined) throw new ApiError('VALIDATION_FAILED', `${name} must be an ISO 8601 date-time`);
  return instant;
}

function definedValues(values: Record<string, string | number | undefined>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(values).flatMap(([name, value]) => (value === undefined ? [] : [[name, String(value)]])),
  );
}

/** The later of the bounds given, if any. */
function latest(...bounds: (number | undefined)[]): number | undefined {
  const given = bounds.filter((bound) => bound !== undefined);
  return given.length === 0 ? undefined : Math.max(...given);
}

/** One page of the organization's retained events, newest first, at most EVENTS_READ_PER_PAGE items read (bounded-pages.ts). */
export async function listEvents(
  organizationId: number,
  query: ListEventsQuery,
  nowMs = Date.now(),
): Promise<EventPage> {
  const createdAfter = creationBound('created_after', query.created_after);
  const createdBefore = creationBound('created_before', query.created_before);
  const scope: CursorScope = {
    operation: 'listEvents',
    organizationId,
    filters: definedValues({
      type: query.type,
      job_id: query.job_id,
      created_after: createdAfter,
      created_before: createdBefore,
    }),
  };
  const keys = await cursorKeyRing();
  const after = query.cursor === undefined ? undefined : openCursor(keys, scope, query.cursor);
  const jobCreatedAt = query.job_id === undefined ? undefined : jobCreationTime(query.job_id);
  const range: EventRange = {
    organizationId,
    type: query.type,
    jobId: query.job_id,
    createdFromMs: latest(createdAfter, jobCreatedAt === undefined ? undefined : jobCreatedAt - JOB_CLOCK_MARGIN_MS),
    createdBeforeMs: createdBefore,
  };
  const page = await boundedPage({
    limit: query.limit,
    maxItemsRead: EVENTS_READ_PER_PAGE,
    after,
    read: async (position: string | undefined, itemLimit) => {
      const read = await readEventRange(range, position, itemLimit, nowMs);
      return { items: read.payloads, itemsRead: read.itemsRead, lastPosition: read.lastReadEventId };
    },
    positionOf: (payload) => payload.id,
  });
  return {
    payloads: page.items,
    nextCursor: page.next === undefined ? null : sealCursor(keys, scope, page.next),
  };
}

/** A retained event of the organization; another organization's, or any id not of ours, is not found. */
export async function getEvent(organizationId: number, eventId: string, nowMs = Date.now()): Promise<EventPayload> {
  const payload = await findRetainedPayload(organizationId, eventId, nowMs);
  if (!payload) {
    throw new ApiError('EVENT_NOT_FOUND', `No event ${eventId} exists (events are kept ${EVENT_RETENTION_DAYS} days).`);
  }
  return payload;
}
