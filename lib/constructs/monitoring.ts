import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { DataTable } from './data-table';
import { constructIdOf } from './construct-ids';
import type { VideoHttpApi } from './http-api';
import type { ServiceQueues } from './queues';
import type { TaskFunctions } from './tasks';
import type { WorkflowStateMachine } from './workflow';

export interface MonitoringProps {
  readonly api: VideoHttpApi;
  readonly table: DataTable;
  readonly workflows: readonly WorkflowStateMachine[];
  readonly tasks: TaskFunctions;
  readonly queues: ServiceQueues;
}

const PERIOD = Duration.minutes(5);

/** Below this many requests in a period the 5xx rate is noise (one error in three requests is not an outage). */
const MIN_REQUESTS_FOR_ERROR_RATE = 20;

/** 5xx share of requests, in percent, that pages someone. */
const SERVER_ERROR_RATE_THRESHOLD_PERCENT = 1;

/**
 * Age of a queue's oldest message that means its consumer is not keeping up. Above SQS's longest
 * delivery delay (15 minutes), which a message sent with a delay may spend in the queue before it
 * can even be received.
 */
const OLDEST_MESSAGE_AGE_THRESHOLD = Duration.minutes(20);

/**
 * Age of the newest record a table-stream task has read that means it lags behind the table:
 * normally seconds; the stream keeps records 24 hours, and the sweeper relays what is overdue.
 */
const ITERATOR_AGE_THRESHOLD = Duration.minutes(5);

/**
 * One dashboard for the request path (API → Lambda → DynamoDB) and the workflows, and the alarms
 * that mean callers are getting failures: the API's 5xx rate, any unhandled Lambda error (the
 * handlers turn every expected failure into an envelope, and the workflows catch worker errors
 * into FinishCrashed, so a Lambda Errors datapoint is a crash or a timeout) and any failed
 * workflow execution; and those of the asynchronous paths: any message in a dead-letter queue (a
 * queue's, or the batches a table-stream task gave up on), a queue whose oldest message waits too
 * long, a table-stream task lagging behind the stream. The alarms have no actions yet: an on-call
 * SNS topic is wired when one exists.
 */
export class Monitoring extends Construct {
  public readonly dashboard: cloudwatch.Dashboard;
  public readonly serverErrorRateAlarm: cloudwatch.Alarm;
  public readonly functionErrorAlarms: readonly cloudwatch.Alarm[];
  public readonly executionsFailedAlarms: readonly cloudwatch.Alarm[];
  /** Any message in a queue's dead-letter queue or a table-stream task's failures queue. */
  public readonly deadLetterAlarms: readonly cloudwatch.Alarm[];
  /** Each queue's oldest message waiting too long. */
  public readonly oldestMessageAgeAlarms: readonly cloudwatch.Alarm[];
  /** Each table-stream task lagging behind the stream. */
  public readonly iteratorAgeAlarms: readonly cloudwatch.Alarm[];

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

    // A dead-letter queue's first message: a poison message or a batch given up on, for a person.
    const deadLetterAlarm = (id: string, queue: sqs.IQueue, description: string) =>
      queue.metricApproximateNumberOfMessagesVisible({ period: PERIOD, statistic: 'Maximum' }).createAlarm(this, id, {
        alarmDescription: description,
        threshold: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });
    const queues = [...props.queues.queues];
    const streamFailureQueues = [...props.tasks.streamFailureQueues];
    this.deadLetterAlarms = [
      ...queues.map(([name, { deadLetterQueue }]) =>
        deadLetterAlarm(
          `${constructIdOf(name)}DeadLetterAlarm`,
          deadLetterQueue,
          `Messages of the ${name} queue failed every receive and moved to its dead-letter queue: look at them, then redrive or delete them.`,
        ),
      ),
      ...streamFailureQueues.map(([name, failures]) =>
        deadLetterAlarm(
          `${constructIdOf(name)}StreamFailuresAlarm`,
          failures,
          `The ${name} task gave up on batches of the table's stream (their descriptions are in its failures queue); the sweeper relays their events late.`,
        ),
      ),
    ];

    this.oldestMessageAgeAlarms = queues.map(([name, { queue }]) =>
      queue
        .metricApproximateAgeOfOldestMessage({ period: PERIOD, statistic: 'Maximum' })
        .createAlarm(this, `${constructIdOf(name)}OldestMessageAgeAlarm`, {
          alarmDescription: `The oldest message of the ${name} queue has waited more than ${OLDEST_MESSAGE_AGE_THRESHOLD.toMinutes()} minutes: its consumer is not keeping up (throttled, failing or disabled).`,
          threshold: OLDEST_MESSAGE_AGE_THRESHOLD.toSeconds(),
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
          evaluationPeriods: 1,
          treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        }),
    );

    const streamTasks = streamFailureQueues.map(([name]) => [name, props.tasks.functions.get(name)!] as const);
    // The alarm's metric has no label: with one, the alarm would be written as metric math.
    const iteratorAge = (fn: lambda.IFunction, label?: string) =>
      fn.metric('IteratorAge', { period: PERIOD, statistic: 'Maximum', label });
    this.iteratorAgeAlarms = streamTasks.map(([name, fn]) =>
      iteratorAge(fn).createAlarm(this, `${constructIdOf(name)}IteratorAgeAlarm`, {
        alarmDescription: `The ${name} task lags more than ${ITERATOR_AGE_THRESHOLD.toMinutes()} minutes behind the table's stream.`,
        threshold: ITERATOR_AGE_THRESHOLD.toMilliseconds(),
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
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
            right: streamTasks.map(([name, fn]) => iteratorAge(fn, `${name} iterator age`)),
            width: 12,
          }),
        ],
        [
          new cloudwatch.AlarmStatusWidget({
            title: 'Alarms',
            alarms: [
              this.serverErrorRateAlarm,
              ...this.functionErrorAlarms,
              ...this.executionsFailedAlarms,
              ...this.deadLetterAlarms,
              ...this.oldestMessageAgeAlarms,
              ...this.iteratorAgeAlarms,
            ],
            width: 24,
          }),
        ],
      ],
    });
  }
}
