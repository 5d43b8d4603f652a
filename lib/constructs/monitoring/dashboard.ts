import { Duration, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import { everyBusinessMetricSeries } from '../business-metrics';
import type { WorkflowStateMachine } from '../workflow';
import { PERIOD } from './alarm-options';
import { LATENCY_P99_THRESHOLD, SERVER_ERROR_RATE_THRESHOLD_PERCENT, type ApiAlarms } from './api-alarms';
import type { FunctionAlarms } from './function-alarms';
import type { QueueAndStreamAlarms } from './queue-and-stream-alarms';
import type { ReconcilerAlarms } from './reconciler-alarms';
import type { TableAlarms } from './table-alarms';
import { WEBHOOK_FAILURE_RATE_THRESHOLD_PERCENT, type WebhookAlarms } from './webhook-alarms';

export interface MonitoringDashboardProps {
  readonly api: ApiAlarms;
  readonly functions: FunctionAlarms;
  readonly table: TableAlarms;
  readonly workflows: readonly WorkflowStateMachine[];
  readonly queues: QueueAndStreamAlarms;
  readonly webhooks: WebhookAlarms;
  readonly reconciler: ReconcilerAlarms;
  /** In the order the status widget lists them. */
  readonly alarms: cloudwatch.IAlarm[];
}

/**
 * The dashboard, made in `scope`: a row each for the API, the functions and the table, one per
 * workflow, then the queues and streams, the business metrics, webhooks and the reconciler, and
 * the state of every alarm. Graphs show the very metrics their alarms read.
 */
export function createMonitoringDashboard(scope: Construct, props: MonitoringDashboardProps): cloudwatch.Dashboard {
  const stack = Stack.of(scope);
  return new cloudwatch.Dashboard(scope, 'Dashboard', {
    // Dashboards are global to the account: the region keeps each region's stage apart.
    dashboardName: `${stack.stackName}-${stack.region}`,
    defaultInterval: Duration.hours(3),
    widgets: [
      apiRow(props.api),
      functionsRow(props.functions),
      tableRow(props.table),
      ...props.workflows.map(workflowRow),
      queuesRow(props.queues),
      businessMetricsRow(scope),
      webhooksAndReconcilerRow(props.webhooks, props.reconciler),
      [new cloudwatch.AlarmStatusWidget({ title: 'Alarms', alarms: props.alarms, width: 24 })],
    ],
  });
}

function apiRow({ api, requests, serverErrors, serverErrorRate }: ApiAlarms): cloudwatch.IWidget[] {
  return [
    new cloudwatch.GraphWidget({
      title: 'API requests',
      left: [requests],
      right: [api.metricClientError({ period: PERIOD, statistic: 'Sum', label: '4xx' }), serverErrors],
      width: 8,
    }),
    new cloudwatch.GraphWidget({
      title: 'API latency (ms)',
      left: [
        api.metricLatency({ period: PERIOD, statistic: 'p50', label: 'latency p50' }),
        api.metricLatency({ period: PERIOD, statistic: 'p99', label: 'latency p99' }),
        api.metricIntegrationLatency({ period: PERIOD, statistic: 'p99', label: 'integration p99' }),
      ],
      leftAnnotations: [{ value: LATENCY_P99_THRESHOLD.toMilliseconds(), label: 'p99 alarm' }],
      width: 8,
    }),
    new cloudwatch.GraphWidget({
      title: 'API 5xx rate (%)',
      left: [serverErrorRate],
      leftAnnotations: [{ value: SERVER_ERROR_RATE_THRESHOLD_PERCENT, label: 'alarm' }],
      width: 8,
    }),
  ];
}

function functionsRow({ functions }: FunctionAlarms): cloudwatch.IWidget[] {
  const perFunction = (metric: (fn: lambda.IFunction) => cloudwatch.IMetric) => functions.map(([, fn]) => metric(fn));
  return [
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
  ];
}

function tableRow({ table, throttledRequests }: TableAlarms): cloudwatch.IWidget[] {
  return [
    new cloudwatch.GraphWidget({
      title: 'DynamoDB throttled events',
      left: [
        table.metric('ReadThrottleEvents', { period: PERIOD, statistic: 'Sum', label: 'read throttles' }),
        table.metric('WriteThrottleEvents', { period: PERIOD, statistic: 'Sum', label: 'write throttles' }),
        throttledRequests,
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
  ];
}

function workflowRow({ workflow, stateMachine }: WorkflowStateMachine): cloudwatch.IWidget[] {
  return [
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
  ];
}

function queuesRow(alarms: QueueAndStreamAlarms): cloudwatch.IWidget[] {
  const { queues, streamFailureQueues, endingDeadLetterQueues, streamTasks } = alarms;
  return [
    new cloudwatch.GraphWidget({
      title: 'Queues: messages',
      left: queues.flatMap(([name, { queue }]) => [
        queue.metricApproximateNumberOfMessagesVisible({
          period: PERIOD,
          statistic: 'Maximum',
          label: `${name} visible`,
        }),
        queue.metricApproximateNumberOfMessagesNotVisible({
          period: PERIOD,
          statistic: 'Maximum',
          label: `${name} in flight`,
        }),
      ]),
      right: [
        ...queues.map(([name, { deadLetterQueue }]) =>
          deadLetterQueue.metricApproximateNumberOfMessagesVisible({
            period: PERIOD,
            statistic: 'Maximum',
            label: `${name} dead letters`,
          }),
        ),
        ...streamFailureQueues.map(([name, failures]) =>
          failures.metricApproximateNumberOfMessagesVisible({
            period: PERIOD,
            statistic: 'Maximum',
            label: `${name} failed batches`,
          }),
        ),
        ...endingDeadLetterQueues.map(([name, deadLetters]) =>
          deadLetters.metricApproximateNumberOfMessagesVisible({
            period: PERIOD,
            statistic: 'Maximum',
            label: `${name} failed endings`,
          }),
        ),
      ],
      width: 12,
    }),
    new cloudwatch.GraphWidget({
      title: 'Queue oldest message (s) and stream iterator age (ms)',
      left: queues.map(([name, { queue }]) =>
        queue.metricApproximateAgeOfOldestMessage({
          period: PERIOD,
          statistic: 'Maximum',
          label: `${name} oldest message`,
        }),
      ),
      right: streamTasks.map(([name, fn]) => alarms.iteratorAge(fn, `${name} iterator age`)),
      width: 12,
    }),
  ];
}

function businessMetricsRow(scope: Construct): cloudwatch.IWidget[] {
  return [
    new cloudwatch.GraphWidget({
      title: 'Jobs ended, by type and outcome',
      left: [everyBusinessMetricSeries(scope, 'jobsEnded', { statistic: 'Sum', period: PERIOD })],
      width: 8,
    }),
    new cloudwatch.GraphWidget({
      title: 'Credits charged and refunded, by job type',
      left: [
        everyBusinessMetricSeries(scope, 'creditsCharged', { statistic: 'Sum', period: PERIOD, label: 'charged' }),
        everyBusinessMetricSeries(scope, 'creditsRefunded', { statistic: 'Sum', period: PERIOD, label: 'refunded' }),
      ],
      width: 8,
    }),
    new cloudwatch.GraphWidget({
      title: 'Provider latency (ms), by provider and call',
      left: ['p50', 'p99'].map((statistic) =>
        everyBusinessMetricSeries(scope, 'providerLatency', { statistic, period: PERIOD, label: statistic }),
      ),
      width: 8,
    }),
  ];
}

function webhooksAndReconcilerRow(webhooks: WebhookAlarms, reconciler: ReconcilerAlarms): cloudwatch.IWidget[] {
  return [
    new cloudwatch.GraphWidget({
      title: 'Webhook delivery attempts',
      left: [webhooks.succeededAttempts, webhooks.failedAttempts],
      right: [webhooks.failureRate],
      rightAnnotations: [{ value: WEBHOOK_FAILURE_RATE_THRESHOLD_PERCENT, label: 'alarm' }],
      width: 12,
    }),
    new cloudwatch.GraphWidget({
      title: 'Reconciler: jobs ended past their bound, and errors',
      left: reconciler.jobTypes.map((jobType) => reconciler.activeJobsPastBound(jobType, `${jobType} jobs past bound`)),
      right: [reconciler.reconcileErrors('errors (15 min)')],
      width: 12,
    }),
  ];
}
