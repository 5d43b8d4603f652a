import type { OperationId } from '#contract/types';
import { sortableId } from '#platform/ids';
import { ROUTES, type Route } from '#routes';
import { operationResponses } from './support/api-document';
import { eventually } from './support/eventually';
import { closeJobStateClients, queuedJob } from './support/job-states';
import { makeMedia } from './support/media';
import {
  call,
  createOrganization,
  getOrganization,
  uploadSplitSource,
  type ApiResponse,
  type ErrorBody,
  type TestOrganization,
} from './support/stack';
import { WebhookReceiver } from './support/webhook-receiver';

/**
 * Tenancy, generated from the route table: every operation with an id in its path, called by an
 * organization that has nothing yet and by one that owns one of everything, at another
 * organization's resources and at well-formed ids of nothing, answers the contract's 404 for the
 * resource, and the owner reads back all it had, unchanged. A route whose path names a resource
 * this file has no fixture for fails here until one is added to RESOURCES.
 */

/** One of everything an organization can own that a path id names. */
interface Holdings {
  assetId: string;
  videoJobId: string;
  splitJobId: string;
  webhookId: string;
  /** The delivery of the endpoint's test, settled. */
  deliveryId: string;
  /** The test's event. */
  eventId: string;
}

interface Resource {
  /** The error code of the operation's documented 404 for an id of this resource not of ours. */
  notFound: string;
  /** The ids of the holder's resources of this kind. */
  held: (holdings: Holdings) => string[];
  /** A GET that reads the resource back, for its owner. */
  readBack: (id: string, holdings: Holdings) => string;
}

/** The resources path ids name, by the path segment before the id (`/webhooks/{id}` → webhooks). */
const RESOURCES: Record<string, Resource> = {
  assets: { notFound: 'ASSET_NOT_FOUND', held: (h) => [h.assetId], readBack: (id) => `/assets/${id}` },
  'video-jobs': { notFound: 'JOB_NOT_FOUND', held: (h) => [h.videoJobId], readBack: (id) => `/jobs/${id}` },
  'split-jobs': { notFound: 'JOB_NOT_FOUND', held: (h) => [h.splitJobId], readBack: (id) => `/jobs/${id}` },
  jobs: { notFound: 'JOB_NOT_FOUND', held: (h) => [h.videoJobId, h.splitJobId], readBack: (id) => `/jobs/${id}` },
  webhooks: { notFound: 'WEBHOOK_NOT_FOUND', held: (h) => [h.webhookId], readBack: (id) => `/webhooks/${id}` },
  deliveries: {
    notFound: 'DELIVERY_NOT_FOUND',
    held: (h) => [h.deliveryId],
    readBack: (_, h) => `/webhooks/${h.webhookId}/deliveries`,
  },
  events: { notFound: 'EVENT_NOT_FOUND', held: (h) => [h.eventId], readBack: (id) => `/events/${id}` },
};

/** A valid body for the operations that need one, so that a call is judged on its ids, not refused first. */
const REQUEST_BODIES: Partial<Record<OperationId, () => unknown>> = {
  updateWebhook: () => ({ description: 'Changed by another organization' }),
  rotateWebhookSecret: () => ({ overlap_seconds: 0 }),
  recoverWebhookDeliveries: () => ({ since: new Date(Date.now() - 3_600_000).toISOString() }),
};

const PATH_ID_ROUTES = ROUTES.filter((route) => route.path.includes('{'));

/** The resources the path's parameters name, in order. */
function pathResources(route: Route): Resource[] {
  return [...route.path.matchAll(/([^/]+)\/\{([^}]+)\}/g)].map(([, segment, name]) => {
    const resource = RESOURCES[segment!];
    if (!resource) throw new Error(`${route.path}: no fixture for {${name}} (a ${segment} id); add one to RESOURCES`);
    return resource;
  });
}

/** A well-formed id that names nothing: fresh, with the prefix of a real one. */
const idOfNothingLike = (id: string) => sortableId(id.slice(0, id.lastIndexOf('_') + 1));

/** An id the caller may not see for each parameter in turn, those before it the caller's own. */
function foreignCalls(route: Route, owner: Holdings, caller: Holdings | undefined) {
  const resources = pathResources(route);
  return resources.flatMap((resource, position) => {
    // Ids before the position must be the caller's, so an organization that holds nothing has
    // only the first parameter to try.
    if (position > 0 && !caller) return [];
    const ownerIds = resource.held(owner);
    return [...ownerIds, ...new Set(ownerIds.map(idOfNothingLike))].map((target) => ({
      expected: resource.notFound,
      values: resources.map((other, index) => {
        if (index < position) return other.held(caller!)[0]!;
        return index === position ? target : other.held(owner)[0]!;
      }),
    }));
  });
}

function pathWith(route: Route, values: string[]): string {
  let index = 0;
  return route.path.replace(/\{[^}]+\}/g, () => encodeURIComponent(values[index++]!));
}

const receiver = new WebhookReceiver();

async function holdingOneOfEverything(organization: TestOrganization): Promise<Holdings> {
  const assetId = await uploadSplitSource(organization, makeMedia('mp4'), 'tenancy.mp4');
  const videoJobId = await queuedJob(organization, 'video', 10);
  const splitJobId = await queuedJob(organization, 'split', 10);
  const webhook = await call<{ id: string }>('POST', '/webhooks', {
    key: organization.key,
    body: { url: receiver.url, events: ['job.completed'] },
  });
  expect(webhook.status).toBe(201);
  const tested = await call<{ delivery: { id: string; event_id: string } }>(
    'POST',
    `/webhooks/${webhook.body.id}/test`,
    { key: organization.key },
  );
  expect(tested.status).toBe(200);
  // The endpoint records its success after the delivery's: once it shows, neither changes again.
  const settled = await eventually(
    () => call<{ last_success_at: string | null }>('GET', `/webhooks/${webhook.body.id}`, { key: organization.key }),
    (response) => response.body.last_success_at !== null,
    { everyMs: 250 },
  );
  expect(settled.body.last_success_at).not.toBeNull();
  return {
    assetId,
    videoJobId,
    splitJobId,
    webhookId: webhook.body.id,
    deliveryId: tested.body.delivery.id,
    eventId: tested.body.delivery.event_id,
  };
}

/** What the owner reads of everything it holds, and its organization's counts and balance. */
async function ownersView(organization: TestOrganization, holdings: Holdings) {
  const paths = new Set(
    Object.values(RESOURCES).flatMap((resource) =>
      resource.held(holdings).map((id) => resource.readBack(id, holdings)),
    ),
  );
  const reads: Record<string, unknown> = {};
  for (const path of paths) {
    const response = await call('GET', path, { key: organization.key });
    reads[path] = [response.status, response.body];
  }
  return { reads, organization: await getOrganization(organization.organizationId) };
}

// Custom plans only for a per-key rate limit above the matrix's requests; tenancy is the same on every plan.
const RATE_LIMITS = { requests_per_minute_per_key: 1000 };

let owner: TestOrganization;
let ownerHoldings: Holdings;
let ownerBefore: Awaited<ReturnType<typeof ownersView>>;
let newcomer: TestOrganization;
let holder: TestOrganization;
let holderHoldings: Holdings;

beforeAll(async () => {
  await receiver.start();
  const organization = () => createOrganization({ plan: 'custom', limits: RATE_LIMITS });
  [owner, newcomer, holder] = await Promise.all([organization(), organization(), organization()]);
  [ownerHoldings, holderHoldings] = await Promise.all([holdingOneOfEverything(owner), holdingOneOfEverything(holder)]);
  ownerBefore = await ownersView(owner, ownerHoldings);
});

afterAll(async () => {
  // Queued jobs left alone would be started by the reconciler a minute on, rendering for nothing.
  for (const [organization, holdings] of [
    [owner, ownerHoldings],
    [holder, holderHoldings],
  ] as const) {
    for (const jobId of holdings ? [holdings.videoJobId, holdings.splitJobId] : []) {
      await call('POST', `/jobs/${jobId}/cancel`, { key: organization.key });
    }
  }
  await receiver.stop();
  await closeJobStateClients();
});

test('the route table has operations with path ids to check', () => {
  expect(PATH_ID_ROUTES.map((route) => route.operationId)).toEqual(
    expect.arrayContaining(['getAsset', 'getJob', 'deleteWebhook', 'resendWebhookDelivery', 'getEvent']),
  );
});

test.each(PATH_ID_ROUTES.map((route) => [`${route.method} ${route.path}`, route] as const))(
  "%s answers the resource's 404 to other organizations, at its owner's ids and at ids of nothing, and changes nothing of the owner's",
  async (_, route) => {
    const notFound = operationResponses(route.operationId).get(404)?.validateBody;
    if (!notFound) throw new Error(`${route.operationId} documents no 404`);
    const callers = [
      { name: 'an organization that holds nothing', organization: newcomer, holdings: undefined },
      { name: 'an organization that holds one of everything', organization: holder, holdings: holderHoldings },
    ];
    for (const caller of callers) {
      for (const { values, expected } of foreignCalls(route, ownerHoldings, caller.holdings)) {
        const path = pathWith(route, values);
        const response: ApiResponse<Partial<ErrorBody> | undefined> = await call(route.method, path, {
          key: caller.organization.key,
          body: REQUEST_BODIES[route.operationId]?.(),
        });
        expect([caller.name, path, response.status, response.body?.error?.code]).toEqual([
          caller.name,
          path,
          404,
          expected,
        ]);
        expect(notFound(response.body) ? [] : notFound.errors).toEqual([]);
      }
    }
    expect(await ownersView(owner, ownerHoldings)).toEqual(ownerBefore);
  },
);
