import {
  BatchGetItemCommand,
  DynamoDBClient,
  GetItemCommand,
  UpdateItemCommand,
  type AttributeValue,
} from '@aws-sdk/client-dynamodb';

const MINUTE_MS = 60_000;

/** A table key as the low-level client takes it. */
const itemKey = ({ pk, sk }: { pk: string; sk: string }): Record<string, AttributeValue> => ({
  pk: { S: pk },
  sk: { S: sk },
});

/**
 * What one authenticated request can at best cost against this stack's DynamoDB, and what the calls
 * GET /me makes cost on their own: DynamoDB calls alone, sent straight to DynamoDB Local from this
 * process through a client of their own, which the call counter does not instrument. Each request
 * answers its milliseconds.
 *
 * The counters are the floor's own items, keyed like the rate-limit windows (rate-limits.ts): the
 * caller's windows would count the floor's requests in its usage.
 */
export async function floorRequests({ key, organizationId }: { key: string; organizationId: number }) {
  const [{ apiKeyKey, parseApiKey }, { organizationKey }, { tableName }] = await Promise.all([
    import('#domain/access/api-keys'),
    import('#domain/access/organizations'),
    import('#platform/clients/dynamodb'),
  ]);
  const prefix = parseApiKey(key)?.prefix;
  if (!prefix) throw new Error('The floor needs a well-formed API key');
  // Made now, as the handlers' client is on first use: it reads the emulator's endpoint from the environment.
  const client = new DynamoDBClient({});
  const TableName = tableName();
  const dayWindow = () => itemKey({ pk: 'RATE#ORG#floor', sk: `DAY#${new Date().toISOString().slice(0, 10)}` });
  const minute = () => Math.floor(Date.now() / MINUTE_MS);
  const readKey = () =>
    client.send(new GetItemCommand({ TableName, Key: itemKey(apiKeyKey(prefix)), ConsistentRead: true }));
  /**
   * A count shaped like countRequest's usual one: the same ADDs on a day window, conditional on the
   * key's minute. The floor's item never holds a minute, so the condition always holds and no count
   * is tried twice.
   */
  const count = () =>
    client.send(
      new UpdateItemCommand({
        TableName,
        Key: dayWindow(),
        UpdateExpression:
          'ADD request_count :one, #key_day :one, #minute_count :one SET expires_at = if_not_exists(expires_at, :expires)',
        ConditionExpression: 'attribute_not_exists(#minute) OR #minute = :minute',
        ExpressionAttributeNames: {
          '#key_day': `key_${prefix}`,
          '#minute': `minute_${prefix}`,
          '#minute_count': `minute_count_${prefix}`,
        },
        ExpressionAttributeValues: {
          ':one': { N: '1' },
          ':minute': { N: String(minute()) },
          ':expires': { N: String(Math.floor(Date.now() / 1000) + 120) },
        },
        ReturnValues: 'UPDATED_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
  const timed = (request: () => Promise<unknown>) => async () => {
    const startedAt = performance.now();
    await request();
    return performance.now() - startedAt;
  };
  return {
    /** The floor: the caller's key read strongly consistently, then the request counted (the count returned). */
    readThenCount: timed(async () => {
      await readKey();
      await client.send(
        new UpdateItemCommand({
          TableName,
          Key: dayWindow(),
          UpdateExpression: 'ADD request_count :one',
          ExpressionAttributeValues: { ':one': { N: '1' } },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
    }),
    /** GET /me's two calls: the key and its organization in one BatchGetItem, then the request's count. */
    authenticationCalls: timed(async () => {
      await client.send(
        new BatchGetItemCommand({
          RequestItems: {
            [TableName]: {
              Keys: [itemKey(apiKeyKey(prefix)), itemKey(organizationKey(organizationId))],
              ConsistentRead: true,
            },
          },
        }),
      );
      await count();
    }),
    destroy: () => client.destroy(),
  };
}
