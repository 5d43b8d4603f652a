import { Duration, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { RECONCILE_SCHEDULE } from '#domain/jobs/reconcile-schedule';
import type { DeliveryOutcomeDimension } from '#metrics';
import { businessMetric, everyBusinessMetricSeries } from './business-metrics';
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
 * The API's p99 latency that means callers wait too long. Most routes answer from DynamoDB in a
 * fraction of a second and a cold start adds one or two; past five seconds something shared is
 * slow (the table, a dependency, cold starts from throttling), still well before API Gateway's
 * 30-second limit turns the slowest requests into 5xx.
 */
const LATENCY_P99_THRESHOLD = Duration.seconds(5);

/**
 * Below this many requests in a period the p99 is the slowest request or two, which one large
 * upload confirmation (a copy of up to 2 GB inside S3) can make slow on its own.
 */
const MIN_REQUESTS_FOR_LATENCY_P99 = 100;

/** Fifteen minutes of slow periods in a row: a deployment's cold starts are over well before. */
const LATENCY_PERIODS_TO_ALARM = 3;

/**
 * Any throttled invocation or request counts, but only in two periods out of three: EventBridge,
 * the queues' mappings, the workflows' retries and the SDK each retry a throttle, so one short
 * burst is absorbed; throttling that comes back means concurrency or table capacity is short (an
 * API function's throttle is also a 5xx the error-rate alarm sees).
 */
const THROTTLE_EVALUATION = { evaluationPeriods: 3, datapointsToAlarm: 2 };

/** CloudWatch's limit on the metrics one metric-math alarm may combine. */
const MAX_METRICS_PER_ALARM = 10;

/**
 * The table operations the functions make (items, queries, batches, transactions) and the relay's
 * stream reads. DynamoDB publishes ThrottledRequests per operation only, so the alarm sums these.
 */
const TABLE_OPERATIONS = [
  dynamodb.Operation.GET_ITEM,
  dynamodb.Operation.BATCH_GET_ITEM,
  dynamodb.Operation.QUERY,
  dynamodb.Operation.PUT_ITEM,
  dynamodb.Operation.UPDATE_ITEM,
  dynamodb.Operation.DELETE_ITEM,
  dynamodb.Operation.BATCH_WRITE_ITEM,
  dynamodb.Operation.TRANSACT_WRITE_ITEMS,
  dynamodb.Operation.GET_RECORDS,
];

/**
 * Share of webhook delivery attempts that failed, in percent. One customer's endpoint being down
 * fails its own deliveries and their retries; more than half of all attempts failing is rarely
 * one customer and usually the sender (egress, DNS, signing).
 */
const WEBHOOK_FAILURE_RATE_THRESHOLD_PERCENT = 50;

/** Below this many attempts in a period the failure rate is one or two endpoints' retries. */
const MIN_WEBHOOK_ATTEMPTS_FOR_FAILURE_RATE = 20;

/** Fifteen minutes in a row: a receiver's short outage or a deployment of theirs passes sooner. */
const WEBHOOK_FAILURE_PERIODS_TO_ALARM = 3;

/**
 * The reconciler publishes its counts on every run, so a period without them means it did not
 * run. Three schedule periods long, so that a run landing late or early never leaves one empty.
 */
const RECONCILER_PERIOD = Duration.minutes(3 * RECONCILE_SCHEDULE.everyMinutes);

/** How many periods an alarm looks at, and how many of them must breach (all, unless told). */
type Evaluation = Pick<cloudwatch.CreateAlarmOptions, 'evaluationPeriods' | 'datapointsToAlarm'>;
const ONE_PERIOD: Evaluation = { evaluationPeriods: 1 };

/**
 * An alarm on any occurrence: a datapoint of 1 or more, in one period unless told. A period
 * without data is none, unless `treatMissingData` says otherwise.
 */
function onAny(
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
function onAbove(
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

/**
 * One dashboard for the request path (API → Lambda → DynamoDB), the workflows and the business
 * metrics the functions publish (lambdas/metrics.ts), and the alarms that mean callers are getting
 * failures or waiting: the API's 5xx rate and p99 latency, any unhandled Lambda error (the
 * handlers turn every expected failure into an envelope, and the workflows catch worker errors
 * into FinishCrashed, so a Lambda Errors datapoint is a crash or a timeout), throttling of the
 * functions or the table, and any failed or timed-out workflow execution; those of the
 * asynchronous paths: any message in a dead-letter queue (a queue's, or the batches a table-stream
 * task gave up on), a queue whose oldest message waits too long, a table-stream task lagging
 * behind the stream, webhook deliveries failing; and the reconciler's: a job past its bound, an
 * error, or no run at all. Where the alarms notify is the stack's (AlarmTopic).
 */
export class Monitoring extends Construct {
  public readonly dashboard: cloudwatch.Dashboard;
  public readonly serverErrorRateAlarm: cloudwatch.Alarm;
  public readonly latencyAlarm: cloudwatch.Alarm;
  public readonly functionErrorAlarms: readonly cloudwatch.Alarm[];
  /** The functions' throttles, summed ten functions an alarm (CloudWatch's limit for metric math). */
  public readonly functionThrottlesAlarms: readonly cloudwatch.Alarm[];
  public readonly tableThrottlesAlarm: cloudwatch.Alarm;
  public readonly executionsFailedAlarms: readonly cloudwatch.Alarm[];
  public readonly executionsTimedOutAlarms: readonly cloudwatch.Alarm[];
  /** Any message in a queue's dead-letter queue or a table-stream task's failures queue. */
  public readonly deadLetterAlarms: readonly cloudwatch.Alarm[];
  /** Each queue's oldest message waiting too long. */
  public readonly oldestMessageAgeAlarms: readonly cloudwatch.Alarm[];
  /** Each table-stream task lagging behind the stream. */
  public readonly iteratorAgeAlarms: readonly cloudwatch.Alarm[];
  public readonly webhookFailureRateAlarm: cloudwatch.Alarm;
  /** One per job type. */
  public readonly activeJobsPastBoundAlarms: readonly cloudwatch.Alarm[];
  /** Errors of a reconciler run, or no run at all. */
  public readonly reconcileErrorsAlarm: cloudwatch.Alarm;

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

    this.serverErrorRateAlarm = serverErrorRate.createAlarm(
      this,
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
      usingMetrics: { requests, latency: latencyP99 },
      period: PERIOD,
      label: 'latency p99 (ms)',
    }).createAlarm(
      this,
      'LatencyAlarm',
      onAbove(
        LATENCY_P99_THRESHOLD.toMilliseconds(),
        `The API's p99 latency stayed above ${LATENCY_P99_THRESHOLD.toSeconds()} s for ${LATENCY_PERIODS_TO_ALARM} periods of 5 minutes in a row (periods with at least ${MIN_REQUESTS_FOR_LATENCY_P99} requests).`,
        { evaluationPeriods: LATENCY_PERIODS_TO_ALARM, datapointsToAlarm: LATENCY_PERIODS_TO_ALARM },
      ),
    );

    // One alarm per function: a metric-math alarm may combine at most 10 metrics, and the route
    // table grows past that.
    this.functionErrorAlarms = functions.map(([name, fn]) =>
      fn
        .metricErrors({ period: PERIOD, statistic: 'Sum' })
        .createAlarm(
          this,
          `${constructIdOf(name)}ErrorsAlarm`,
          onAny(`Unhandled errors or timeouts in the ${name} function.`),
        ),
    );

    // Throttles rather than errors can be summed: nobody needs to know at once which function,
    // the dashboard's graph shows it. FILL: a function not invoked in a period has no datapoint,
    // and a sum with a missing term would be missing too.
    const functionGroups = chunks(functions, MAX_METRICS_PER_ALARM);
    this.functionThrottlesAlarms = functionGroups.map((group, index) =>
      new cloudwatch.MathExpression({
        expression: 'SUM(FILL(METRICS(), 0))',
        usingMetrics: Object.fromEntries(
          group.map(([, fn], position) => [`f${position}`, fn.metricThrottles({ period: PERIOD, statistic: 'Sum' })]),
        ),
        period: PERIOD,
        label: 'throttled invocations',
      }).createAlarm(
        this,
        `FunctionThrottles${index + 1}Alarm`,
        onAny(
          `Lambda throttled invocations in ${THROTTLE_EVALUATION.datapointsToAlarm} of ${THROTTLE_EVALUATION.evaluationPeriods} periods of 5 minutes, of one of: ${group.map(([name]) => name).join(', ')}.`,
          THROTTLE_EVALUATION,
        ),
      ),
    );

    const tableThrottledRequests = new cloudwatch.MathExpression({
      expression: 'SUM(FILL(METRICS(), 0))',
      usingMetrics: Object.fromEntries(
        TABLE_OPERATIONS.map((operation) => [
          operation.toLowerCase(),
          table.metric('ThrottledRequests', {
            period: PERIOD,
            statistic: 'Sum',
            dimensionsMap: { TableName: table.tableName, Operation: operation },
          }),
        ]),
      ),
      period: PERIOD,
      label: 'throttled requests',
    });
    this.tableThrottlesAlarm = tableThrottledRequests.createAlarm(
      this,
      'TableThrottlesAlarm',
      onAny(
        `DynamoDB throttled requests to the table in ${THROTTLE_EVALUATION.datapointsToAlarm} of ${THROTTLE_EVALUATION.evaluationPeriods} periods of 5 minutes: the SDK retries each a few times, then the call fails.`,
        THROTTLE_EVALUATION,
      ),
    );

    // Every task catches into FinishCrashed, which ends and refunds the job, so an execution fails
    // only when FinishCrashed itself fails or a Wait/Choice state hits a runtime error (a missing
    // field), which no Catch covers. Either way the job may be left processing with its credits
    // held, so one failure is worth a look.
    this.executionsFailedAlarms = props.workflows.map(({ workflow, stateMachine }) =>
      stateMachine
        .metricFailed({ period: PERIOD, statistic: 'Sum' })
        .createAlarm(
          this,
          `${constructIdOf(workflow.name)}ExecutionsFailedAlarm`,
          onAny(`Executions of the ${workflow.name} workflow failed: its job may be stuck without a refund.`),
        ),
    );

    // Any execution reaching its ASL file's TimeoutSeconds: each workflow's inner deadlines (the
    // render's 30 minutes, the transcription's hour) should end a job well before, so a time-out
    // means a step hung; the execution-ended task expires and refunds the job, but the cause needs a look.
    this.executionsTimedOutAlarms = props.workflows.map(({ workflow, stateMachine }) =>
      stateMachine
        .metricTimedOut({ period: PERIOD, statistic: 'Sum' })
        .createAlarm(
          this,
          `${constructIdOf(workflow.name)}ExecutionsTimedOutAlarm`,
          onAny(
            `Executions of the ${workflow.name} workflow reached its time-out (${workflow.executionTimeoutSeconds} s): a step hung past the workflow's own deadlines; the job was expired and refunded.`,
          ),
        ),
    );

    // A dead-letter queue's first message: a poison message or a batch given up on, for a person.
    const deadLetterAlarm = (id: string, queue: sqs.IQueue, description: string) =>
      queue
        .metricApproximateNumberOfMessagesVisible({ period: PERIOD, statistic: 'Maximum' })
        .createAlarm(this, id, onAny(description));
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
        .createAlarm(
          this,
          `${constructIdOf(name)}OldestMessageAgeAlarm`,
          onAbove(
            OLDEST_MESSAGE_AGE_THRESHOLD.toSeconds(),
            `The oldest message of the ${name} queue has waited more than ${OLDEST_MESSAGE_AGE_THRESHOLD.toMinutes()} minutes: its consumer is not keeping up (throttled, failing or disabled).`,
          ),
        ),
    );

    const streamTasks = streamFailureQueues.map(([name]) => [name, props.tasks.functions.get(name)!] as const);
    // The alarm's metric has no label: with one, the alarm would be written as metric math.
    const iteratorAge = (fn: lambda.IFunction, label?: string) =>
      fn.metric('IteratorAge', { period: PERIOD, statistic: 'Maximum', label });
    this.iteratorAgeAlarms = streamTasks.map(([name, fn]) =>
      iteratorAge(fn).createAlarm(
        this,
        `${constructIdOf(name)}IteratorAgeAlarm`,
        onAbove(
          ITERATOR_AGE_THRESHOLD.toMilliseconds(),
          `The ${name} task lags more than ${ITERATOR_AGE_THRESHOLD.toMinutes()} minutes behind the table's stream.`,
        ),
      ),
    );

    const webhookAttempts = (outcome: DeliveryOutcomeDimension) =>
      businessMetric(
        this,
        'webhookDeliveryAttempts',
        { Outcome: outcome },
        { period: PERIOD, statistic: 'Sum', label: `${outcome} attempts` },
      );
    const succeededAttempts = webhookAttempts('succeeded');
    const failedAttempts = webhookAttempts('failed');
    // FILL: an outcome with no attempt in a period has no datapoint (every attempt failing leaves
    // no `succeeded` at all), and the rate must still be computed then.
    const webhookFailureRate = new cloudwatch.MathExpression({
      expression: `IF(FILL(failed, 0) + FILL(succeeded, 0) >= ${MIN_WEBHOOK_ATTEMPTS_FOR_FAILURE_RATE}, 100 * FILL(failed, 0) / (FILL(failed, 0) + FILL(succeeded, 0)), 0)`,
      usingMetrics: { failed: failedAttempts, succeeded: succeededAttempts },
      period: PERIOD,
      label: 'failed attempts (%)',
    });
    this.webhookFailureRateAlarm = webhookFailureRate.createAlarm(
      this,
      'WebhookFailureRateAlarm',
      onAbove(
        WEBHOOK_FAILURE_RATE_THRESHOLD_PERCENT,
        `More than ${WEBHOOK_FAILURE_RATE_THRESHOLD_PERCENT}% of webhook delivery attempts failed for ${WEBHOOK_FAILURE_PERIODS_TO_ALARM} periods of 5 minutes in a row (periods with at least ${MIN_WEBHOOK_ATTEMPTS_FOR_FAILURE_RATE} attempts).`,
        { evaluationPeriods: WEBHOOK_FAILURE_PERIODS_TO_ALARM, datapointsToAlarm: WEBHOOK_FAILURE_PERIODS_TO_ALARM },
      ),
    );

    const jobTypes = props.workflows.map(({ workflow }) => workflow.jobType);
    const activeJobsPastBound = (jobType: string, label?: string) =>
      businessMetric(this, 'activeJobsPastBound', { JobType: jobType }, { period: PERIOD, statistic: 'Sum', label });
    // Any job the reconciler found past its bound: the execution-ended task ends such jobs first,
    // so one the reconciler had to end is one that task missed (and a customer waited hours). A
    // missing run is the errors alarm's to report, once.
    this.activeJobsPastBoundAlarms = jobTypes.map((jobType) =>
      activeJobsPastBound(jobType).createAlarm(
        this,
        `${constructIdOf(jobType)}JobsPastBoundAlarm`,
        onAny(
          `The reconciler ended active ${jobType} jobs past their bound (execution time-out plus grace): the execution-ended task missed them.`,
        ),
      ),
    );

    // Any active job the reconciler could not handle: it may stay active, its credits held.
    const reconcileErrors = (label?: string) =>
      businessMetric(this, 'reconcileErrors', {}, { period: RECONCILER_PERIOD, statistic: 'Sum', label });
    this.reconcileErrorsAlarm = reconcileErrors().createAlarm(
      this,
      'ReconcileErrorsAlarm',
      onAny(
        `The reconciler could not handle active jobs, or did not run at all, in ${RECONCILER_PERIOD.toMinutes()} minutes: jobs may stay active with their credits held.`,
        { treatMissingData: cloudwatch.TreatMissingData.BREACHING },
      ),
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

    const stack = Stack.of(this);
    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      // Dashboards are global to the account: the region keeps each region's stage apart.
      dashboardName: `${stack.stackName}-${stack.region}`,
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
            leftAnnotations: [{ value: LATENCY_P99_THRESHOLD.toMilliseconds(), label: 'p99 alarm' }],
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
              tableThrottledRequests,
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
          new cloudwatch.GraphWidget({
            title: 'Jobs ended, by type and outcome',
            left: [everyBusinessMetricSeries(this, 'jobsEnded', { statistic: 'Sum', period: PERIOD })],
            width: 8,
          }),
          new cloudwatch.GraphWidget({
            title: 'Credits charged and refunded, by job type',
            left: [
              everyBusinessMetricSeries(this, 'creditsCharged', { statistic: 'Sum', period: PERIOD, label: 'charged' }),
              everyBusinessMetricSeries(this, 'creditsRefunded', {
                statistic: 'Sum',
                period: PERIOD,
                label: 'refunded',
              }),
            ],
            width: 8,
          }),
          new cloudwatch.GraphWidget({
            title: 'Provider latency (ms), by provider and call',
            left: ['p50', 'p99'].map((statistic) =>
              everyBusinessMetricSeries(this, 'providerLatency', { statistic, period: PERIOD, label: statistic }),
            ),
            width: 8,
          }),
        ],
        [
          new cloudwatch.GraphWidget({
            title: 'Webhook delivery attempts',
            left: [succeededAttempts, failedAttempts],
            right: [webhookFailureRate],
            rightAnnotations: [{ value: WEBHOOK_FAILURE_RATE_THRESHOLD_PERCENT, label: 'alarm' }],
            width: 12,
          }),
          new cloudwatch.GraphWidget({
            title: 'Reconciler: jobs ended past their bound, and errors',
            left: jobTypes.map((jobType) => activeJobsPastBound(jobType, `${jobType} jobs past bound`)),
            right: [reconcileErrors('errors (15 min)')],
            width: 12,
          }),
        ],
        [new cloudwatch.AlarmStatusWidget({ title: 'Alarms', alarms: this.alarms, width: 24 })],
      ],
    });
  }

  /** Every alarm, in the order the dashboard's status widget lists them. */
  get alarms(): cloudwatch.Alarm[] {
    return [
      this.serverErrorRateAlarm,
      this.latencyAlarm,
      ...this.functionErrorAlarms,
      ...this.functionThrottlesAlarms,
      this.tableThrottlesAlarm,
      ...this.executionsFailedAlarms,
      ...this.executionsTimedOutAlarms,
      ...this.deadLetterAlarms,
      ...this.oldestMessageAgeAlarms,
      ...this.iteratorAgeAlarms,
      this.webhookFailureRateAlarm,
      ...this.activeJobsPastBoundAlarms,
      this.reconcileErrorsAlarm,
    ];
  }
}

/** `items` in consecutive groups of at most `size`. */
function chunks<T>(items: readonly T[], size: number): T[][] {
  return Array.from({ length: Math.ceil(items.length / size) }, (_, index) =>
    items.slice(index * size, (index + 1) * size),
  );
}
