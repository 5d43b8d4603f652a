import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { relayStreamRecords } from '#domain/webhooks/relay';

export const handler = (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> =>
  relayStreamRecords(event.Records);
