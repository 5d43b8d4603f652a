import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { relayStreamRecords } from '#domain/webhooks/relay';
import { taskHandler } from '#platform/invocation';

export const handler = taskHandler('relay-events', (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> =>
  relayStreamRecords(event.Records),
);
