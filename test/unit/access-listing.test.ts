import { BatchGetCommand, DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { listApiKeys } from '#domain/access/api-keys';
import { listOrganizations } from '#domain/access/organizations';

process.env.TABLE_NAME = 'table';
process.env.AWS_REGION = 'us-east-1';

const dynamo = mockClient(DynamoDBDocumentClient);
beforeEach(() => dynamo.reset());

const organizationItem = (id: number) => ({
  pk: `ORG#${id}`,
  sk: 'ORG',
  organization_id: id,
  plan: 'team',
  api_access: true,
  credits_balance: id * 10,
  created_at: '2026-01-01T00:00:00.000Z',
});

describe('listing organizations', () => {
  /** A table whose sequence gave out ids 1 to `lastId`, every organization written but those in `missing`. */
  function givenOrganizations(lastId: number | undefined, missing: readonly number[] = []) {
    dynamo
      .on(GetCommand, { Key: { pk: 'SEQUENCE', sk: 'ORGANIZATION' } })
      .resolves({ Item: lastId === undefined ? undefined : { last_value: lastId } });
    dynamo.on(BatchGetCommand).callsFake(({ RequestItems }) => {
      const keys = RequestItems.table.Keys as { pk: string }[];
      const ids = keys.map((key) => Number(key.pk.slice('ORG#'.length)));
      // Answered in no particular order, as DynamoDB does.
      return {
        Responses: {
          table: ids
            .filter((id) => !missing.includes(id))
            .reverse()
            .map(organizationItem),
        },
      };
    });
  }

  const batchGetIds = () =>
    dynamo
      .commandCalls(BatchGetCommand)
      .map((call) => (call.args[0].input.RequestItems!.table!.Keys as { pk: string }[]).map((key) => key.pk));

  it('reads the ids the sequence gave out, 100 to a BatchGetItem, and answers them in id order', async () => {
    givenOrganizations(250);
    const page = await listOrganizations({ pageSize: 1000 });
    expect(page.organizations.map((organization) => organization.organizationId)).toEqual(
      Array.from({ length: 250 }, (_, index) => index + 1),
    );
    expect(page.nextAfterId).toBeNull();
    expect(batchGetIds().map((keys) => [keys.length, keys[0], keys.at(-1)])).toEqual([
      [100, 'ORG#1', 'ORG#100'],
      [100, 'ORG#101', 'ORG#200'],
      [50, 'ORG#201', 'ORG#250'],
    ]);
    expect(
      dynamo.commandCalls(BatchGetCommand).every((call) => call.args[0].input.RequestItems!.table!.ConsistentRead),
    ).toBe(true);
  });

  it('reads one page after the given id and says where the next one starts', async () => {
    givenOrganizations(250);
    const page = await listOrganizations({ afterId: 100, pageSize: 20 });
    expect(page.organizations.map((organization) => organization.organizationId)).toEqual(
      Array.from({ length: 20 }, (_, index) => index + 101),
    );
    expect(page.nextAfterId).toBe(120);
    expect(page.organizations[0]).toMatchObject({ plan: 'team', apiAccess: true, creditsBalance: 1010 });
  });

  it('skips an id whose organization was never written', async () => {
    givenOrganizations(5, [3]);
    const page = await listOrganizations({ pageSize: 100 });
    expect(page.organizations.map((organization) => organization.organizationId)).toEqual([1, 2, 4, 5]);
  });

  it('reads nothing more when no organization was ever created, or the page starts past the last id', async () => {
    givenOrganizations(undefined);
    expect(await listOrganizations({ pageSize: 100 })).toEqual({ organizations: [], nextAfterId: null });
    givenOrganizations(5);
    expect(await listOrganizations({ afterId: 5, pageSize: 100 })).toEqual({ organizations: [], nextAfterId: null });
    expect(dynamo.commandCalls(BatchGetCommand)).toHaveLength(0);
  });
});

describe('listing API keys', () => {
  const keyItem = (prefix: string, createdAt: string) => ({
    key_prefix: prefix,
    organization_id: 7,
    environment: 'test',
    scopes: ['video:read'],
    status: 'active',
    created_at: createdAt,
  });

  it("queries the organization's keys in gsi1 without ever reading the secret's hash", async () => {
    dynamo.on(QueryCommand).resolves({ Items: [keyItem('aaaa', '2026-01-01T00:00:00.000Z')] });
    const page = await listApiKeys({ organizationId: 7, pageSize: 10 });
    expect(page).toEqual({
      apiKeys: [
        {
          keyPrefix: 'aaaa',
          organizationId: 7,
          environment: 'test',
          scopes: ['video:read'],
          status: 'active',
          createdAt: '2026-01-01T00:00:00.000Z',
          expiresAt: null,
          revokedAt: null,
        },
      ],
      nextAfterPrefix: null,
    });
    const input = dynamo.commandCalls(QueryCommand)[0]!.args[0].input;
    expect(input).toMatchObject({
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :partition',
      ExpressionAttributeValues: { ':partition': 'ORG#7#APIKEYS' },
      Limit: 11,
    });
    const read = input.ProjectionExpression!.split(', ').map((name) => input.ExpressionAttributeNames![name]);
    expect(read).toEqual(expect.arrayContaining(['key_prefix', 'status', 'scopes', 'key_expires_at', 'revoked_at']));
    expect(read).not.toContain('secret_hash');
  });

  it('says a next page exists only when a key beyond the page was found, naming the last key listed', async () => {
    dynamo.on(QueryCommand).resolves({
      Items: [keyItem('aaaa', '2026-01-01T00:00:00.000Z'), keyItem('bbbb', '2026-01-02T00:00:00.000Z')],
      LastEvaluatedKey: { pk: 'APIKEY#bbbb' },
    });
    const page = await listApiKeys({ organizationId: 7, pageSize: 1 });
    expect(page.apiKeys.map((apiKey) => apiKey.keyPrefix)).toEqual(['aaaa']);
    expect(page.nextAfterPrefix).toBe('aaaa');
  });

  it('goes on reading while DynamoDB stops short of the page', async () => {
    dynamo
      .on(QueryCommand)
      .resolvesOnce({ Items: [keyItem('aaaa', '2026-01-01T00:00:00.000Z')], LastEvaluatedKey: { pk: 'APIKEY#aaaa' } })
      .resolvesOnce({ Items: [keyItem('bbbb', '2026-01-02T00:00:00.000Z')] });
    const page = await listApiKeys({ organizationId: 7, pageSize: 5 });
    expect(page.apiKeys.map((apiKey) => apiKey.keyPrefix)).toEqual(['aaaa', 'bbbb']);
    expect(dynamo.commandCalls(QueryCommand)[1]!.args[0].input).toMatchObject({
      ExclusiveStartKey: { pk: 'APIKEY#aaaa' },
      Limit: 5,
    });
  });

  it("starts after the key with the given prefix, from that key's place in the index", async () => {
    dynamo.on(GetCommand).resolves({ Item: keyItem('aaaa', '2026-01-01T00:00:00.000Z') });
    dynamo.on(QueryCommand).resolves({ Items: [] });
    await listApiKeys({ organizationId: 7, afterPrefix: 'aaaa', pageSize: 5 });
    expect(dynamo.commandCalls(QueryCommand)[0]!.args[0].input.ExclusiveStartKey).toEqual({
      pk: 'APIKEY#aaaa',
      sk: 'APIKEY',
      gsi1pk: 'ORG#7#APIKEYS',
      gsi1sk: '2026-01-01T00:00:00.000Z',
    });
  });

  it("refuses to start after a key that is not the organization's", async () => {
    dynamo.on(GetCommand).resolves({ Item: { ...keyItem('aaaa', '2026-01-01T00:00:00.000Z'), organization_id: 8 } });
    await expect(listApiKeys({ organizationId: 7, afterPrefix: 'aaaa', pageSize: 5 })).rejects.toThrow(
      'Organization 7 has no API key with prefix aaaa',
    );
    expect(dynamo.commandCalls(QueryCommand)).toHaveLength(0);
  });
});
