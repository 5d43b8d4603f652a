import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { requiredSetting, TABLE_NAME } from '#platform/settings';

let client: DynamoDBDocumentClient | undefined;

/** One client per container, made on first use: connection reuse matters more than anything else for latency. */
export function dynamo(): DynamoDBDocumentClient {
  client ??= DynamoDBDocumentClient.from(new DynamoDBClient({}), { marshallOptions: { removeUndefinedValues: true } });
  return client;
}

export function tableName(): string {
  return requiredSetting(TABLE_NAME);
}
