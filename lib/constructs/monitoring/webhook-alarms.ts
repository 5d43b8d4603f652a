import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type { Construct } from 'constructs';
import type { DeliveryOutcomeDimension } from '#metrics';
import { businessMetric } from '../business-metrics';
import { PERIOD, onAbove } from './alarm-options';

/**
 * Share of webhook delivery attempts that failed, in percent. One customer's endpoint being down
 * fails its own deliveries and their retries; more than half of all attempts failing is rarely
 * one customer and usually the sender (egress, DNS, signing).
 */
export const WEBHOOK_FAILURE_RATE_THRESHOLD_PERCENT = 50;

/** Below this many attempts in a period the failure rate is one or two endpoints' retries. */
const MIN_WEBHOOK_ATTEMPTS_FOR_FAILURE_RATE = 20;

/** Fifteen minutes in a row: a receiver's short outage or a deployment of theirs passes sooner. */
const WEBHOOK_FAILURE_PERIODS_TO_ALARM = 3;

/** The alarm on webhook deliveries failing, from the business metric of their attempts, made in `scope`. */
export class WebhookAlarms {
  public readonly succeededAttempts: cloudwatch.Metric;
  public readonly failedAttempts: cloudwatch.Metric;
  public readonly failureRate: cloudwatch.MathExpression;
  public readonly failureRateAlarm: cloudwatch.Alarm;

  constructor(scope: Construct) {
    const webhookAttempts = (outcome: DeliveryOutcomeDimension) =>
      businessMetric(
        scope,
        'webhookDeliveryAttempts',
        { Outcome: outcome },
        { period: PERIOD, statistic: 'Sum', label: `${outcome} attempts` },
      );
    this.succeededAttempts = webhookAttempts('succeeded');
    this.failedAttempts = webhookAttempts('failed');
    // FILL: an outcome with no attempt in a period has no datapoint (every attempt failing leaves
    // no `succeeded` at all), and the rate must still be computed then.
    this.failureRate = new cloudwatch.MathExpression({
      expression: `IF(FILL(failed, 0) + FILL(succeeded, 0) >= ${MIN_WEBHOOK_ATTEMPTS_FOR_FAILURE_RATE}, 100 * FILL(failed, 0) / (FILL(failed, 0) + FILL(succeeded, 0)), 0)`,
      usingMetrics: { failed: this.failedAttempts, succeeded: this.succeededAttempts },
      period: PERIOD,
      label: 'failed attempts (%)',
    });
    this.failureRateAlarm = this.failureRate.createAlarm(
      scope,
      'WebhookFailureRateAlarm',
      onAbove(
        WEBHOOK_FAILURE_RATE_THRESHOLD_PERCENT,
        `More than ${WEBHOOK_FAILURE_RATE_THRESHOLD_PERCENT}% of webhook delivery attempts failed for ${WEBHOOK_FAILURE_PERIODS_TO_ALARM} periods of 5 minutes in a row (periods with at least ${MIN_WEBHOOK_ATTEMPTS_FOR_FAILURE_RATE} attempts).`,
        { evaluationPeriods: WEBHOOK_FAILURE_PERIODS_TO_ALARM, datapointsToAlarm: WEBHOOK_FAILURE_PERIODS_TO_ALARM },
      ),
    );
  }
}
