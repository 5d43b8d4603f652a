import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import { constructIdOf } from '../construct-ids';
import type { VideoHttpApi } from '../http-api';
import type { TaskFunctions } from '../tasks';
import type { WorkflowStateMachine } from '../workflow';
import { PERIOD, THROTTLE_EVALUATION, onAny } from './alarm-options';

/** CloudWatch's limit on the metrics one metric-math alarm may combine. */
const MAX_METRICS_PER_ALARM = 10;

export interface FunctionAlarmsProps {
  readonly api: VideoHttpApi;
  readonly workflows: readonly WorkflowStateMachine[];
  readonly tasks: TaskFunctions;
}

/** The alarms on every function of the stack (API functions, workers, tasks), made in `scope`. */
export class FunctionAlarms {
  /**
   * API functions by operationId, workers by workflow and substitution (`VideoJobStartRenderFunction`),
   * then tasks (`ReconcileJobsTask`).
   */
  public readonly functions: readonly [string, lambda.IFunction][];
  public readonly errorAlarms: readonly cloudwatch.Alarm[];
  public readonly throttlesAlarms: readonly cloudwatch.Alarm[];

  constructor(scope: Construct, props: FunctionAlarmsProps) {
    this.functions = [
      ...props.api.functions.entries(),
      ...props.workflows.flatMap(({ workflow, workers }) =>
        [...workers].map(([substitution, fn]): [string, lambda.IFunction] => [
          `${constructIdOf(workflow.name)}${substitution}`,
          fn,
        ]),
      ),
      ...[...props.tasks.functions].map(([name, fn]): [string, lambda.IFunction] => [`${constructIdOf(name)}Task`, fn]),
    ];

    // One alarm per function: a metric-math alarm may combine at most 10 metrics, and the route
    // table grows past that.
    this.errorAlarms = this.functions.map(([name, fn]) =>
      fn
        .metricErrors({ period: PERIOD, statistic: 'Sum' })
        .createAlarm(
          scope,
          `${constructIdOf(name)}ErrorsAlarm`,
          onAny(`Unhandled errors or timeouts in the ${name} function.`),
        ),
    );

    // Throttles rather than errors can be summed: nobody needs to know at once which function,
    // the dashboard's graph shows it. FILL: a function not invoked in a period has no datapoint,
    // and a sum with a missing term would be missing too.
    const functionGroups = chunks(this.functions, MAX_METRICS_PER_ALARM);
    this.throttlesAlarms = functionGroups.map((group, index) =>
      new cloudwatch.MathExpression({
        expression: 'SUM(FILL(METRICS(), 0))',
        usingMetrics: Object.fromEntries(
          group.map(([, fn], position) => [`f${position}`, fn.metricThrottles({ period: PERIOD, statistic: 'Sum' })]),
        ),
        period: PERIOD,
        label: 'throttled invocations',
      }).createAlarm(
        scope,
        `FunctionThrottles${index + 1}Alarm`,
        onAny(
          `Lambda throttled invocations in ${THROTTLE_EVALUATION.datapointsToAlarm} of ${THROTTLE_EVALUATION.evaluationPeriods} periods of 5 minutes, of one of: ${group.map(([name]) => name).join(', ')}.`,
          THROTTLE_EVALUATION,
        ),
      ),
    );
  }
}

/** `items` in consecutive groups of at most `size`. */
function chunks<T>(items: readonly T[], size: number): T[][] {
  return Array.from({ length: Math.ceil(items.length / size) }, (_, index) =>
    items.slice(index * size, (index + 1) * size),
  );
}
