import { SQSClient } from '@aws-sdk/client-sqs';

/** One client per container. */
export const sqs = new SQSClient({});
