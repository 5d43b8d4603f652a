import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import {
  ApiKeyLimitReached,
  createApiKey,
  findUsableKey,
  hashSecret,
  parseApiKey,
  secretMatches,
} from '#domain/access/api-keys';

process.env.TABLE_NAME = 'table';
process.env.AWS_REGION = 'us-east-1';

describe('API key format', () => {
  const prefix = 'abcdefghjkmnpqrs';
  const secret = '0123456789abcdefghjkmnpqrstvwxyz';

  it('parses live and test keys into environment, prefix and secret', () => {
    expect(parseApiKey(`svc_live_${prefix}_${secret}`)).toEqual({ environment: 'live', prefix, secret });
    expect(parseApiKey(`svc_test_${prefix}_${secret}`)).toEqual({ environment: 'test', prefix, secret });
  });

  it.each([
    ['an unknown environment', `svc_prod_${prefix}_${secret}`],
    ['a short prefix', `svc_test_abc_${secret}`],
    ['a short secret', `svc_test_${prefix}_abc`],
    ['upper-case characters', `svc_test_${prefix.toUpperCase()}_${secret}`],
    ['trailing text', `svc_test_${prefix}_${secret}x`],
    ['another vendor prefix', `sk_test_${prefix}_${secret}`],
    ['an empty string', ''],
  ])('rejects %s', (_, presented) => {
    expect(parseApiKey(presented)).toBeUndefined();
  });
});

describe('secret hashing', () => {
  it('stores a SHA-256 hex digest, never the secret', () => {
    const hash = hashSecret('secret-value');
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hash).not.toContain('secret-value');
  });

  it('matches only the secret it was made from', () => {
    const stored = hashSecret('right');
    expect(secretMatches('right', stored)).toBe(true);
    expect(secretMatches('wrong', stored)).toBe(false);
  });

  it('treats a malformed stored hash as no match instead of throwing', () => {
    expect(secretMatches('right', 'abc')).toBe(false);
  });
});

describe('API key creation', () => {
  const dynamo = mockClient(DynamoDBDocumentClient);
  beforeEach(() => {
    dynamo.reset();
    dynamo.on(GetCommand).resolves({
      Item: { organization_id: 7, plan: 'team', api_access: true, created_at: '2026-01-01T00:00:00Z' },
    });
  });
  const create = () => createApiKey({ organizationId: 7, environment: 'test', scopes: ['jobs:read'] });

  it('takes a key slot of the organization and writes the key in one transaction', async () => {
    dynamo.on(TransactWriteCommand).resolves({});
    const { key, apiKey } = await create();
    expect(parseApiKey(key)).toMatchObject({ environment: 'test', prefix: apiKey.keyPrefix });
    const [slot, put] = dynamo.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems ?? [];
    expect(slot!.Update).toMatchObject({
      Key: { pk: 'ORG#7', sk: 'ORG' },
      ExpressionAttributeValues: { ':limit': 10 },
    });
    expect(put!.Put!.Item).toMatchObject({ pk: `APIKEY#${apiKey.keyPrefix}`, scopes: ['jobs:read'] });
  });

  const refusal = (codes: string[]) =>
    new TransactionCanceledException({
      message: 'cancelled',
      $metadata: {},
      CancellationReasons: codes.map((Code) => ({ Code })),
    });

  it('answers that the limit is reached when the organization refuses the slot', async () => {
    dynamo.on(TransactWriteCommand).rejects(refusal(['ConditionalCheckFailed', 'None']));
    await expect(create()).rejects.toBeInstanceOf(ApiKeyLimitReached);
  });

  it('does not take a refused key item (a prefix already used) for the limit', async () => {
    dynamo.on(TransactWriteCommand).rejects(refusal(['None', 'ConditionalCheckFailed']));
    await expect(create()).rejects.toMatchObject({ name: 'TransactionRefused', reasons: { key: expect.anything() } });
  });
});

describe('resolving a presented key', () => {
  const dynamo = mockClient(DynamoDBDocumentClient);
  const prefix = 'abcdefghjkmnpqrs';
  const secret = '0123456789abcdefghjkmnpqrstvwxyz';
  const presented = `svc_test_${prefix}_${secret}`;
  const NOW = new Date('2026-03-01T12:00:00.000Z');
  const storedKey = (expiresAt: string | null) => ({
    pk: `APIKEY#${prefix}`,
    sk: 'APIKEY',
    key_prefix: prefix,
    organization_id: 7,
    environment: 'test',
    secret_hash: hashSecret(secret),
    scopes: ['jobs:read'],
    status: 'active',
    created_at: '2026-01-01T00:00:00.000Z',
    key_expires_at: expiresAt,
  });
  beforeEach(() => {
    dynamo.reset();
  });

  it('reads the key item strongly consistently, so a revocation applies to the next request', async () => {
    dynamo.on(GetCommand).resolves({ Item: storedKey(null) });

    await expect(findUsableKey(presented, NOW)).resolves.toMatchObject({ keyPrefix: prefix, organizationId: 7 });
    expect(dynamo.commandCalls(GetCommand)[0]!.args[0].input).toMatchObject({
      Key: { pk: `APIKEY#${prefix}`, sk: 'APIKEY' },
      ConsistentRead: true,
    });
  });

  it.each([
    ['has no expiry', null],
    ['expires in a second', '2026-03-01T12:00:01.000Z'],
  ])('accepts a key that %s', async (_, expiresAt) => {
    dynamo.on(GetCommand).resolves({ Item: storedKey(expiresAt) });

    await expect(findUsableKey(presented, NOW)).resolves.toMatchObject({ keyPrefix: prefix });
  });

  it.each([
    ['expired at this very moment', '2026-03-01T12:00:00.000Z'],
    ['expired a day ago', '2026-02-28T12:00:00.000Z'],
    ['has an expiry that does not parse', 'next tuesday'],
    ['has an expiry out of range', '2026-13-45T99:00:00Z'],
  ])('refuses a key that %s', async (_, expiresAt) => {
    dynamo.on(GetCommand).resolves({ Item: storedKey(expiresAt) });

    await expect(findUsableKey(presented, NOW)).resolves.toBeUndefined();
  });
});
