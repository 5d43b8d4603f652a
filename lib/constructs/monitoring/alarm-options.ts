import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';

/** The period of every metric the alarms and the dashboard read. */
export const PERIOD = Duration.minutes(5);

/**
 * Any throttled invocation or request counts, but only in two periods out of three: EventBridge,
 * the queues' mappings, the workflows' retries and the SDK each retry a throttle, so one short
 * burst is absorbed; throttling that comes back means concurrency or table capacity is short (an
 * API function's throttle is also a 5xx the error-rate alarm sees).
 */
export const THROTTLE_EVALUATION = { evaluationPeriods: 3, datapointsToAlarm: 2 };

/** How many periods an alarm looks at, and how many of them must breach (all, unless told). */
type Evaluation = Pick<cloudwatch.CreateAlarmOptions, 'evaluationPeriods' | 'datapointsToAlarm'>;
const ONE_PERIOD: Evaluation = { evaluationPeriods: 1 };

/**
 * An alarm on any occurrence: a datapoint of 1 or more, in one period unless told. A period
 * without data is none, unless `treatMissingData` says otherwise.
 */
export function onAny(
  alarmDescription: string,
  options: Partial<Pick<cloudwatch.CreateAlarmOptions, keyof Evaluation | 'treatMissingData'>> = {},
): cloudwatch.CreateAlarmOptions {
  return {
    alarmDescription,
    threshold: 1,
    comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    ...ONE_PERIOD,
    treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    ...options,
  };
}

/** An alarm on a value above `threshold`, in one period unless told; a period without data is not. */
export function onAbove(
  threshold: number,
  alarmDescription: string,
  evaluation: Evaluation = ONE_PERIOD,
): cloudwatch.CreateAlarmOptions {
  return {
    alarmDescription,
    threshold,
    comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
    ...evaluation,
    treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
  };
}
