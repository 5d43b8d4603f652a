import { SFNClient } from '@aws-sdk/client-sfn';

/** One client per container. */
export const stepFunctions = new SFNClient({});
