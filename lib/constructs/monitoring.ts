import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import type { DataTable } from './data-table';
import { constructIdOf } from './construct-ids';
import type { VideoHttpApi } from './http-api';
import type { TaskFunctions } from './tasks';
import type { WorkflowStateMachine } from './workflow';

export interface MonitoringProps {
  readonly api: VideoHttpApi;
  readonly table: DataTable;
  readonly workflows: readonly WorkflowStateMachine[];
  readonly tasks: TaskFunctions;
}

const PERIOD = Duration.minutes(5);

/** Below this many requests in a period the 5xx rate is noise (one error in three requests is not an outage). */
const MIN_REQUESTS_FOR_ERROR_RATE = 20;

/** 5xx share of requests, in percent, that pages someone. */
const SERVER_ERROR_RATE_THRESHOLD_PERCENT = 1;

/**
 * One dashboard for the request path (API → Lambda → DynamoDB) and the workflows, and the alarms
 * that mean callers are getting failures: the API's 5xx rate, any unhandled Lambda error (the
 * handlers turn every expected failure into an envelope, and the workflows catch worker errors
 * into FinishCrashed, so a Lambda Errors datapoint is a crash or a timeout) and any failed
 * workflow execution. The alarms have no actions yet: an on-call SNS topic is wired when one exists.
 */
export class Monitoring extends Construct {
  public readonly dashboard: cloudwatch.Dashboard;
  public readonly serverErrorRateAlarm: cloudwatch.Alarm;
  public readonly functionErrorAlarms: readonly cloudwatch.Alarm[];
  public readonly executionsFailedAlarms: readonly cloudwatch.Alarm[];

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    const { api } = props.api;
    const table = props.table.table;
    // API functions by operationId, workers by workflow and substitution (`VideoJobStartRenderFunction`),
    // then tasks (`ReconcileJobsTask`).
    const functions: [string, lambda.IFunction][] = [
      ...props.api.functions.entries(),
      ...props.workflows.flatMap(({ workflow, workers }) =>
        [...workers].map(([substitution, fn]): [string, lambda.IFunction] => [
          `${constructIdOf(workflow.name)}${substitution}`,
          fn,
        ]),
      ),
      ...[...props.tasks.functions].map(([name, fn]): [string, lambda.IFunction] => [`${constructIdOf(name)}Task`, fn]),
    ];

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

    // Every task catches into FinishCrashed, which ends and refunds the job, so an execution fails
    // only when FinishCrashed itself fails or a Wait/Choice state hits a runtime error (a missing
    // field), which no Catch covers. Either way the job may be left processing with its credits
    // held, so one failure is worth a look.
    this.executionsFailedAlarms = props.workflows.map(({ workflow, stateMachine }) =>
      stateMachine
        .metricFailed({ period: PERIOD, statistic: 'Sum' })
        .createAlarm(this, `${constructIdOf(workflow.name)}ExecutionsFailedAlarm`, {
          alarmDescription: `Executions of the ${workflow.name} workflow failed: its job may be stuck without a refund.`,
          threshold: 1,
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          evaluationPeriods: 1,
          treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        }),
    );

    const perFunction = (metric: (fn: lambda.IFunction) => cloudwatch.IMetric) => functions.map(([, fn]) => metric(fn));

    const workflowRows = props.workflows.map(({ workflow, stateMachine }) => [
      new cloudwatch.GraphWidget({
        title: `Workflow ${workflow.name}: executions`,
        left: [
          stateMachine.metricStarted({ period: PERIOD, statistic: 'Sum', label: 'started' }),
          stateMachine.metricFailed({ period: PERIOD, statistic: 'Sum', label: 'failed' }),
          stateMachine.metricTimedOut({ period: PERIOD, statistic: 'Sum', label: 'timed out' }),
        ],
        width: 12,
      }),
      new cloudwatch.GraphWidget({
        title: `Workflow ${workflow.name}: duration (ms)`,
        left: [
          stateMachine.metric('ExecutionTime', { period: PERIOD, statistic: 'p50', label: 'p50' }),
          stateMachine.metric('ExecutionTime', { period: PERIOD, statistic: 'p99', label: 'p99' }),
        ],
        width: 12,
      }),
    ]);

    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      defaultInterval: Duration.hours(3),
      widgets: [
        [
          new cloudwatch.GraphWidget({
            title: 'API requests',
            left: [requests],
            right: [clientErrors, serverErrors],
            width: 8,
          }),
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
        ...workflowRows,
        [
          new cloudwatch.AlarmStatusWidget({
            title: 'Alarms',
            alarms: [this.serverErrorRateAlarm, ...this.functionErrorAlarms, ...this.executionsFailedAlarms],
            width: 24,
          }),
        ],
      ],
    });
  }
}
