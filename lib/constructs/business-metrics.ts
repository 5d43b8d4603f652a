import { Duration, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type { IConstruct } from 'constructs';
import { DEFAULT_METRICS_NAMESPACE, METRICS, type DimensionsOf, type MetricName } from '#metrics';

/**
 * The CloudWatch namespace of one stack's business metrics (lambdas/metrics.ts): its functions
 * publish there (METRICS_NAMESPACE) and its alarms and dashboard read there, so two stages in
 * one account and region never count each other's jobs.
 */
export function metricsNamespaceOf(scope: IConstruct): string {
  return `${DEFAULT_METRICS_NAMESPACE}/${Stack.of(scope).stackName}`;
}

/** One series of a metric of lambdas/metrics.ts, as the stack's functions publish it. */
export function businessMetric<Name extends MetricName>(
  scope: IConstruct,
  name: Name,
  dimensions: DimensionsOf<Name>,
  options: Pick<cloudwatch.MetricOptions, 'period' | 'statistic' | 'label'>,
): cloudwatch.Metric {
  return new cloudwatch.Metric({
    namespace: metricsNamespaceOf(scope),
    metricName: METRICS[name].name,
    dimensionsMap: dimensions,
    ...options,
  });
}

/**
 * Every series of a metric, whatever its dimension values (job types, outcomes, providers), for a
 * graph: a SEARCH expression, so a value published for the first time shows up without a deployment.
 * Each series is labelled with its dimension values.
 */
export function everyBusinessMetricSeries(
  scope: IConstruct,
  name: MetricName,
  { statistic, period, label }: { statistic: string; period: Duration; label?: string },
): cloudwatch.MathExpression {
  const { name: metricName, dimensions } = METRICS[name];
  const schema = [JSON.stringify(metricsNamespaceOf(scope)), ...dimensions].join(',');
  return new cloudwatch.MathExpression({
    expression: `SEARCH('{${schema}} MetricName="${metricName}"', '${statistic}', ${period.toSeconds()})`,
    label: [...dimensions.map((dimension) => `\${PROP('Dim.${dimension}')}`), ...(label ? [label] : [])].join(' '),
    period,
  });
}
