import { createHash, timingSafeEqual } from 'node:crypto';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetConsistent } from '#platform/batch-get';
import { dynamo, tableName } from '#platform/clients/dynamodb';
import { base32OfInteger, integerOfBase32, randomToken } from '#platform/ids';
import { organizationPartition, TABLE_DESIGN } from '#platform/table-design';
import { TransactionRefused, writeTransaction } from '#platform/transactions';
import { SCOPES, type Scope } from './scopes';
import {
  effectiveLimits,
  getOrganization,
  organizationKey,
  organizationOfItem,
  slotReleaseUpdate,
  slotTakeUpdate,
  type Organization,
} from './organizations';

export const ENVIRONMENTS = ['live', 'test'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

/** 16 base32 characters of public prefix; 20 random bytes (32 characters, 160 bits) of secret. */
const KEY_PATTERN = /^svc_(live|test)_([0-9a-z]{16})_([0-9a-z]{32})$/;

const PREFIX_LENGTH = 16;
/** Leaves at least 9 random characters (45 bits) in the prefix of a key that names an organization. */
const MAX_NAMED_ORGANIZATION_DIGITS = 6;

/**
 * A new key's public prefix: one digit giving the length of the organization id in base32, the id,
 * then random characters. The prefix names the organization so that authentication reads the key
 * and its organization in one BatchGetItem rather than one after the other. An organization id
 * longer than 6 base32 digits (above 2^30) is not named: the whole prefix is random.
 */
export function newKeyPrefix(organizationId: number): string {
  const digits = base32OfInteger(organizationId);
  const named = digits.length <= MAX_NAMED_ORGANIZATION_DIGITS ? `${digits.length}${digits}` : '';
  const randomLength = PREFIX_LENGTH - named.length;
  return `${named}${randomToken(Math.ceil((randomLength * 5) / 8)).slice(0, randomLength)}`;
}

/**
 * The organization a prefix names, as a hint: the key item stays the authority. Prefixes made
 * before they named organizations are random, and some read as naming one; authentication then
 * finds another organization on the key item and reads that one.
 */
export function organizationNamedBy(prefix: string): number | undefined {
  const length = Number(prefix[0]);
  if (!Number.isInteger(length) || length < 1 || length > MAX_NAMED_ORGANIZATION_DIGITS) return undefined;
  return integerOfBase32(prefix.slice(1, 1 + length));
}

export interface ParsedKey {
  environment: Environment;
  prefix: string;
  secret: string;
}

export function parseApiKey(presented: string): ParsedKey | undefined {
  const match = KEY_PATTERN.exec(presented);
  if (!match) return undefined;
  return { environment: match[1] as Environment, prefix: match[2] as string, secret: match[3] as string };
}

/** Secrets carry 160 random bits, so a fast hash is enough: there is nothing to brute-force. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

export function secretMatches(secret: string, storedHash: string): boolean {
  const presented = Buffer.from(hashSecret(secret), 'hex');
  const stored = Buffer.from(storedHash, 'hex');
  return presented.length === stored.length && timingSafeEqual(presented, stored);
}

export interface ApiKey {
  keyPrefix: string;
  organizationId: number;
  environment: Environment;
  scopes: Scope[];
  status: 'active' | 'revoked';
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
}

interface ApiKeyItem {
  key_prefix: string;
  organization_id: number;
  environment: Environment;
  secret_hash: string;
  scopes: Scope[];
  status: 'active' | 'revoked';
  created_at: string;
  key_expires_at?: string | null;
  revoked_at?: string | null;
}

export function apiKeyKey(prefix: string) {
  return { pk: `APIKEY#${prefix}`, sk: 'APIKEY' };
}

/** The gsi1 partition of an organization's keys, sorted by creation. */
function keysPartition(organizationId: number) {
  return `${organizationPartition(organizationId)}#APIKEYS`;
}

/** Every key of a key's item, in the table and in its organization's gsi1 partition. */
function apiKeyItemKeys(prefix: string, organizationId: number, createdAt: string) {
  return { ...apiKeyKey(prefix), gsi1pk: keysPartition(organizationId), gsi1sk: createdAt };
}

/** A key as a listing reads it: everything but the secret's hash. */
type ListedApiKeyItem = Omit<ApiKeyItem, 'secret_hash'>;
const LISTED_ATTRIBUTES = [
  'key_prefix',
  'organization_id',
  'environment',
  'scopes',
  'status',
  'created_at',
  'key_expires_at',
  'revoked_at',
] as const satisfies readonly (keyof ListedApiKeyItem)[];

function fromItem(item: ListedApiKeyItem): ApiKey {
  return {
    keyPrefix: item.key_prefix,
    organizationId: item.organization_id,
    environment: item.environment,
    scopes: item.scopes,
    status: item.status,
    createdAt: item.created_at,
    expiresAt: item.key_expires_at ?? null,
    revokedAt: item.revoked_at ?? null,
  };
}

/**
 * The item of the key with this public prefix, read strongly consistently: a revocation applies to
 * the very next request, and a key created a moment ago is already known.
 */
async function readKeyItem(prefix: string): Promise<ApiKeyItem | undefined> {
  const { Item } = await dynamo().send(
    new GetCommand({ TableName: tableName(), Key: apiKeyKey(prefix), ConsistentRead: true }),
  );
  return Item as ApiKeyItem | undefined;
}

/** An expiry that does not parse counts as passed: a key is refused rather than valid forever. */
function hasExpired(expiresAt: string, now: Date): boolean {
  const expiresAtMs = Date.parse(expiresAt);
  return Number.isNaN(expiresAtMs) || expiresAtMs <= now.getTime();
}

/** Whether the key is accepted now: an active key past its expiry is refused like a revoked one. */
export function keyStatus(apiKey: Pick<ApiKey, 'status' | 'expiresAt'>, now: Date): 'active' | 'revoked' | 'expired' {
  if (apiKey.status !== 'active') return apiKey.status;
  return apiKey.expiresAt && hasExpired(apiKey.expiresAt, now) ? 'expired' : 'active';
}

/** The key an item stores when it is the presented one and accepted now, otherwise undefined. */
function usableKey(parsed: ParsedKey, item: ApiKeyItem | undefined, now: Date): ApiKey | undefined {
  if (!item || !secretMatches(parsed.secret, item.secret_hash)) return undefined;
  if (item.environment !== parsed.environment) return undefined;
  const apiKey = fromItem(item);
  return keyStatus(apiKey, now) === 'active' ? apiKey : undefined;
}

/** A presented key accepted, with its organization when that was read in the same request. */
export interface UsableKey {
  apiKey: ApiKey;
  /**
   * Read with the key when the key's prefix names its organization: null when its item is
   * missing. Absent when it is still to be read.
   */
  organization?: Organization | null;
}

/**
 * Resolves a presented bearer key to its record, or undefined for anything that must be
 * answered with API_KEY_INVALID: malformed, unknown, wrong secret, revoked, expired. Both reads
 * are strongly consistent: a revocation, like a change of the organization, applies to the very
 * next request.
 */
export async function findUsableKey(presented: string, now = new Date()): Promise<UsableKey | undefined> {
  const parsed = parseApiKey(presented);
  if (!parsed) return undefined;
  const named = organizationNamedBy(parsed.prefix);
  if (named === undefined) {
    const apiKey = usableKey(parsed, await readKeyItem(parsed.prefix), now);
    return apiKey && { apiKey };
  }
  const keyOfKey = apiKeyKey(parsed.prefix);
  const keyOfOrganization = organizationKey(named);
  const items = await batchGetConsistent([keyOfKey, keyOfOrganization]);
  const apiKey = usableKey(parsed, items.find((item) => item.pk === keyOfKey.pk) as ApiKeyItem | undefined, now);
  if (!apiKey) return undefined;
  if (apiKey.organizationId !== named) return { apiKey };
  const organizationItem = items.find((item) => item.pk === keyOfOrganization.pk);
  return { apiKey, organization: organizationItem ? organizationOfItem(organizationItem) : null };
}

/**
 * The key of the organization that has this public prefix, whatever its status (a revoked or
 * expired key keeps its history), or undefined when no key of the organization has it.
 */
export async function findKeyOfOrganization(prefix: string, organizationId: number): Promise<ApiKey | undefined> {
  const item = await readKeyItem(prefix);
  return item?.organization_id === organizationId ? fromItem(item) : undefined;
}

export interface NewApiKey {
  organizationId: number;
  environment: Environment;
  scopes: readonly Scope[];
  expiresAt?: string;
}

export class ApiKeyLimitReached extends Error {}

/** Creates a key and returns the full key string: the only time it exists outside the caller's hands. */
export async function createApiKey(input: NewApiKey, now = new Date()): Promise<{ key: string; apiKey: ApiKey }> {
  const organization = await getOrganization(input.organizationId);
  if (!organization) throw new Error(`Organization ${input.organizationId} does not exist`);
  const unknownScope = input.scopes.find((scope) => !SCOPES.includes(scope));
  if (unknownScope) throw new Error(`Unknown scope ${unknownScope}`);
  const prefix = newKeyPrefix(input.organizationId);
  const secret = randomToken(20);
  const item: ApiKeyItem = {
    key_prefix: prefix,
    organization_id: input.organizationId,
    environment: input.environment,
    secret_hash: hashSecret(secret),
    scopes: [...input.scopes],
    status: 'active',
    created_at: now.toISOString(),
    key_expires_at: input.expiresAt ?? null,
  };
  const limit = effectiveLimits(organization).active_api_keys_per_organization;
  try {
    await writeTransaction({
      organization: slotTakeUpdate(input.organizationId, 'api-key', limit),
      key: {
        Put: {
          TableName: tableName(),
          Item: { ...apiKeyItemKeys(prefix, input.organizationId, item.created_at), ...item },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    });
  } catch (error) {
    if (error instanceof TransactionRefused && error.failed('organization')) {
      throw new ApiKeyLimitReached(`Organization ${input.organizationId} already has ${limit} active API keys`);
    }
    throw error;
  }
  return { key: `svc_${input.environment}_${prefix}_${secret}`, apiKey: fromItem(item) };
}

export async function revokeApiKey(prefix: string, now = new Date()): Promise<ApiKey> {
  const item = await readKeyItem(prefix);
  if (!item) throw new Error(`No API key has prefix ${prefix}`);
  if (item.status === 'revoked') return fromItem(item);
  const revokedAt = now.toISOString();
  await writeTransaction({
    key: {
      Update: {
        TableName: tableName(),
        Key: apiKeyKey(prefix),
        UpdateExpression: 'SET #status = :revoked, revoked_at = :at',
        ConditionExpression: '#status = :active',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':revoked': 'revoked', ':active': 'active', ':at': revokedAt },
      },
    },
    organization: slotReleaseUpdate(item.organization_id, 'api-key'),
  });
  return fromItem({ ...item, status: 'revoked', revoked_at: revokedAt });
}

export interface ApiKeyPage {
  /** Oldest first, whatever their status. */
  apiKeys: ApiKey[];
  /** The `afterPrefix` of the next page, or null when this page holds the newest key. */
  nextAfterPrefix: string | null;
}

/**
 * An organization's keys for the operator, `pageSize` at a time after the key `afterPrefix`: a
 * Query of gsi1 that never reads the secret's hash. The index is eventually consistent, so a
 * key created a moment ago may be missing from the list for that moment.
 */
export async function listApiKeys({
  organizationId,
  afterPrefix,
  pageSize,
}: {
  organizationId: number;
  afterPrefix?: string;
  pageSize: number;
}): Promise<ApiKeyPage> {
  let startKey: Record<string, unknown> | undefined;
  if (afterPrefix !== undefined) {
    const after = await findKeyOfOrganization(afterPrefix, organizationId);
    if (!after) throw new Error(`Organization ${organizationId} has no API key with prefix ${afterPrefix}`);
    startKey = apiKeyItemKeys(afterPrefix, organizationId, after.createdAt);
  }
  // One key past the page, whose presence says that a next page exists.
  const items: ListedApiKeyItem[] = [];
  do {
    const { Items, LastEvaluatedKey } = await dynamo().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: TABLE_DESIGN.gsi1.indexName,
        KeyConditionExpression: 'gsi1pk = :partition',
        ProjectionExpression: LISTED_ATTRIBUTES.map((name) => `#${name}`).join(', '),
        ExpressionAttributeNames: Object.fromEntries(LISTED_ATTRIBUTES.map((name) => [`#${name}`, name])),
        ExpressionAttributeValues: { ':partition': keysPartition(organizationId) },
        ExclusiveStartKey: startKey,
        Limit: pageSize + 1 - items.length,
      }),
    );
    items.push(...((Items ?? []) as ListedApiKeyItem[]));
    startKey = LastEvaluatedKey;
  } while (startKey && items.length <= pageSize);
  const apiKeys = items.slice(0, pageSize).map(fromItem);
  const lastListed = apiKeys.at(-1);
  return { apiKeys, nextAfterPrefix: items.length > pageSize && lastListed ? lastListed.keyPrefix : null };
}
