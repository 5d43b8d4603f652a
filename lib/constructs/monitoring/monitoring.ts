import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type { ModelEntry } from '#domain/models/model-registry';
import { Construct } from 'constructs';
import type { DataTable } from '../data-table';
import type { VideoHttpApi } from '../http-api';
import type { ServiceQueues } from '../queues';
import type { TaskFunctions } from '../tasks';
import type { WorkflowStateMachine } from '../workflow';
import { ApiAlarms } from './api-alarms';
import { createMonitoringDashboard } from './dashboard';
import { FunctionAlarms } from './function-alarms';
import { ModelAlarms } from './model-alarms';
import { QueueAndStreamAlarms } from './queue-and-stream-alarms';
import { ReconcilerAlarms } from './reconciler-alarms';
import { TableAlarms } from './table-alarms';
import { WebhookAlarms } from './webhook-alarms';
import { WorkflowAlarms } from './workflow-alarms';

export interface MonitoringProps {
  readonly api: VideoHttpApi;
  readonly table: DataTable;
  readonly workflows: readonly WorkflowStateMachine[];
  readonly tasks: TaskFunctions;
  readonly queues: ServiceQueues;
  /** The models the stack calls, whose lifecycle the watch-model-lifecycle task reads. */
  readonly models: readonly ModelEntry[];
}

/**
 * One dashboard for the request path (API → Lambda → DynamoDB), the workflows and the business
 * metrics the functions publish (lambdas/metrics.ts), and the alarms that mean callers are getting
 * failures or waiting: the API's 5xx rate and p99 latency, any unhandled Lambda error (the
 * handlers turn every expected failure into an envelope, and the workflows catch worker errors
 * into FinishCrashed, so a Lambda Errors datapoint is a crash or a timeout), throttling of the
 * functions or the table, and any failed or timed-out workflow execution; those of the
 * asynchronous paths: any message in a dead-letter queue (a queue's, the batches a table-stream
 * task gave up on, or the execution endings a task could not handle), a queue whose oldest message
 * waits too long, a table-stream task lagging behind the stream, webhook deliveries failing; and
 * the reconciler's: a job past its bound, an error, or no run at all; and the lifecycle of every
 * model the stack calls. Where the alarms notify is the stack's (AlarmTopic).
 *
 * Each group of alarms, and the dashboard, is made by its own module directly in this construct
 * rather than in a construct of its own: a level more in the construct tree would change every
 * alarm's logical ID, and CloudFormation would replace the alarms, losing their history.
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
  /**
   * Any message in a queue's dead-letter queue, a table-stream task's failures queue or an
   * execution-ending task's dead-letter queue.
   */
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
  /** Each configured model Legacy, unavailable or near its end of life, or its lifecycle unread for a day. */
  public readonly modelLifecycleAlarms: readonly cloudwatch.Alarm[];

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    const api = new ApiAlarms(this, props.api.api);
    this.serverErrorRateAlarm = api.serverErrorRateAlarm;
    this.latencyAlarm = api.latencyAlarm;

    const functions = new FunctionAlarms(this, props);
    this.functionErrorAlarms = functions.errorAlarms;
    this.functionThrottlesAlarms = functions.throttlesAlarms;

    const table = new TableAlarms(this, props.table.table);
    this.tableThrottlesAlarm = table.throttlesAlarm;

    const workflows = new WorkflowAlarms(this, props.workflows);
    this.executionsFailedAlarms = workflows.executionsFailedAlarms;
    this.executionsTimedOutAlarms = workflows.executionsTimedOutAlarms;

    const queues = new QueueAndStreamAlarms(this, props);
    this.deadLetterAlarms = queues.deadLetterAlarms;
    this.oldestMessageAgeAlarms = queues.oldestMessageAgeAlarms;
    this.iteratorAgeAlarms = queues.iteratorAgeAlarms;

    const webhooks = new WebhookAlarms(this);
    this.webhookFailureRateAlarm = webhooks.failureRateAlarm;

    const reconciler = new ReconcilerAlarms(this, props.workflows);
    this.activeJobsPastBoundAlarms = reconciler.activeJobsPastBoundAlarms;
    this.reconcileErrorsAlarm = reconciler.reconcileErrorsAlarm;

    this.modelLifecycleAlarms = new ModelAlarms(this, props.models).lifecycleAlarms;

    this.dashboard = createMonitoringDashboard(this, {
      api,
      functions,
      table,
      workflows: props.workflows,
      queues,
      webhooks,
      reconciler,
      alarms: this.alarms,
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
      ...this.modelLifecycleAlarms,
    ];
  }
}
