import { DEFAULT_METRICS_NAMESPACE, METRICS, type DimensionsOf, type MetricName } from '#metrics';
import { optionalSetting, METRICS_NAMESPACE } from './settings';

/**
 * Business metrics as CloudWatch embedded metric format (EMF) documents: one JSON object per line
 * on stdout, from which CloudWatch Logs extracts the metric. No API call, so nothing to wait for,
 * grant or retry. Written straight to stdout, not through console: under Lambda's JSON log format
 * console wraps each line in an object of its own, and CloudWatch no longer finds the document.
 * Metrics are not log lines: LOG_LEVEL does not turn them off.
 */

export type MetricWriter = (line: string) => void;

const writeToStdout: MetricWriter = (line) => {
  process.stdout.write(`${line}\n`);
};

let writeLine: MetricWriter = writeToStdout;

/** Where documents go from now on: tests capture or drop them; `undefined` restores stdout. */
export function setMetricWriter(writer: MetricWriter | undefined): void {
  writeLine = writer ?? writeToStdout;
}

function namespace(): string {
  return optionalSetting(METRICS_NAMESPACE) ?? DEFAULT_METRICS_NAMESPACE;
}

/** The EMF document of one value of a metric of lambdas/metrics.ts, with its dimension values. */
export function metricDocument<Name extends MetricName>(
  name: Name,
  value: number,
  dimensions: DimensionsOf<Name>,
  timestamp = Date.now(),
): Record<string, unknown> {
  const definition = METRICS[name];
  return {
    _aws: {
      Timestamp: timestamp,
      CloudWatchMetrics: [
        {
          Namespace: namespace(),
          Dimensions: [[...definition.dimensions]],
          Metrics: [{ Name: definition.name, Unit: definition.unit }],
        },
      ],
    },
    ...dimensions,
    [definition.name]: value,
  };
}

/** Publishes one value of the metric. */
export function putMetric<Name extends MetricName>(name: Name, value: number, dimensions: DimensionsOf<Name>): void {
  writeLine(JSON.stringify(metricDocument(name, value, dimensions)));
}

/**
 * Runs `work` and publishes how long it took in milliseconds, whether it succeeded or threw, so
 * that failed calls show in the latency too.
 */
export async function timed<Name extends MetricName, T>(
  name: Name,
  dimensions: DimensionsOf<Name>,
  work: () => Promise<T>,
): Promise<T> {
  const startedAt = performance.now();
  try {
    return await work();
  } finally {
    putMetric(name, Math.round(performance.now() - startedAt), dimensions);
  }
}
