import { createHash, timingSafeEqual } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from '#platform/clients/dynamodb';
import { randomToken } from '#platform/ids';
import { TransactionRefused, writeTransaction } from '#platform/transactions';
import { SCOPES, type Scope } from './scopes';
import { apiKeySlotRelease, apiKeySlotUpdate, effectiveLimits, getOrganization } from './organizations';

export const ENVIRONMENTS = ['live', 'test'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

/** 10 random bytes (16 base32 chars) of public prefix; 20 bytes (32 chars, 160 bits) of secret. */
const KEY_PATTERN = /^svc_(live|test)_([0-9a-z]{16})_([0-9a-z]{32})$/;

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

function fromItem(item: ApiKeyItem): ApiKey {
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
 * Resolves a presented bearer key to its record, or undefined for anything that must be
 * answered with API_KEY_INVALID: malformed, unknown, wrong secret, revoked, expired.
 */
export async function findUsableKey(presented: string, now = new Date()): Promise<ApiKey | undefined> {
  const parsed = parseApiKey(presented);
  if (!parsed) return undefined;
  // Strongly consistent, so that a revocation applies to the very next request.
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName(), Key: apiKeyKey(parsed.prefix), ConsistentRead: true }),
  );
  if (!Item) return undefined;
  const item = Item as ApiKeyItem;
  if (!secretMatches(parsed.secret, item.secret_hash)) return undefined;
  if (item.environment !== parsed.environment || item.status !== 'active') return undefined;
  if (item.key_expires_at && hasExpired(item.key_expires_at, now)) return undefined;
  return fromItem(item);
}

/**
 * The key of the organization that has this public prefix, whatever its status (a revoked or
 * expired key keeps its history), or undefined when no key of the organization has it.
 */
export async function findKeyOfOrganization(prefix: string, organizationId: number): Promise<ApiKey | undefined> {
  // Strongly consistent, so that a key created a moment ago is already known.
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName(), Key: apiKeyKey(prefix), ConsistentRead: true }),
  );
  const item = Item as ApiKeyItem | undefined;
  return item?.organization_id === organizationId ? fromItem(item) : undefined;
}

/** An expiry that does not parse counts as passed: a key is refused rather than valid forever. */
function hasExpired(expiresAt: string, now: Date): boolean {
  const expiresAtMs = Date.parse(expiresAt);
  return Number.isNaN(expiresAtMs) || expiresAtMs <= now.getTime();
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
  const prefix = randomToken(10);
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
      organization: apiKeySlotUpdate(input.organizationId, limit),
      key: {
        Put: {
          TableName: tableName(),
          Item: {
            ...apiKeyKey(prefix),
            gsi1pk: `ORG#${input.organizationId}#APIKEYS`,
            gsi1sk: item.created_at,
            ...item,
          },
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
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName(), Key: apiKeyKey(prefix), ConsistentRead: true }),
  );
  if (!Item) throw new Error(`No API key has prefix ${prefix}`);
  const item = Item as ApiKeyItem;
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
    organization: apiKeySlotRelease(item.organization_id),
  });
  return fromItem({ ...item, status: 'revoked', revoked_at: revokedAt });
}
