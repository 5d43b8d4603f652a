import { ApiError } from '#platform/errors';
import { addLogContext } from '#platform/log';
import { findUsableKey, type ApiKey, type UsableKey } from './api-keys';
import {
  effectiveLimits,
  getOrganization,
  hasApiAccess,
  type ApiOrganization,
  type Limits,
  type Organization,
} from './organizations';
import {
  admitCounted,
  countRequest,
  retryAfterSeconds,
  uncountRequest,
  type CountedRequest,
  type RateLimitState,
} from './rate-limits';
import type { Scope } from './scopes';

export interface Caller {
  apiKey: ApiKey;
  organization: ApiOrganization;
  limits: Limits;
  rateLimit: RateLimitState;
}

const BEARER = /^Bearer[ ]+(\S+)\s*$/i;

const INVALID_KEY = 'The API key is invalid, revoked or expired.';

/** The first round trip: the presented key, and its organization too when the key's prefix names it. */
async function identifyKey(authorization: string | undefined): Promise<UsableKey> {
  const presented = authorization ? BEARER.exec(authorization)?.[1] : undefined;
  if (!presented) {
    throw new ApiError('API_KEY_INVALID', 'Send your API key as "Authorization: Bearer <API_KEY>".');
  }
  const usable = await findUsableKey(presented);
  if (!usable) throw new ApiError('API_KEY_INVALID', INVALID_KEY);
  return usable;
}

/**
 * Counts the request, and reads the key's organization beside the count when the first round trip
 * did not: the second and last round trip before the operation's own work. Every read is strongly
 * consistent, so a change of plan, API access or limits, like a revocation, applies to the very
 * next request.
 */
async function organizationAndCount({
  apiKey,
  organization: readWithKey,
}: UsableKey): Promise<{ organization: Organization; counted: CountedRequest }> {
  if (readWithKey === null) throw new ApiError('API_KEY_INVALID', INVALID_KEY);
  if (readWithKey) {
    return { organization: readWithKey, counted: await countRequest(apiKey.keyPrefix, apiKey.organizationId) };
  }
  const [organizationRead, counting] = await Promise.allSettled([
    getOrganization(apiKey.organizationId),
    countRequest(apiKey.keyPrefix, apiKey.organizationId),
  ]);
  if (counting.status === 'rejected') throw counting.reason;
  if (organizationRead.status === 'fulfilled' && organizationRead.value) {
    return { organization: organizationRead.value, counted: counting.value };
  }
  await uncountRequest(counting.value);
  if (organizationRead.status === 'rejected') throw organizationRead.reason;
  throw new ApiError('API_KEY_INVALID', INVALID_KEY);
}

/**
 * Identifies the caller, counts the request against its rate limits, then checks plan and scope.
 * Rate limiting comes before the plan and scope checks so that a denied key is throttled too.
 * `onRateLimit` receives the window state as soon as it is known, so that every later response,
 * errors included, carries the rate-limit headers.
 */
export async function authenticate(
  authorization: string | undefined,
  requiredScope: Scope | null,
  onRateLimit: (state: RateLimitState) => void,
): Promise<Caller> {
  const usable = await identifyKey(authorization);
  const { apiKey } = usable;
  // From here on, every line of the request names who made it, refused or not.
  addLogContext({ organization_id: apiKey.organizationId, key_prefix: apiKey.keyPrefix });
  const { organization, counted } = await organizationAndCount(usable);
  const limits = effectiveLimits(organization);
  const rateLimit = await admitCounted(counted, {
    perMinute: limits.requests_per_minute_per_key,
    perDay: limits.requests_per_day_per_organization,
  });
  onRateLimit(rateLimit);
  if (rateLimit.exceeded.length > 0) {
    const which = rateLimit.exceeded.includes('day')
      ? "the organization's daily request limit"
      : "this key's per-minute request limit";
    throw new ApiError('RATE_LIMIT_EXCEEDED', `Too many requests: ${which} is reached. Retry after the reset.`, {
      'Retry-After': String(retryAfterSeconds(rateLimit)),
    });
  }
  if (!hasApiAccess(organization)) {
    throw new ApiError(
      'API_ACCESS_DENIED',
      'API access is available to organizations on the Team and Custom plans with API access enabled.',
    );
  }
  if (requiredScope && !apiKey.scopes.includes(requiredScope)) {
    throw new ApiError(
      'INSUFFICIENT_SCOPE',
      `This API key lacks the scope '${requiredScope}' that this operation requires.`,
    );
  }
  return { apiKey, organization, limits, rateLimit };
}
