import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { Construct } from 'constructs';
import type { DataTable } from './data-table';
import { constructIdOf, type VideoHttpApi } from './http-api';

export interface MonitoringProps {
  readonly api: VideoHttpApi;
  readonly table: DataTable;
}

const PERIOD = Duration.minutes(5);

/** Below this many requests in a period the 5xx rate is noise (one error in three requests is not an outage). */
const MIN_REQUESTS_FOR_ERROR_RATE = 20;

/** 5xx share of requests, in percent, that pages someone. */
const SERVER_ERROR_RATE_THRESHOLD_PERCENT = 1;

/**
 * One dashboard for the request path (API → Lambda → DynamoDB) and the two alarms that mean
 * callers are getting failures: the API's 5xx rate and any unhandled Lambda error (the handlers
 * turn every expected failure into an envelope, so a Lambda Errors datapoint is a crash or a
 * timeout). The alarms have no actions yet: an on-call SNS topic is wired when one exists.
 */
export class Monitoring extends Construct {
  public readonly dashboard: cloudwatch.Dashboard;
  public readonly serverErrorRateAlarm: cloudwatch.Alarm;
  public readonly functionErrorAlarms: readonly cloudwatch.Alarm[];

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    const { api } = props.api;
    const table = props.table.table;
    const functions = [...props.api.functions.entries()];

    const requests = api.metricCount({ period: PERIOD, statistic: 'Sum', label: 'requests' });
    const clientErrors = api.metricClientError({ period: PERIOD, statistic: 'Sum', label: '4xx' });
    const serverErrors = api.metricServerError({ period: PERIOD, statistic: 'Sum', label: '5xx' });
    const serverErrorRate = new cloudwatch.MathExpression({
      expression: `IF(requests >= ${MIN_REQUESTS_FOR_ERROR_RATE}, 100 * errors / requests, 0)`,
      usingMetrics: { requests, errors: serverErrors },
      period: PERIOD,
      label: '5xx rate (%)',
    });

    this.serverErrorRateAlarm = serverErrorRate.createAlarm(this, 'ServerErrorRateAlarm', {
      alarmDescription: `More than ${SERVER_ERROR_RATE_THRESHOLD_PERCENT}% of API requests answered 5xx (periods with at least ${MIN_REQUESTS_FOR_ERROR_RATE} requests).`,
      threshold: SERVER_ERROR_RATE_THRESHOLD_PERCENT,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });

    // One alarm per function: a metric-math alarm may combine at most 10 metrics, and the route
    // table grows past that.
    this.functionErrorAlarms = functions.map(([name, fn]) =>
      fn.metricErrors({ period: PERIOD, statistic: 'Sum' }).createAlarm(this, `${constructIdOf(name)}ErrorsAlarm`, {
        alarmDescription: `Unhandled errors or timeouts in the ${name} function.`,
        threshold: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
    );

    const perFunction = (metric: (fn: (typeof functions)[number][1]) => cloudwatch.IMetric) =>
      functions.map(([, fn]) => metric(fn));

    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      defaultInterval: Duration.hours(3),
      widgets: [
        [
          new cloudwatch.GraphWidget({ title: 'API requests', left: [requests], right: [clientErrors, serverErrors], width: 8 }),
          new cloudwatch.GraphWidget({
            title: 'API latency (ms)',
            left: [
              api.metricLatency({ period: PERIOD, statistic: 'p50', label: 'latency p50' }),
              api.metricLatency({ period: PERIOD, statistic: 'p99', label: 'latency p99' }),
              api.metricIntegrationLatency({ period: PERIOD, statistic: 'p99', label: 'integration p99' }),
            ],
            width: 8,
          }),
          new cloudwatch.GraphWidget({
            title: 'API 5xx rate (%)',
            left: [serverErrorRate],
            leftAnnotations: [{ value: SERVER_ERROR_RATE_THRESHOLD_PERCENT, label: 'alarm' }],
            width: 8,
          }),
        ],
        [
          new cloudwatch.GraphWidget({
            title: 'Lambda errors',
            left: perFunction((fn) => fn.metricErrors({ period: PERIOD, statistic: 'Sum' })),
            width: 8,
          }),
          new cloudwatch.GraphWidget({
            title: 'Lambda throttles',
            left: perFunction((fn) => fn.metricThrottles({ period: PERIOD, statistic: 'Sum' })),
            width: 8,
          }),
          new cloudwatch.GraphWidget({
            title: 'Lambda duration p99 (ms)',
            left: perFunction((fn) => fn.metricDuration({ period: PERIOD, statistic: 'p99' })),
            width: 8,
          }),
        ],
        [
          new cloudwatch.GraphWidget({
            title: 'DynamoDB throttled events',
            left: [
              table.metric('ReadThrottleEvents', { period: PERIOD, statistic: 'Sum', label: 'read throttles' }),
              table.metric('WriteThrottleEvents', { period: PERIOD, statistic: 'Sum', label: 'write throttles' }),
            ],
            width: 12,
          }),
          new cloudwatch.GraphWidget({
            title: 'DynamoDB consumed capacity',
            left: [
              table.metricConsumedReadCapacityUnits({ period: PERIOD, statistic: 'Sum', label: 'RCU' }),
              table.metricConsumedWriteCapacityUnits({ period: PERIOD, statistic: 'Sum', label: 'WCU' }),
            ],
            width: 12,
          }),
        ],
        [
          new cloudwatch.AlarmStatusWidget({
            title: 'Alarms',
            alarms: [this.serverErrorRateAlarm, ...this.functionErrorAlarms],
            width: 24,
          }),
        ],
      ],
    });
  }
}
