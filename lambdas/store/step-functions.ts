import { SFNClient } from '@aws-sdk/client-sfn';

/** One client per container. */
export const stepFunctions = new SFNClient({});

export function videoJobStateMachineArn(): string {
  const arn = process.env.VIDEO_JOB_STATE_MACHINE_ARN;
  if (!arn) throw new Error('VIDEO_JOB_STATE_MACHINE_ARN is not set');
  return arn;
}
