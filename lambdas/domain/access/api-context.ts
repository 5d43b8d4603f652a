import type { ApiContext } from '#contract/types';
import type { Caller } from './authentication';

/** The body of GET /me: who is calling, with what rights, and how much of its limits it uses. */
export function describeApiContext(caller: Caller): ApiContext {
  const { apiKey, organization, limits, rateLimit } = caller;
  return {
    organization_id: organization.organizationId,
    plan: organization.plan,
    api_access: organization.apiAccess,
    environment: apiKey.environment,
    key_prefix: apiKey.keyPrefix,
    scopes: apiKey.scopes,
    limits,
    usage_snapshot: {
      requests_this_minute: rateLimit.minute.used,
      requests_today: rateLimit.day.used,
      active_video_jobs: organization.activeVideoJobs,
      active_split_jobs: organization.activeSplitJobs,
    },
  };
}
