import { ApiError } from '#platform/errors';
import { addLogContext } from '#platform/log';
import { findUsableKey, type ApiKey } from './api-keys';
import {
  effectiveLimits,
  getOrganization,
  hasApiAccess,
  type ApiOrganization,
  type Limits,
  type Organization,
} from './organizations';
import { admitRequest, retryAfterSeconds, type RateLimitState } from './rate-limits';
import type { Scope } from './scopes';

export interface Caller {
  apiKey: ApiKey;
  organization: ApiOrganization;
  limits: Limits;
  rateLimit: RateLimitState;
}

const BEARER = /^Bearer[ ]+(\S+)\s*$/i;

async function identify(
  authorization: string | undefined,
): Promise<{ apiKey: ApiKey; organization: Organization; limits: Limits }> {
  const presented = authorization ? BEARER.exec(authorization)?.[1] : undefined;
  if (!presented) {
    throw new ApiError('API_KEY_INVALID', 'Send your API key as "Authorization: Bearer <API_KEY>".');
  }
  const apiKey = await findUsableKey(presented);
  const organization = apiKey && (await getOrganization(apiKey.organizationId));
  if (!apiKey || !organization) throw new ApiError('API_KEY_INVALID', 'The API key is invalid, revoked or expired.');
  return { apiKey, organization, limits: effectiveLimits(organization) };
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
  const identity = await identify(authorization);
  // From here on, every line of the request names who made it, refused or not.
  addLogContext({ organization_id: identity.organization.organizationId, key_prefix: identity.apiKey.keyPrefix });
  const rateLimit = await admitRequest(identity.apiKey.keyPrefix, identity.organization.organizationId, {
    perMinute: identity.limits.requests_per_minute_per_key,
    perDay: identity.limits.requests_per_day_per_organization,
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
  const { organization, apiKey } = identity;
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
  return { ...identity, organization, rateLimit };
}
