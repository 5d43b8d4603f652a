import type {
  CreditTotals,
  JobType,
  JobTypeUsage,
  UsageCredits,
  UsageJobs,
  UsageRateLimits,
  UsageSummary,
  UsageWebhooks,
} from '#contract/types';
import { currentUsage } from '#domain/access/api-context';
import { findKeyOfOrganization } from '#domain/access/api-keys';
import type { Caller } from '#domain/access/authentication';
import { readRateLimitState, requestsInDays, type WindowState } from '#domain/access/rate-limits';
import { JOB_TYPE_NAMES } from '#domain/jobs/job-types';
import { endpointCounts } from '#domain/webhooks/endpoint-store';
import { ApiError } from '#platform/errors';
import { resolvePeriod, type PeriodQuery } from './usage-period';
import { deliveryCountsInRange, jobCountsInRange, type JobTypeCounts } from './usage-store';

/**
 * The bodies of the five usage routes. Every figure comes from counters kept as the things they
 * count happen (the daily job aggregates, the rate-limit windows, the organization item), read
 * here without counting anything: the request itself was counted once, by the pipeline, so a
 * usage route and GET /me answered at the same moment give the same numbers.
 */

interface JobTypeFilter {
  job_type?: JobType;
}

interface ApiKeyFilter {
  /** The public prefix of a key of the caller's organization. */
  api_key_id?: string;
}

/** The job types a report covers: the one asked for, or every type. */
function typesAskedFor(jobType: JobType | undefined): JobType[] {
  return jobType ? [jobType] : JOB_TYPE_NAMES;
}

function perType<T>(types: readonly JobType[], entry: (type: JobType) => T): Partial<Record<JobType, T>> {
  return Object.fromEntries(types.map((type) => [type, entry(type)]));
}

function creditSums(counts: Record<JobType, JobTypeCounts>, types: readonly JobType[]) {
  return {
    charged: types.reduce((sum, type) => sum + counts[type].charged, 0),
    refunded: types.reduce((sum, type) => sum + counts[type].refunded, 0),
  };
}

function jobTypeUsage(counts: JobTypeCounts): JobTypeUsage {
  return { total: counts.created, by_status: { ...counts.byStatus } };
}

/**
 * The key an `api_key_id` names, checked to be one of the caller's organization (any status: a
 * revoked key still has history). Undefined when the request names none.
 */
async function keyAskedFor(caller: Caller, apiKeyId: string | undefined): Promise<string | undefined> {
  if (apiKeyId === undefined || apiKeyId === caller.apiKey.keyPrefix) return apiKeyId;
  if (!(await findKeyOfOrganization(apiKeyId, caller.organization.organizationId))) {
    throw new ApiError(
      'VALIDATION_FAILED',
      `Query parameter api_key_id '${apiKeyId}' names no API key of this organization`,
    );
  }
  return apiKeyId;
}

/**
 * The minute window of a key: the caller's as the pipeline counted this request, another key's
 * as it stands, read without counting.
 */
async function minuteWindowOf(caller: Caller, keyPrefix: string | undefined, now: Date): Promise<WindowState> {
  if (keyPrefix === undefined || keyPrefix === caller.apiKey.keyPrefix) return caller.rateLimit.minute;
  const { minute } = await readRateLimitState(
    keyPrefix,
    caller.organization.organizationId,
    { perMinute: caller.limits.requests_per_minute_per_key, perDay: caller.limits.requests_per_day_per_organization },
    now.getTime(),
  );
  return minute;
}

/** GET /usage: credits, requests and jobs of the period, with limits and current usage. */
export async function usageSummary(
  caller: Caller,
  query: PeriodQuery & JobTypeFilter & ApiKeyFilter,
  now = new Date(),
): Promise<UsageSummary> {
  const period = resolvePeriod(query, now);
  const keyPrefix = await keyAskedFor(caller, query.api_key_id);
  const organizationId = caller.organization.organizationId;
  const [counts, requests, minute] = await Promise.all([
    jobCountsInRange(organizationId, period.days, keyPrefix),
    requestsInDays(organizationId, period.days, keyPrefix),
    minuteWindowOf(caller, keyPrefix, now),
  ]);
  const types = typesAskedFor(query.job_type);
  return {
    period: period.range,
    credits: { balance: caller.organization.creditsBalance, ...creditSums(counts, types) },
    requests: { total: requests },
    jobs: perType(types, (type) => jobTypeUsage(counts[type])),
    limits: caller.limits,
    current_usage: currentUsage(caller, minute.used),
  };
}

/** GET /usage/credits: the current balance, and the credits of the jobs created in the period. */
export async function usageCredits(
  caller: Caller,
  query: PeriodQuery & JobTypeFilter,
  now = new Date(),
): Promise<UsageCredits> {
  const period = resolvePeriod(query, now);
  const counts = await jobCountsInRange(caller.organization.organizationId, period.days);
  const types = typesAskedFor(query.job_type);
  return {
    period: period.range,
    balance: caller.organization.creditsBalance,
    ...creditSums(counts, types),
    by_job_type: perType(types, (type): CreditTotals => ({
      charged: counts[type].charged,
      refunded: counts[type].refunded,
      jobs: counts[type].created,
    })),
  };
}

/** GET /usage/jobs: the jobs created in the period, by type and current status. */
export async function usageJobs(
  caller: Caller,
  query: PeriodQuery & JobTypeFilter,
  now = new Date(),
): Promise<UsageJobs> {
  const period = resolvePeriod(query, now);
  const counts = await jobCountsInRange(caller.organization.organizationId, period.days);
  return {
    period: period.range,
    by_type: perType(typesAskedFor(query.job_type), (type) => jobTypeUsage(counts[type])),
  };
}

/**
 * GET /usage/rate-limits: the current windows of the caller's key (or `api_key_id`'s) and of the
 * organization. The period is validated like on every usage route, and changes nothing.
 */
export async function usageRateLimits(
  caller: Caller,
  query: PeriodQuery & ApiKeyFilter,
  now = new Date(),
): Promise<UsageRateLimits> {
  resolvePeriod(query, now);
  const keyPrefix = (await keyAskedFor(caller, query.api_key_id)) ?? caller.apiKey.keyPrefix;
  const minute = await minuteWindowOf(caller, keyPrefix, now);
  const { limits } = caller;
  return {
    key_prefix: keyPrefix,
    limits: {
      requests_per_minute_per_key: limits.requests_per_minute_per_key,
      requests_per_day_per_organization: limits.requests_per_day_per_organization,
      concurrent_video_jobs: limits.concurrent_video_jobs,
      concurrent_split_jobs: limits.concurrent_split_jobs,
    },
    usage: currentUsage(caller, minute.used),
    resets: {
      minute_window_resets_at: new Date(minute.resetsAt * 1000).toISOString(),
      day_window_resets_at: new Date(caller.rateLimit.day.resetsAt * 1000).toISOString(),
    },
  };
}

/** GET /usage/webhooks: the endpoints as they are now, and the deliveries of the period. */
export async function usageWebhooks(caller: Caller, query: PeriodQuery, now = new Date()): Promise<UsageWebhooks> {
  const period = resolvePeriod(query, now);
  const organizationId = caller.organization.organizationId;
  const [endpoints, deliveries] = await Promise.all([
    endpointCounts(organizationId),
    deliveryCountsInRange(organizationId, period.days),
  ]);
  return { period: period.range, endpoints, deliveries };
}
