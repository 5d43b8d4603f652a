import { Duration } from 'aws-cdk-lib';
import type * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type { Construct } from 'constructs';
import { PERIOD, onAbove } from './alarm-options';

/** Below this many requests in a period the 5xx rate is noise (one error in three requests is not an outage). */
const MIN_REQUESTS_FOR_ERROR_RATE = 20;

/** 5xx share of requests, in percent, that pages someone. */
export const SERVER_ERROR_RATE_THRESHOLD_PERCENT = 1;

/**
 * The API's p99 latency that means callers wait too long. Most routes answer from DynamoDB in a
 * fraction of a second and a cold start adds one or two; past five seconds something shared is
 * slow (the table, a dependency, cold starts from throttling), still well before API Gateway's
 * 30-second limit turns the slowest requests into 5xx.
 */
export const LATENCY_P99_THRESHOLD = Duration.seconds(5);

/**
 * Below this many requests in a period the p99 is the slowest request or two, which one large
 * upload confirmation (a copy of up to 2 GB inside S3) can make slow on its own.
 */
const MIN_REQUESTS_FOR_LATENCY_P99 = 100;

/** Fifteen minutes of slow periods in a row: a deployment's cold starts are over well before. */
const LATENCY_PERIODS_TO_ALARM = 3;

/** The alarms on what callers of the API see: its 5xx rate and its p99 latency, made in `scope`. */
export class ApiAlarms {
  public readonly api: apigwv2.HttpApi;
  public readonly requests: cloudwatch.Metric;
  public readonly serverErrors: cloudwatch.Metric;
  public readonly serverErrorRate: cloudwatch.MathExpression;
  public readonly serverErrorRateAlarm: cloudwatch.Alarm;
  public readonly latencyAlarm: cloudwatch.Alarm;

  constructor(scope: Construct, api: apigwv2.HttpApi) {
    this.api = api;
    this.requests = api.metricCount({ period: PERIOD, statistic: 'Sum', label: 'requests' });
    this.serverErrors = api.metricServerError({ period: PERIOD, statistic: 'Sum', label: '5xx' });
    this.serverErrorRate = new cloudwatch.MathExpression({
      expression: `IF(requests >= ${MIN_REQUESTS_FOR_ERROR_RATE}, 100 * errors / requests, 0)`,
      usingMetrics: { requests: this.requests, errors: this.serverErrors },
      period: PERIOD,
      label: '5xx rate (%)',
    });

    this.serverErrorRateAlarm = this.serverErrorRate.createAlarm(
      scope,
      'ServerErrorRateAlarm',
      onAbove(
        SERVER_ERROR_RATE_THRESHOLD_PERCENT,
        `More than ${SERVER_ERROR_RATE_THRESHOLD_PERCENT}% of API requests answered 5xx (periods with at least ${MIN_REQUESTS_FOR_ERROR_RATE} requests).`,
        { evaluationPeriods: 3, datapointsToAlarm: 2 },
      ),
    );

    const latencyP99 = api.metricLatency({ period: PERIOD, statistic: 'p99', label: 'latency p99' });
    this.latencyAlarm = new cloudwatch.MathExpression({
      expression: `IF(requests >= ${MIN_REQUESTS_FOR_LATENCY_P99}, latency, 0)`,
      usingMetrics: { requests: this.requests, latency: latencyP99 },
      period: PERIOD,
      label: 'latency p99 (ms)',
    }).createAlarm(
      scope,
      'LatencyAlarm',
      onAbove(
        LATENCY_P99_THRESHOLD.toMilliseconds(),
        `The API's p99 latency stayed above ${LATENCY_P99_THRESHOLD.toSeconds()} s for ${LATENCY_PERIODS_TO_ALARM} periods of 5 minutes in a row (periods with at least ${MIN_REQUESTS_FOR_LATENCY_P99} requests).`,
        { evaluationPeriods: LATENCY_PERIODS_TO_ALARM, datapointsToAlarm: LATENCY_PERIODS_TO_ALARM },
      ),
    );
  }
}
