import {
  GetCommand,
  PutCommand,
  UpdateCommand,
  type NativeAttributeValue,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
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

/** The organization a table item read by its key (`organizationKey`) stores, as the document client answers it. */
export function organizationOfItem(item: Record<string, NativeAttributeValue>): Organization {
  return fromItem(item as OrganizationItem);
}

export async function getOrganization(organizationId: number): Promise<Organization | undefined> {
  const { Item } = await dynamo().send(
    new GetCommand({ TableName: tableName(), Key: organizationKey(organizationId), ConsistentRead: true }),
  );
  return Item ? organizationOfItem(Item) : undefined;
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
 * What the organization holds a limited number of: active (queued or processing) jobs of each
 * type, active API keys, webhook endpoints. Each one takes a slot in the transaction that creates
 * it and gives it back in the one that ends it.
 */
export type Slot = JobType | 'api-key' | 'webhook-endpoint';

/**
 * Each slot's count on the organization item, and the name its take gives the bound on it: the
 * concurrency cap of a job type, the limit on keys and on endpoints.
 */
const SLOT_COUNTERS = {
  video: { counter: 'active_video_jobs', bound: ':cap' },
  split: { counter: 'active_split_jobs', bound: ':cap' },
  'api-key': { counter: 'active_api_keys', bound: ':limit' },
  'webhook-endpoint': { counter: 'webhook_endpoints_count', bound: ':limit' },
} as const satisfies Record<Slot, { counter: string; bound: string }>;

/**
 * For the transaction that creates what the slot is for: takes one, refused (with the
 * organization as it was) when `bound` slots are taken or the organization does not exist. A
 * job's create charges its `price` in the same update, refused too when the balance is short (a
 * missing organization has none), so neither can ever be overdrawn.
 */
export function slotTakeUpdate(organizationId: number, slot: Slot, bound: number, price?: number): TransactionItem {
  const { counter, bound: boundName } = SLOT_COUNTERS[slot];
  const take = `${counter} = if_not_exists(${counter}, :zero) + :one`;
  const free = `(attribute_not_exists(${counter}) OR ${counter} < ${boundName})`;
  return {
    Update: {
      TableName: tableName(),
      Key: organizationKey(organizationId),
      UpdateExpression: price === undefined ? `SET ${take}` : `SET credits_balance = credits_balance - :price, ${take}`,
      ConditionExpression: `${price === undefined ? 'attribute_exists(pk)' : 'credits_balance >= :price'} AND ${free}`,
      ExpressionAttributeValues: {
        ...(price === undefined ? {} : { ':price': price }),
        ':zero': 0,
        ':one': 1,
        [boundName]: bound,
      },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    },
  };
}

/** Which condition of a refused charging slotTakeUpdate failed, from the organization the refusal returned. */
export function refusedCharge(
  organization: Record<string, unknown> | undefined,
  price: number,
): { limit: 'credits'; balance: number } | { limit: 'concurrency' } {
  const balance = Number(organization?.credits_balance ?? 0);
  return balance < price ? { limit: 'credits', balance } : { limit: 'concurrency' };
}

/**
 * For the transaction that ends what the slot was for: gives it back, and with it `refund`
 * credits (what a job that ended gives back). The count is read through if_not_exists: an
 * update whose arithmetic names an attribute the item has not got fails the whole transaction as
 * a validation error (DynamoDB Local throws ValidationException), not as the failed condition of
 * another item that the caller answers for. An organization that never took a slot of the kind
 * has no count: one that never made an endpoint, deleting an id that is not its own, must get the
 * 404 of the endpoint's condition.
 */
export function slotReleaseUpdate(organizationId: number, slot: Slot, refund = 0): TransactionItem {
  const { counter } = SLOT_COUNTERS[slot];
  const release = `${counter} = if_not_exists(${counter}, :one) - :one`;
  return {
    Update: {
      TableName: tableName(),
      Key: organizationKey(organizationId),
      UpdateExpression: refund > 0 ? `SET ${release}, credits_balance = credits_balance + :refund` : `SET ${release}`,
      ExpressionAttributeValues: refund > 0 ? { ':one': 1, ':refund': refund } : { ':one': 1 },
    },
  };
}
