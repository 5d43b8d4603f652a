import { BatchGetCommand, GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { AwsClientStub } from 'aws-sdk-client-mock';
import { hashSecret, type ApiKey } from '#domain/access/api-keys';
import type { Caller } from '#domain/access/authentication';
import { TEAM_LIMITS, type ApiOrganization, type Limits } from '#domain/access/organizations';
import type { WindowState } from '#domain/access/rate-limits';
import type { Scope } from '#domain/access/scopes';
import { API_PREFIX } from '#platform/api-prefix';

/**
 * One test API key, for tests that drive the request pipeline against a mocked table. Its prefix
 * is random, as prefixes were before they named their organization.
 */
export const CALLER_PREFIX = 'abcdefghjkmnpqrs';
/** The prefix of another key of the same organization, naming it as new keys' prefixes do: 1 digit, "9". */
export const NAMING_CALLER_PREFIX = '19abcdefghjkmnpq';
const SECRET = '0123456789abcdefghjkmnpqrstvwxyz';
export const callerKey = (prefix = CALLER_PREFIX) => `svc_test_${prefix}_${SECRET}`;
export const CALLER_KEY = callerKey();

/** The items of the caller's key, active with these scopes, and of its organization 9 (Team, API access on). */
export function callerItems(scopes: readonly Scope[] = [], prefix = CALLER_PREFIX) {
  return {
    key: {
      pk: `APIKEY#${prefix}`,
      sk: 'APIKEY',
      key_prefix: prefix,
      organization_id: 9,
      environment: 'test',
      secret_hash: hashSecret(SECRET),
      scopes,
      status: 'active',
      created_at: '2026-01-01T00:00:00Z',
    },
    organization: {
      pk: 'ORG#9',
      sk: 'ORG',
      organization_id: 9,
      plan: 'team',
      api_access: true,
      credits_balance: 0,
      created_at: '2026-01-01T00:00:00Z',
    },
  };
}

/** The mocked table knows the caller's key and its organization (callerItems), read one by one or together. */
export function tableKnowsCaller(
  dynamo: AwsClientStub<DynamoDBDocumentClient>,
  scopes: readonly Scope[] = [],
  prefix = CALLER_PREFIX,
) {
  const items = Object.values(callerItems(scopes, prefix));
  for (const item of items) {
    dynamo.on(GetCommand, { Key: { pk: item.pk, sk: item.sk } }).resolves({ Item: item });
  }
  dynamo.on(BatchGetCommand).callsFake(({ RequestItems }: { RequestItems: Record<string, { Keys: object[] }> }) => ({
    Responses: Object.fromEntries(
      Object.entries(RequestItems).map(([table, { Keys }]) => [
        table,
        items.filter((item) => Keys.some((key) => isKeyOf(item, key))),
      ]),
    ),
  }));
}

const isKeyOf = (item: { pk: string; sk: string }, key: object) =>
  (key as { pk?: string }).pk === item.pk && (key as { sk?: string }).sk === item.sk;

/** The HTTP API event of a request below the API prefix, sent with CALLER_KEY. */
export function callerEvent(
  method: string,
  path: string,
  { body, headers = {}, key = CALLER_KEY }: { body?: string; headers?: Record<string, string>; key?: string } = {},
): APIGatewayProxyEventV2 {
  return {
    version: '2.0',
    routeKey: `${method} ${API_PREFIX}${path}`,
    rawPath: `${API_PREFIX}${path}`,
    rawQueryString: '',
    headers: { authorization: `Bearer ${key}`, ...headers },
    ...(body === undefined ? {} : { body }),
    isBase64Encoded: false,
    requestContext: {
      http: { method, path: `${API_PREFIX}${path}` },
    } as APIGatewayProxyEventV2['requestContext'],
  };
}

/**
 * A whole Caller, as authentication answers it: an active test key of a Team organization with
 * API access, admitted with its windows unused. Tests that call the domain directly give what
 * they need of it.
 */
export function testCaller({
  apiKey = {},
  organization = {},
  limits = TEAM_LIMITS,
  used = {},
}: {
  apiKey?: Partial<ApiKey>;
  organization?: Partial<ApiOrganization>;
  limits?: Limits;
  /** The requests counted in the key's minute and the organization's day, this one included. */
  used?: { minute?: number; day?: number };
} = {}): Caller {
  const organizationId = organization.organizationId ?? apiKey.organizationId ?? 9;
  const window = (limit: number, count = 0): WindowState => ({
    limit,
    used: count,
    remaining: limit - count,
    resetsAt: 1_767_225_600,
  });
  return {
    apiKey: {
      keyPrefix: CALLER_PREFIX,
      organizationId,
      environment: 'test',
      scopes: [],
      status: 'active',
      createdAt: '2026-01-01T00:00:00Z',
      expiresAt: null,
      revokedAt: null,
      ...apiKey,
    },
    organization: {
      organizationId,
      plan: 'team',
      apiAccess: true,
      negotiatedLimits: {},
      creditsBalance: 0,
      activeVideoJobs: 0,
      activeSplitJobs: 0,
      activeApiKeys: 1,
      createdAt: '2026-01-01T00:00:00Z',
      ...organization,
    },
    limits,
    rateLimit: {
      minute: window(limits.requests_per_minute_per_key, used.minute),
      day: window(limits.requests_per_day_per_organization, used.day),
      exceeded: [],
    },
  };
}
