import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type { Construct } from 'constructs';
import { RECONCILE_SCHEDULE } from '#domain/jobs/reconcile-schedule';
import { businessMetric } from '../business-metrics';
import { constructIdOf } from '../construct-ids';
import type { WorkflowStateMachine } from '../workflow';
import { PERIOD, onAny } from './alarm-options';

/**
 * The reconciler publishes its counts on every run, so a period without them means it did not
 * run. Three schedule periods long, so that a run landing late or early never leaves one empty.
 */
const RECONCILER_PERIOD = Duration.minutes(3 * RECONCILE_SCHEDULE.everyMinutes);

/**
 * The alarms on the reconciler's business metrics, made in `scope`: a job it found past its bound,
 * an error, or no run at all.
 */
export class ReconcilerAlarms {
  public readonly jobTypes: readonly string[];
  public readonly activeJobsPastBoundAlarms: readonly cloudwatch.Alarm[];
  public readonly reconcileErrorsAlarm: cloudwatch.Alarm;
  private readonly scope: Construct;

  constructor(scope: Construct, workflows: readonly WorkflowStateMachine[]) {
    this.scope = scope;
    this.jobTypes = workflows.map(({ workflow }) => workflow.jobType);
    // Any job the reconciler found past its bound: the execution-ended task ends such jobs first,
    // so one the reconciler had to end is one that task missed (and a customer waited hours). A
    // missing run is the errors alarm's to report, once.
    this.activeJobsPastBoundAlarms = this.jobTypes.map((jobType) =>
      this.activeJobsPastBound(jobType).createAlarm(
        scope,
        `${constructIdOf(jobType)}JobsPastBoundAlarm`,
        onAny(
          `The reconciler ended active ${jobType} jobs past their bound (execution time-out plus grace): the execution-ended task missed them.`,
        ),
      ),
    );

    // Any active job the reconciler could not handle: it may stay active, its credits held.
    this.reconcileErrorsAlarm = this.reconcileErrors().createAlarm(
      scope,
      'ReconcileErrorsAlarm',
      onAny(
        `The reconciler could not handle active jobs, or did not run at all, in ${RECONCILER_PERIOD.toMinutes()} minutes: jobs may stay active with their credits held.`,
        { treatMissingData: cloudwatch.TreatMissingData.BREACHING },
      ),
    );
  }

  activeJobsPastBound(jobType: string, label?: string): cloudwatch.Metric {
    return businessMetric(
      this.scope,
      'activeJobsPastBound',
      { JobType: jobType },
      { period: PERIOD, statistic: 'Sum', label },
    );
  }

  reconcileErrors(label?: string): cloudwatch.Metric {
    return businessMetric(this.scope, 'reconcileErrors', {}, { period: RECONCILER_PERIOD, statistic: 'Sum', label });
  }
}
