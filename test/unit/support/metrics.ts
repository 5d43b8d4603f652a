import { setMetricWriter } from '#platform/metrics';

/** An embedded metric format document as written: the directive, then dimension and metric values at the root. */
export interface MetricDocument {
  _aws: {
    Timestamp: number;
    CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string; Unit: string }[] }[];
  };
  [member: string]: unknown;
}

/** Collects every document written from now on, parsed; the array fills as metrics are published. */
export function captureMetrics(): MetricDocument[] {
  const documents: MetricDocument[] = [];
  setMetricWriter((line) => documents.push(JSON.parse(line) as MetricDocument));
  return documents;
}

/** Each value published of the metric named `name`, with its dimension values: `{ JobType: 'video', value: 1 }`. */
export function publishedValues(documents: readonly MetricDocument[], name: string): Record<string, unknown>[] {
  return documents.flatMap((document) =>
    document._aws.CloudWatchMetrics.filter((directive) => directive.Metrics.some((metric) => metric.Name === name)).map(
      (directive) => ({
        ...Object.fromEntries(directive.Dimensions.flat().map((dimension) => [dimension, document[dimension]])),
        value: document[name],
      }),
    ),
  );
}
