import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { deliverQueuedMessages } from '#domain/webhooks/delivery';

export const handler = (event: SQSEvent): Promise<SQSBatchResponse> => deliverQueuedMessages(event.Records);
