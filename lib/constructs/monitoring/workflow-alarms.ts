import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type { Construct } from 'constructs';
import { constructIdOf } from '../construct-ids';
import type { WorkflowStateMachine } from '../workflow';
import { PERIOD, onAny } from './alarm-options';

/** The alarms on each workflow's executions failing or timing out, made in `scope`. */
export class WorkflowAlarms {
  public readonly executionsFailedAlarms: readonly cloudwatch.Alarm[];
  public readonly executionsTimedOutAlarms: readonly cloudwatch.Alarm[];

  constructor(scope: Construct, workflows: readonly WorkflowStateMachine[]) {
    // Every task catches into FinishCrashed, which ends and refunds the job, so an execution fails
    // only when FinishCrashed itself fails or a Wait/Choice state hits a runtime error (a missing
    // field), which no Catch covers. Either way the job may be left processing with its credits
    // held, so one failure is worth a look.
    this.executionsFailedAlarms = workflows.map(({ workflow, stateMachine }) =>
      stateMachine
        .metricFailed({ period: PERIOD, statistic: 'Sum' })
        .createAlarm(
          scope,
          `${constructIdOf(workflow.name)}ExecutionsFailedAlarm`,
          onAny(`Executions of the ${workflow.name} workflow failed: its job may be stuck without a refund.`),
        ),
    );

    // Any execution reaching its ASL file's TimeoutSeconds: each workflow's inner deadlines (the
    // render's 30 minutes, the transcription's hour) should end a job well before, so a time-out
    // means a step hung; the execution-ended task expires and refunds the job, but the cause needs a look.
    this.executionsTimedOutAlarms = workflows.map(({ workflow, stateMachine }) =>
      stateMachine
        .metricTimedOut({ period: PERIOD, statistic: 'Sum' })
        .createAlarm(
          scope,
          `${constructIdOf(workflow.name)}ExecutionsTimedOutAlarm`,
          onAny(
            `Executions of the ${workflow.name} workflow reached its time-out (${workflow.executionTimeoutSeconds} s): a step hung past the workflow's own deadlines; the job was expired and refunded.`,
          ),
        ),
    );
  }
}
