import { KMSClient } from '@aws-sdk/client-kms';

/** One client per container. */
export const kms = new KMSClient({});
