import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { deliverQueuedMessages } from '#domain/webhooks/delivery';
import { taskHandler } from '#platform/invocation';

export const handler = taskHandler('deliver-webhooks', (event: SQSEvent): Promise<SQSBatchResponse> =>
  deliverQueuedMessages(event.Records),
);
