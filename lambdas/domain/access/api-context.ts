import type { ApiContext, CurrentUsage } from '#contract/types';
import type { Caller } from './authentication';

/**
 * How much of its limits the caller's organization uses as of this request, which the pipeline
 * has already counted: GET /me's snapshot and the usage routes' `current_usage`, so they agree.
 * `requestsThisMinute` reports another key's minute window instead of the calling key's.
 */
export function currentUsage(caller: Caller, requestsThisMinute = caller.rateLimit.minute.used): CurrentUsage {
  return {
    requests_this_minute: requestsThisMinute,
    requests_today: caller.rateLimit.day.used,
    active_video_jobs: caller.organization.activeVideoJobs,
    active_split_jobs: caller.organization.activeSplitJobs,
  };
}

/** The body of GET /me: who is calling, with what rights, and how much of its limits it uses. */
export function describeApiContext(caller: Caller): ApiContext {
  const { apiKey, organization, limits } = caller;
  return {
    organization_id: organization.organizationId,
    plan: organization.plan,
    api_access: organization.apiAccess,
    environment: apiKey.environment,
    key_prefix: apiKey.keyPrefix,
    scopes: apiKey.scopes,
    limits,
    usage_snapshot: currentUsage(caller),
  };
}
