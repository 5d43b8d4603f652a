import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { AwsClientStub } from 'aws-sdk-client-mock';
import { hashSecret } from '#domain/access/api-keys';
import type { Scope } from '#domain/access/scopes';
import { API_PREFIX } from '#routes';

/** One test API key, for tests that drive the request pipeline against a mocked table. */
export const CALLER_PREFIX = 'abcdefghjkmnpqrs';
const SECRET = '0123456789abcdefghjkmnpqrstvwxyz';
export const CALLER_KEY = `svc_test_${CALLER_PREFIX}_${SECRET}`;

/** The items of CALLER_KEY, active with these scopes, and of its organization 9 (Team, API access on). */
export function callerItems(scopes: readonly Scope[] = []) {
  return {
    key: {
      pk: `APIKEY#${CALLER_PREFIX}`,
      sk: 'APIKEY',
      key_prefix: CALLER_PREFIX,
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

/** The mocked table knows CALLER_KEY and its organization (callerItems). */
export function tableKnowsCaller(dynamo: AwsClientStub<DynamoDBDocumentClient>, scopes: readonly Scope[] = []) {
  for (const item of Object.values(callerItems(scopes))) {
    dynamo.on(GetCommand, { Key: { pk: item.pk, sk: item.sk } }).resolves({ Item: item });
  }
}

/** The HTTP API event of a request below the API prefix, sent with CALLER_KEY. */
export function callerEvent(
  method: string,
  path: string,
  { body, headers = {} }: { body?: string; headers?: Record<string, string> } = {},
): APIGatewayProxyEventV2 {
  return {
    version: '2.0',
    routeKey: `${method} ${API_PREFIX}${path}`,
    rawPath: `${API_PREFIX}${path}`,
    rawQueryString: '',
    headers: { authorization: `Bearer ${CALLER_KEY}`, ...headers },
    ...(body === undefined ? {} : { body }),
    isBase64Encoded: false,
    requestContext: {
      http: { method, path: `${API_PREFIX}${path}` },
    } as APIGatewayProxyEventV2['requestContext'],
  };
}
