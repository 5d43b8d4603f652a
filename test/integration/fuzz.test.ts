import fc from 'fast-check';
import { operations } from '#contract/operations/index';
import { ROUTES, type Route } from '#routes';
import { operationResponses, UNROUTED_RESPONSES, type ResponseRules } from './support/api-document';
import {
  createSender,
  describeRequest,
  excerpt,
  identifiesKey,
  routeOf,
  routeRequests,
  unroutedRequests,
  type Credential,
  type FuzzContext,
  type FuzzRequest,
  type FuzzResponse,
  type KeyRole,
} from './support/fuzz-requests';
import { waitForJob } from './support/jobs';
import { makeMedia } from './support/media';
import {
  baseUrl,
  call,
  createKey,
  createOrganization,
  RATE_LIMIT_HEADERS,
  revokeKey,
  setCredits,
  type TestOrganization,
} from './support/stack';

/**
 * Property-based fuzzing of the whole API surface, generated from the route table and
 * docs/openapi.yaml: every route gets requests with broken and near-valid bodies, odd path ids,
 * queries and headers, under every kind of key; requests no route serves get theirs too. Each
 * response must be one the document describes for that operation: never a 5xx, the error
 * envelope on every error, the rate-limit headers whenever the key was identified, 400 for a
 * body holding a string that is not Unicode text (strings with an unpaired surrogate are
 * generated among the valid ones as well as the broken ones).
 *
 * Replay a run with FUZZ_SEED (printed at the start); a failure prints FUZZ_OPERATION and
 * FUZZ_PATH too, which replay just its counterexample. FUZZ_RUNS sets the number of requests.
 */

const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);
const TOTAL_RUNS = Number(process.env.FUZZ_RUNS ?? 6_000);
const REPLAY_PATH = process.env.FUZZ_PATH;
const ONLY_OPERATION = process.env.FUZZ_OPERATION;
/** Requests in flight at once: the stack, its emulators and Jest share the machine. */
const CONCURRENCY = 8;
const UNROUTED = 'unrouted';
/** Shrinking sends a request per candidate; past this many, the smallest counterexample so far is reported. */
const SHRINK_REQUEST_BUDGET = 300;
/** The fixture job's idempotency key, offered to the generators so that some requests reuse it (409). */
const IDEMPOTENCY_KEY_IN_USE = 'fuzz-fixture-job';

interface Campaign {
  name: string;
  requests: (context: FuzzContext) => fc.Arbitrary<FuzzRequest>;
}

const CAMPAIGNS: Campaign[] = [
  ...ROUTES.map((route) => ({
    name: route.operationId,
    requests: (context: FuzzContext) => routeRequests(route, context),
  })),
  { name: UNROUTED, requests: unroutedRequests },
].filter((campaign) => !ONLY_OPERATION || campaign.name === ONLY_OPERATION);

const RUNS_PER_CAMPAIGN = Math.ceil(TOTAL_RUNS / CAMPAIGNS.length);

const RESPONSES = new Map<string, ResponseRules>(
  ROUTES.map((route) => [route.operationId, operationResponses(route.operationId)]),
);

// ---------------------------------------------------------------------------------------------
// What every response must be

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function errorOf(body: unknown): { code?: unknown; request_id?: unknown } {
  const error = (body as { error?: unknown } | undefined)?.error;
  return typeof error === 'object' && error !== null ? error : {};
}

/** Header values are text; integer headers are checked as the numbers they spell. */
function headerValue(value: string | string[]): unknown {
  const text = Array.isArray(value) ? value.join(',') : value;
  return /^-?\d+$/.test(text) ? Number(text) : text;
}

function keyRules(route: Route | undefined, credential: Credential, response: FuzzResponse, code: unknown): string[] {
  const problems: string[] = [];
  const rateLimitHeaders = RATE_LIMIT_HEADERS.filter((name) => response.headers[name] !== undefined);
  if (route?.public) {
    // No key is read, so none is refused or counted, whatever the credential.
    if (response.status === 401 || response.status === 403) problems.push('a public operation refused a key');
    if (rateLimitHeaders.length > 0)
      problems.push(`rate-limit headers on a public operation: ${rateLimitHeaders.join(', ')}`);
    return problems;
  }
  if (!identifiesKey(credential)) {
    if (response.status !== 401 || code !== 'API_KEY_INVALID') {
      problems.push('an unidentified key must get 401 API_KEY_INVALID');
    }
    if (rateLimitHeaders.length > 0) {
      problems.push(`rate-limit headers without an identified key: ${rateLimitHeaders.join(', ')}`);
    }
    return problems;
  }
  const missing = RATE_LIMIT_HEADERS.filter((name) => !rateLimitHeaders.includes(name));
  if (missing.length > 0) problems.push(`missing rate-limit headers: ${missing.join(', ')}`);
  // Rate limiting comes first, then the plan, then the scope.
  if (credential.key === 'no-api-access' && !['API_ACCESS_DENIED', 'RATE_LIMIT_EXCEEDED'].includes(String(code))) {
    problems.push('a key of an organization without API access must get API_ACCESS_DENIED');
  }
  if (
    credential.key === 'no-scopes' &&
    route?.scope &&
    !['INSUFFICIENT_SCOPE', 'RATE_LIMIT_EXCEEDED'].includes(String(code))
  ) {
    problems.push('a key without the scope must get INSUFFICIENT_SCOPE');
  }
  return problems;
}

/** A string, a value or a member name at any depth, with a UTF-16 surrogate that has no pair. */
function holdsUnpairedSurrogate(value: unknown): boolean {
  // Iterative: fuzzed bodies nest far deeper than a stack of calls would.
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const node = pending.pop();
    if (typeof node === 'string' && /[\uD800-\uDFFF]/u.test(node)) return true;
    if (typeof node === 'object' && node !== null) {
      for (const [name, member] of Object.entries(node)) pending.push(name, member);
    }
  }
  return false;
}

/**
 * The body as the operation reads it, when it takes one: the bytes sent, decoded as UTF-8 (a lone
 * surrogate written as such goes out as U+FFFD; only JSON's `\ud800` escape brings one in), parsed.
 */
function bodyRead(route: Route, body: FuzzRequest['body']): unknown {
  if (!operations[route.operationId].hasBody || body === undefined) return undefined;
  return parseJson(Buffer.from(body).toString('utf8'));
}

/**
 * docs/openapi.yaml (Text): a request whose body holds a string that is not Unicode text is
 * refused with 400, unless the key is refused or throttled first.
 */
function textRules(route: Route | undefined, request: FuzzRequest, response: FuzzResponse, code: unknown): string[] {
  if (!route || !holdsUnpairedSurrogate(bodyRead(route, request.body))) return [];
  if ([401, 403, 429].includes(response.status)) return [];
  if (response.status === 400 && code === 'VALIDATION_FAILED') return [];
  return [`a body with an unpaired surrogate got ${response.status}, not 400 VALIDATION_FAILED`];
}

/** Everything the response does that docs/openapi.yaml does not allow for this request. */
function problemsOf(request: FuzzRequest, response: FuzzResponse): string[] {
  const { route, allowed } = routeOf(request);
  const rules = route ? (RESPONSES.get(route.operationId) as ResponseRules) : UNROUTED_RESPONSES;
  const rule = rules.get(response.status);
  const problems: string[] = [];
  if (response.status >= 500) problems.push(`server error ${response.status}`);
  if (!rule) {
    problems.push(`status ${response.status} is not documented for ${route?.operationId ?? 'unrouted requests'}`);
  }

  const body = response.body === '' ? undefined : parseJson(response.body);
  if (response.body !== '') {
    if (!String(response.headers['content-type']).startsWith('application/json')) {
      problems.push(`Content-Type ${response.headers['content-type']} is not JSON`);
    }
    if (body === undefined) problems.push('the body is not JSON');
  }
  if (rule?.validateBody && !rule.validateBody(body)) {
    const [error] = rule.validateBody.errors ?? [];
    problems.push(`the body breaks the documented schema: ${error?.instancePath || '/'} ${error?.message}`);
  }
  if (rule && !rule.validateBody && response.body !== '') problems.push('a body where the document has none');

  const requestId = response.headers['x-request-id'];
  if (typeof requestId !== 'string' || !requestId.startsWith('req_')) problems.push('no X-Request-Id req_*');
  const { code, request_id: errorRequestId } = errorOf(body);
  if (response.status >= 400 && errorRequestId !== requestId) problems.push('error.request_id is not X-Request-Id');

  for (const header of rule?.headers ?? []) {
    const value = response.headers[header.name];
    if (value === undefined) {
      if (header.required) problems.push(`missing ${header.name}`);
    } else if (!header.validate(headerValue(value))) {
      problems.push(`${header.name}: ${String(value)} breaks its documented schema`);
    }
  }
  if (!route && response.status === 404 && allowed.length > 0) {
    problems.push(`404 where the path has ${allowed.join(', ')}`);
  }
  if (response.status === 405) {
    const listed = String(response.headers.allow ?? '')
      .split(',')
      .map((method) => method.trim());
    if (listed.sort().join() !== [...allowed].sort().join()) {
      problems.push(`Allow lists ${listed.join(', ')}; the path has ${allowed.join(', ')}`);
    }
  }
  return [
    ...problems,
    ...keyRules(route, request.credential, response, code),
    ...textRules(route, request, response, code),
  ];
}

function describeExchange(request: FuzzRequest, response: FuzzResponse, problems: string[]): string {
  return [
    describeRequest(request),
    `→ ${response.status} ${JSON.stringify(response.headers)}`,
    `  body: ${excerpt(response.body)}`,
    ...problems.map((problem) => `✗ ${problem}`),
  ].join('\n');
}

// ---------------------------------------------------------------------------------------------
// The organizations, keys and resources requests are made with

const MANY_REQUESTS = { requests_per_minute_per_key: 1_000_000, requests_per_day_per_organization: 100_000_000 };
/** What one 5-second text-to-video job costs: enough for the fixture job, then taken away. */
const ONE_JOB_OF_CREDITS = 10;

async function uploadUrl(
  org: TestOrganization,
  body: Record<string, unknown>,
): Promise<{ asset_id: string; upload_url: string }> {
  const response = await call<{ asset_id: string; upload_url: string }>('POST', '/assets/upload-url', {
    key: org.key,
    body,
  });
  if (response.status !== 201) throw new Error(`upload-url answered ${response.status}`);
  return response.body;
}

async function uploadedAsset(org: TestOrganization, bytes: Buffer, declared: Record<string, unknown>): Promise<string> {
  const { asset_id, upload_url } = await uploadUrl(org, declared);
  await fetch(upload_url, { method: 'PUT', headers: { 'Content-Type': String(declared.content_type) }, body: bytes });
  await call('POST', '/assets/confirm-upload', { key: org.key, body: { asset_id } });
  return asset_id;
}

/**
 * Organizations with limits high enough that fuzzed requests are rarely throttled, and no credits
 * or no job slots so that valid creates stop at a documented 4xx before any render starts.
 */
async function provision(): Promise<{ keys: Record<KeyRole, string>; context: FuzzContext }> {
  const noCredits = await createOrganization({ plan: 'custom', credits: ONE_JOB_OF_CREDITS, limits: MANY_REQUESTS });
  const noJobSlots = await createOrganization({
    plan: 'custom',
    credits: 1_000_000,
    limits: { ...MANY_REQUESTS, concurrent_video_jobs: 0 },
  });
  const throttled = await createOrganization({
    plan: 'custom',
    credits: 0,
    limits: { requests_per_minute_per_key: 2 },
  });
  const noApiAccess = await createOrganization({ plan: 'pro', credits: 0 });
  const neighbour = await createOrganization({ credits: 0 });
  const noScopes = await createKey(noCredits.organizationId, { scopes: [] });
  const revoked = await createKey(noCredits.organizationId);
  await revokeKey(revoked.apiKey.keyPrefix);

  const image = makeMedia('png');
  const pendingAsset = await uploadUrl(noCredits, {
    filename: 'pending.mp4',
    content_type: 'video/mp4',
    size_bytes: 1000,
    purpose: 'split_source',
  });
  const imageAsset = await uploadedAsset(noCredits, image, {
    filename: 'source.png',
    content_type: 'image/png',
    size_bytes: image.length,
    purpose: 'image_source',
  });
  // PNG bytes declared as MP4: confirmation marks the asset failed.
  const failedAsset = await uploadedAsset(noCredits, image, {
    filename: 'not-a-video.mp4',
    content_type: 'video/mp4',
    size_bytes: image.length,
    purpose: 'video_source',
  });
  const neighbourAsset = await uploadUrl(neighbour, {
    filename: 'elsewhere.png',
    content_type: 'image/png',
    size_bytes: 10,
    purpose: 'general',
  });
  const failedJob = await call<{ id: string }>('POST', '/video-jobs', {
    key: noCredits.key,
    body: { prompt: 'fuzz fixture [fault:fail]', duration_seconds: 5 },
    headers: { 'idempotency-key': IDEMPOTENCY_KEY_IN_USE },
  });
  if (failedJob.status !== 201) throw new Error(`the fixture job answered ${failedJob.status}`);
  // The failure refunds the job; only then can the balance be emptied for good.
  await waitForJob(noCredits.key, failedJob.body.id);
  await setCredits(noCredits.organizationId, 0);

  return {
    keys: {
      'no-credits': noCredits.key,
      'no-job-slots': noJobSlots.key,
      'no-scopes': noScopes.key,
      'no-api-access': noApiAccess.key,
      throttled: throttled.key,
      revoked: revoked.key,
    },
    context: {
      knownIds: [pendingAsset.asset_id, imageAsset, failedAsset, neighbourAsset.asset_id, failedJob.body.id],
      knownHeaderValues: [IDEMPOTENCY_KEY_IN_USE],
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Running the campaigns side by side

interface Outcome {
  requests: number;
  statuses: Record<number, number>;
  failure?: string;
}

async function runCampaign(
  campaign: Campaign,
  context: FuzzContext,
  send: (request: FuzzRequest) => Promise<FuzzResponse>,
) {
  const outcome: Outcome = { requests: 0, statuses: {} };
  // Counted from the first failure on; passing every candidate once it runs out ends the shrinking.
  let shrinkingRequests: number | undefined;
  const property = fc.asyncProperty(campaign.requests(context), async (request) => {
    if (shrinkingRequests !== undefined && shrinkingRequests++ >= SHRINK_REQUEST_BUDGET) return;
    const response = await send(request);
    outcome.requests++;
    outcome.statuses[response.status] = (outcome.statuses[response.status] ?? 0) + 1;
    const problems = problemsOf(request, response);
    if (problems.length > 0) {
      shrinkingRequests ??= 0;
      throw new Error(describeExchange(request, response, problems));
    }
  });
  const details = await fc.check(property, {
    seed: SEED,
    numRuns: RUNS_PER_CAMPAIGN,
    ...(REPLAY_PATH ? { path: REPLAY_PATH, endOnFailure: true } : {}),
  });
  if (details.failed) {
    const replay = `FUZZ_SEED=${details.seed} FUZZ_OPERATION=${campaign.name} FUZZ_PATH=${details.counterexamplePath}`;
    const error =
      details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
    const cutShort =
      (shrinkingRequests ?? 0) > SHRINK_REQUEST_BUDGET
        ? ` (shrinking stopped after ${SHRINK_REQUEST_BUDGET} requests)`
        : '';
    outcome.failure = `${campaign.name} — replay with ${replay}${cutShort}\n${fc.defaultReportMessage(details)}\n\n${error}`;
  }
  return outcome;
}

describe('fuzzed requests, generated from the route table and docs/openapi.yaml', () => {
  const outcomes = new Map<string, Promise<Outcome>>();
  let closeSender: () => void = () => undefined;
  let startedAt = 0;

  beforeAll(async () => {
    console.log(`Fuzz seed ${SEED} (replay: FUZZ_SEED=${SEED}), ${RUNS_PER_CAMPAIGN} requests per campaign`);
    const { keys, context } = await provision();
    const sender = createSender(baseUrl(), keys, CONCURRENCY);
    closeSender = sender.close;
    startedAt = Date.now();
    for (const campaign of CAMPAIGNS) {
      outcomes.set(
        campaign.name,
        runCampaign(campaign, context, sender.send).catch((error: unknown) => ({
          requests: 0,
          statuses: {},
          failure: error instanceof Error ? (error.stack ?? error.message) : String(error),
        })),
      );
    }
  }, 120_000);

  afterAll(async () => {
    const settled = await Promise.all(outcomes.values());
    closeSender();
    const total = settled.reduce((sum, outcome) => sum + outcome.requests, 0);
    const lines = [...outcomes.keys()].map(
      (name, index) =>
        `  ${name}: ${Object.entries(settled[index]?.statuses ?? {})
          .map(([status, count]) => `${status}×${count}`)
          .join(' ')}`,
    );
    console.log(
      `Fuzzed ${total} requests in ${((Date.now() - startedAt) / 1000).toFixed(1)} s (seed ${SEED})\n${lines.join('\n')}`,
    );
  });

  it.each(CAMPAIGNS.map((campaign) => campaign.name))(
    '%s: every response is one the document allows',
    async (name) => {
      const outcome = await outcomes.get(name);
      // Thrown rather than compared, so that the report prints as written.
      if (outcome?.failure) throw new Error(outcome.failure);
      expect(outcome?.requests).toBeGreaterThan(0);
    },
    600_000,
  );
});
