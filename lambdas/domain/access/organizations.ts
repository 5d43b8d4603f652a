import { GetCommand, PutCommand, UpdateCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import type { JobType } from '#contract/types';
import { BATCH_GET_MAX_KEYS, batchGetConsistent } from '#platform/batch-get';
import { dynamo, tableName } from '#platform/clients/dynamodb';
import type { TransactionItem } from '#platform/transactions';
import { organizationPartition } from '#platform/table-design';

export const PLANS = ['team', 'custom', 'pro'] as const;
export type Plan = (typeof PLANS)[number];

/** Plans whose organizations may use the API (spec: Team and Custom only). */
export const API_PLANS = ['team', 'custom'] as const satisfies readonly Plan[];
export type ApiPlan = (typeof API_PLANS)[number];

export const LIMIT_NAMES = [
  'requests_per_minute_per_key',
  'requests_per_day_per_organization',
  'concurrent_video_jobs',
  'concurrent_split_jobs',
  'active_api_keys_per_organization',
  'webhook_endpoints',
  'max_asset_upload_size_bytes',
] as const;
export type LimitName = (typeof LIMIT_NAMES)[number];
export type Limits = Record<LimitName, number>;

export const TEAM_LIMITS: Limits = {
  requests_per_minute_per_key: 60,
  requests_per_day_per_organization: 10000,
  concurrent_video_jobs: 3,
  concurrent_split_jobs: 2,
  active_api_keys_per_organization: 10,
  webhook_endpoints: 3,
  max_asset_upload_size_bytes: 2147483648,
};

/**
 * The most clips one split job may ask for: negotiable like the limits, but not one of them, since
 * the contract fixes the limits that GET /me reports. The request range is 1 to 10.
 */
export const MAX_CLIPS_SETTING = 'max_clips_per_split_job';
export const TEAM_MAX_CLIPS_PER_SPLIT_JOB = 5;
export const MAX_CLIPS_PER_SPLIT_JOB = 10;

/** What may be negotiated for a Custom organization: its limits and its clip cap. */
export type NegotiatedLimits = Partial<Limits> & { [MAX_CLIPS_SETTING]?: number };
export const NEGOTIABLE_NAMES: readonly (keyof NegotiatedLimits)[] = [...LIMIT_NAMES, MAX_CLIPS_SETTING];

/** S3 refuses a single PUT above 5 GiB, so no negotiated upload limit may exceed it. */
export const MAX_SINGLE_UPLOAD_BYTES = 5 * 1024 ** 3;

export interface Organization {
  organizationId: number;
  plan: Plan;
  apiAccess: boolean;
  /** Negotiated values; they apply only while the plan is `custom`. */
  negotiatedLimits: NegotiatedLimits;
  creditsBalance: number;
  activeVideoJobs: number;
  activeSplitJobs: number;
  activeApiKeys: number;
  createdAt: string;
}

/** An organization that may use the API: on a Team or Custom plan, with API access on. */
export type ApiOrganization = Organization & { plan: ApiPlan };

export function hasApiAccess(organization: Organization): organization is ApiOrganization {
  return (API_PLANS as readonly Plan[]).includes(organization.plan) && organization.apiAccess;
}

export function organizationKey(organizationId: number) {
  return { pk: organizationPartition(organizationId), sk: 'ORG' };
}

const ORGANIZATION_SEQUENCE_KEY = { pk: 'SEQUENCE', sk: 'ORGANIZATION' };

export function effectiveLimits(organization: Pick<Organization, 'plan' | 'negotiatedLimits'>): Limits {
  const limits = { ...TEAM_LIMITS };
  if (organization.plan !== 'custom') return limits;
  for (const name of LIMIT_NAMES) limits[name] = organization.negotiatedLimits[name] ?? limits[name];
  return limits;
}

/** The most clips a split job of the organization may ask for. */
export function maxClipsPerSplitJob(organization: Pick<Organization, 'plan' | 'negotiatedLimits'>): number {
  return organization.plan === 'custom'
    ? (organization.negotiatedLimits[MAX_CLIPS_SETTING] ?? TEAM_MAX_CLIPS_PER_SPLIT_JOB)
    : TEAM_MAX_CLIPS_PER_SPLIT_JOB;
}

/** The organization item's count of its active (queued or processing) jobs of each type. */
const ACTIVE_JOBS_COUNTER = { video: 'active_video_jobs', split: 'active_split_jobs' } as const satisfies Record<
  JobType,
  keyof OrganizationItem
>;

interface OrganizationItem {
  organization_id: number;
  plan: Plan;
  api_access: boolean;
  negotiated_limits?: NegotiatedLimits;
  credits_balance?: number;
  active_video_jobs?: number;
  active_split_jobs?: number;
  active_api_keys?: number;
  created_at: string;
}

function fromItem(item: OrganizationItem): Organization {
  return {
    organizationId: item.organization_id,
    plan: item.plan,
    apiAccess: item.api_access,
    negotiatedLimits: item.negotiated_limits ?? {},
    creditsBalance: item.credits_balance ?? 0,
    activeVideoJobs: item.active_video_jobs ?? 0,
    activeSplitJobs: item.active_split_jobs ?? 0,
    activeApiKeys: item.active_api_keys ?? 0,
    createdAt: item.created_at,
  };
}

export async function getOrganization(organizationId: number): Promise<Organization | undefined> {
  const { Item } = await dynamo().send(
    new GetCommand({ TableName: tableName(), Key: organizationKey(organizationId), ConsistentRead: true }),
  );
  return Item ? fromItem(Item as OrganizationItem) : undefined;
}

export interface OrganizationPage {
  /** In id order; an id whose organization was never written (a create that failed after taking it) is skipped. */
  organizations: Organization[];
  /** The `afterId` of the next page, or null when this page reached the last id given out. */
  nextAfterId: number | null;
}

/**
 * The organizations with ids `afterId + 1` to `afterId + pageSize`, for the operator. Ids come
 * from the sequence, one after another, so a page is the sequence item and one BatchGetItem per
 * 100 ids, never a Scan of the table (which holds every job and event).
 */
export async function listOrganizations({
  afterId = 0,
  pageSize,
}: {
  afterId?: number;
  pageSize: number;
}): Promise<OrganizationPage> {
  const { Item } = await dynamo().send(
    new GetCommand({ TableName: tableName(), Key: ORGANIZATION_SEQUENCE_KEY, ConsistentRead: true }),
  );
  const lastId = Number(Item?.last_value ?? 0);
  const pageEnd = Math.min(afterId + pageSize, lastId);
  const keyBatches: ReturnType<typeof organizationKey>[][] = [];
  for (let first = afterId + 1; first <= pageEnd; first += BATCH_GET_MAX_KEYS) {
    const last = Math.min(first + BATCH_GET_MAX_KEYS - 1, pageEnd);
    keyBatches.push(Array.from({ length: last - first + 1 }, (_, offset) => organizationKey(first + offset)));
  }
  const items = (await Promise.all(keyBatches.map((keys) => batchGetConsistent(keys)))).flat();
  const organizations = items
    .map((item) => fromItem(item as OrganizationItem))
    .sort((left, right) => left.organizationId - right.organizationId);
  return { organizations, nextAfterId: pageEnd < lastId ? pageEnd : null };
}

export interface NewOrganization {
  plan: Plan;
  apiAccess?: boolean;
  credits?: number;
  negotiatedLimits?: NegotiatedLimits;
}

export async function createOrganization(input: NewOrganization, now = new Date()): Promise<Organization> {
  const { Attributes } = await dynamo().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: ORGANIZATION_SEQUENCE_KEY,
      UpdateExpression: 'ADD last_value :one',
      ExpressionAttributeValues: { ':one': 1 },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  const item: OrganizationItem = {
    organization_id: Number(Attributes?.last_value),
    plan: input.plan,
    api_access: input.apiAccess ?? true,
    negotiated_limits: input.negotiatedLimits ?? {},
    credits_balance: input.credits ?? 0,
    active_video_jobs: 0,
    active_split_jobs: 0,
    active_api_keys: 0,
    created_at: now.toISOString(),
  };
  await dynamo().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...organizationKey(item.organization_id), ...item },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
  return fromItem(item);
}

export interface OrganizationChanges {
  plan?: Plan;
  apiAccess?: boolean;
  negotiatedLimits?: NegotiatedLimits;
}

/** Applies operator changes; negotiated limits are merged into those already set. */
export async function updateOrganization(organizationId: number, changes: OrganizationChanges): Promise<Organization> {
  const sets: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  if (changes.plan) {
    sets.push('#plan = :plan');
    names['#plan'] = 'plan';
    values[':plan'] = changes.plan;
  }
  if (changes.apiAccess !== undefined) {
    sets.push('api_access = :api_access');
    values[':api_access'] = changes.apiAccess;
  }
  for (const [name, value] of Object.entries(changes.negotiatedLimits ?? {})) {
    sets.push(`negotiated_limits.#${name} = :${name}`);
    names[`#${name}`] = name;
    values[`:${name}`] = value;
  }
  if (sets.length === 0) throw new Error('Nothing to update: give --plan, --api-access or --limit');
  return updateExisting(organizationId, {
    UpdateExpression: `SET ${sets.join(', ')}`,
    ExpressionAttributeNames: Object.keys(names).length ? names : undefined,
    ExpressionAttributeValues: values,
  });
}

export async function setCreditBalance(organizationId: number, balance: number): Promise<Organization> {
  return updateExisting(organizationId, {
    UpdateExpression: 'SET credits_balance = :balance',
    ExpressionAttributeValues: { ':balance': balance },
  });
}

/** An operator's update of an organization that must exist; answers the organization as updated. */
async function updateExisting(
  organizationId: number,
  update: Pick<UpdateCommandInput, 'UpdateExpression' | 'ExpressionAttributeNames' | 'ExpressionAttributeValues'>,
): Promise<Organization> {
  try {
    const { Attributes } = await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: organizationKey(organizationId),
        ConditionExpression: 'attribute_exists(pk)',
        ReturnValues: 'ALL_NEW',
        ...update,
      }),
    );
    return fromItem(Attributes as OrganizationItem);
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) {
      throw new Error(`Organization ${organizationId} does not exist`);
    }
    throw error;
  }
}

/**
 * For the transaction that creates a job: charges its price and takes one of its type's
 * concurrency slots, refused (with the organization as it was) when the balance is short or
 * every slot is taken, so neither can ever be overdrawn.
 */
export function jobChargeUpdate(organizationId: number, jobType: JobType, price: number, cap: number): TransactionItem {
  const counter = ACTIVE_JOBS_COUNTER[jobType];
  return {
    Update: {
      TableName: tableName(),
      Key: organizationKey(organizationId),
      UpdateExpression: `SET credits_balance = credits_balance - :price, ${counter} = if_not_exists(${counter}, :zero) + :one`,
      ConditionExpression: `credits_balance >= :price AND (attribute_not_exists(${counter}) OR ${counter} < :cap)`,
      ExpressionAttributeValues: { ':price': price, ':zero': 0, ':one': 1, ':cap': cap },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    },
  };
}

/** Which condition of a refused jobChargeUpdate failed, from the organization the refusal returned. */
export function refusedCharge(
  organization: Record<string, unknown> | undefined,
  price: number,
): { limit: 'credits'; balance: number } | { limit: 'concurrency' } {
  const balance = Number(organization?.credits_balance ?? 0);
  return balance < price ? { limit: 'credits', balance } : { limit: 'concurrency' };
}

/** For the transaction that ends a job: gives back its concurrency slot, and `refund` credits. */
export function jobReleaseUpdate(organizationId: number, jobType: JobType, refund: number): TransactionItem {
  const counter = ACTIVE_JOBS_COUNTER[jobType];
  return {
    Update: {
      TableName: tableName(),
      Key: organizationKey(organizationId),
      UpdateExpression:
        refund > 0
          ? `SET ${counter} = ${counter} - :one, credits_balance = credits_balance + :refund`
          : `SET ${counter} = ${counter} - :one`,
      ExpressionAttributeValues: refund > 0 ? { ':one': 1, ':refund': refund } : { ':one': 1 },
    },
  };
}

/** The organization item's counts of taken slots that a limit caps, apart from the active jobs. */
type SlotCounter = 'active_api_keys' | 'webhook_endpoints_count';

/** Takes one slot of `counter`, refused when the organization is missing or `limit` slots are taken. */
function slotUpdate(organizationId: number, counter: SlotCounter, limit: number): TransactionItem {
  return {
    Update: {
      TableName: tableName(),
      Key: organizationKey(organizationId),
      UpdateExpression: `ADD ${counter} :one`,
      ConditionExpression: `attribute_exists(pk) AND (attribute_not_exists(${counter}) OR ${counter} < :limit)`,
      ExpressionAttributeValues: { ':one': 1, ':limit': limit },
    },
  };
}

/** Gives one slot of `counter` back. */
function slotRelease(organizationId: number, counter: SlotCounter): TransactionItem {
  return {
    Update: {
      TableName: tableName(),
      Key: organizationKey(organizationId),
      UpdateExpression: `ADD ${counter} :minus_one`,
      ExpressionAttributeValues: { ':minus_one': -1 },
    },
  };
}

/** For the transaction that creates an API key: takes one of the organization's active key slots. */
export function apiKeySlotUpdate(organizationId: number, limit: number): TransactionItem {
  return slotUpdate(organizationId, 'active_api_keys', limit);
}

/** For the transaction that revokes an API key: gives its slot back. */
export function apiKeySlotRelease(organizationId: number): TransactionItem {
  return slotRelease(organizationId, 'active_api_keys');
}

/** For the transaction that creates a webhook endpoint: takes one of the organization's endpoint slots. */
export function webhookEndpointSlotUpdate(organizationId: number, limit: number): TransactionItem {
  return slotUpdate(organizationId, 'webhook_endpoints_count', limit);
}

/** For the transaction that deletes a webhook endpoint: gives its slot back. */
export function webhookEndpointSlotRelease(organizationId: number): TransactionItem {
  return slotRelease(organizationId, 'webhook_endpoints_count');
}
