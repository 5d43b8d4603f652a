import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient, GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import fc from 'fast-check';
import {
  ApiKeyLimitReached,
  createApiKey,
  findUsableKey,
  hashSecret,
  newKeyPrefix,
  organizationNamedBy,
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

describe('key prefixes', () => {
  const organizationIds = fc.integer({ min: 0, max: 2 ** 30 - 1 });

  it('name the organization of a new key, in 16 characters of the key format', () => {
    fc.assert(
      fc.property(organizationIds, (organizationId) => {
        const prefix = newKeyPrefix(organizationId);
        expect(parseApiKey(`svc_test_${prefix}_${'0'.repeat(32)}`)?.prefix).toBe(prefix);
        expect(organizationNamedBy(prefix)).toBe(organizationId);
      }),
    );
  });

  it('keep at least 9 random characters after the organization', () => {
    const prefixes = new Set(Array.from({ length: 1000 }, () => newKeyPrefix(2 ** 30 - 1)));
    expect(prefixes.size).toBe(1000);
    expect(newKeyPrefix(2 ** 30 - 1).slice(0, 7)).toBe('6zzzzzz');
    expect(newKeyPrefix(12).slice(0, 2)).toBe('1c');
  });

  it('are wholly random for an organization id above 6 base32 digits', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2 ** 30, max: Number.MAX_SAFE_INTEGER }), (organizationId) => {
        const prefix = newKeyPrefix(organizationId);
        expect(prefix).toMatch(/^[0-9a-z]{16}$/);
        expect(organizationNamedBy(prefix)).not.toBe(organizationId);
      }),
    );
  });

  it.each([
    ['a letter first', 'abcdefghjkmnpqrs'],
    ['a 0 first', '0bcdefghjkmnpqrs'],
    ['a 7 first: more digits than a prefix names', '7bcdefghjkmnpqrs'],
    ['a letter outside the base32 alphabet in the id', '2ubcdefghjkmnpqr'],
  ])('read as naming no organization with %s', (_, prefix) => {
    expect(organizationNamedBy(prefix)).toBeUndefined();
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
    expect(organizationNamedBy(apiKey.keyPrefix)).toBe(7);
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

    await expect(findUsableKey(presented, NOW)).resolves.toEqual({
      apiKey: expect.objectContaining({ keyPrefix: prefix, organizationId: 7 }),
    });
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

    await expect(findUsableKey(presented, NOW)).resolves.toMatchObject({ apiKey: { keyPrefix: prefix } });
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

  describe('whose prefix names its organization', () => {
    const namingPrefix = '17bcdefghjkmnpqr';
    const namingKey = `svc_test_${namingPrefix}_${secret}`;
    const keyItem = (organizationId: number) => ({
      ...storedKey(null),
      pk: `APIKEY#${namingPrefix}`,
      key_prefix: namingPrefix,
      organization_id: organizationId,
    });
    const organizationItem = (organizationId: number) => ({
      pk: `ORG#${organizationId}`,
      sk: 'ORG',
      organization_id: organizationId,
      plan: 'team',
      api_access: true,
      created_at: '2026-01-01T00:00:00.000Z',
    });
    const tableHolds = (...items: object[]) => dynamo.on(BatchGetCommand).resolves({ Responses: { table: items } });

    it('reads the key and its organization in one strongly consistent BatchGetItem', async () => {
      tableHolds(organizationItem(7), keyItem(7));

      await expect(findUsableKey(namingKey, NOW)).resolves.toEqual({
        apiKey: expect.objectContaining({ keyPrefix: namingPrefix, organizationId: 7 }),
        organization: expect.objectContaining({ organizationId: 7, plan: 'team', apiAccess: true }),
      });
      expect(dynamo.commandCalls(BatchGetCommand)[0]!.args[0].input.RequestItems).toEqual({
        table: {
          Keys: [
            { pk: `APIKEY#${namingPrefix}`, sk: 'APIKEY' },
            { pk: 'ORG#7', sk: 'ORG' },
          ],
          ConsistentRead: true,
        },
      });
      expect(dynamo.commandCalls(GetCommand)).toHaveLength(0);
    });

    it('answers a missing organization as null, for authentication to refuse the key', async () => {
      tableHolds(keyItem(7));

      await expect(findUsableKey(namingKey, NOW)).resolves.toMatchObject({ organization: null });
    });

    it('leaves the organization to be read when the key item names another (a prefix made before prefixes named it)', async () => {
      tableHolds(keyItem(12), organizationItem(7));

      const usable = await findUsableKey(namingKey, NOW);
      expect(usable).toEqual({ apiKey: expect.objectContaining({ organizationId: 12 }) });
    });

    it('refuses a prefix no key has, whatever organization it names', async () => {
      tableHolds(organizationItem(7));

      await expect(findUsableKey(namingKey, NOW)).resolves.toBeUndefined();
    });
  });
});
