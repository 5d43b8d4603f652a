/**
 * The metric table: every business metric the functions publish as CloudWatch embedded metrics
 * (lambdas/platform/metrics.ts writes them), with its unit and dimensions. The CDK app builds the
 * dashboard widgets and alarms over these names, so a metric renamed here is renamed for both.
 */

/** The namespace when none is set (the local stack, unit tests). */
export const DEFAULT_METRICS_NAMESPACE = 'VideoAutomationApi';

export type MetricUnit = 'Count' | 'Milliseconds' | 'Seconds';

export interface MetricDefinition<Dimension extends string = string> {
  readonly name: string;
  readonly unit: MetricUnit;
  /** The one dimension set the metric is published with, in this order. */
  readonly dimensions: readonly Dimension[];
}

/** How a job ended: its terminal status. */
export type JobOutcomeDimension = 'completed' | 'failed' | 'cancelled' | 'expired';

/** How one delivery attempt, or a whole delivery, ended. */
export type DeliveryOutcomeDimension = 'succeeded' | 'failed';

export const METRICS = {
  /** A job reached a terminal status. Dimensions: JobType (`video`, `split`), Outcome (its status). */
  jobsEnded: { name: 'JobsEnded', unit: 'Count', dimensions: ['JobType', 'Outcome'] },
  /** Credits taken from an organization's balance when a job was created. */
  creditsCharged: { name: 'CreditsCharged', unit: 'Count', dimensions: ['JobType'] },
  /** Credits given back when a job ended without its result. */
  creditsRefunded: { name: 'CreditsRefunded', unit: 'Count', dimensions: ['JobType'] },
  /** One HTTP attempt of a webhook delivery. Outcome: `succeeded` (2xx) or `failed`. */
  webhookDeliveryAttempts: { name: 'WebhookDeliveryAttempts', unit: 'Count', dimensions: ['Outcome'] },
  /** A delivery reached its final state. Outcome: `succeeded`, or `failed` once its attempts are spent. */
  webhookDeliveriesEnded: { name: 'WebhookDeliveriesEnded', unit: 'Count', dimensions: ['Outcome'] },
  /**
   * One call to an outside provider (Bedrock, Amazon Transcribe, the local renderer). Provider:
   * `bedrock`, `amazon-transcribe`, `local`; Operation: `start-render`, `poll-render`,
   * `start-transcription`, `poll-transcription`.
   */
  providerLatency: { name: 'ProviderLatency', unit: 'Milliseconds', dimensions: ['Provider', 'Operation'] },
  /**
   * Active jobs a reconciler run found past their bound (the workflow's execution time-out plus the
   * reconciler's grace), which it then ended. The execution-ended task ends such jobs first, so
   * any is a sign that it missed one.
   */
  activeJobsPastBound: { name: 'ActiveJobsPastBound', unit: 'Count', dimensions: ['JobType'] },
  /** Active jobs the reconciler could not handle in a run (it tries them again in the next). */
  reconcileErrors: { name: 'ReconcileErrors', unit: 'Count', dimensions: [] },
  /**
   * One reading of a configured model's lifecycle by the watch-model-lifecycle task: 1 when the
   * model is Legacy, unavailable, or within 90 days of its end of life, else 0. ModelId: its id.
   */
  modelLifecycleProblems: { name: 'ModelLifecycleProblems', unit: 'Count', dimensions: ['ModelId'] },
  /** Days left until a configured model's end of life, when one is announced. ModelId: its id. */
  modelDaysToEndOfLife: { name: 'ModelDaysToEndOfLife', unit: 'Count', dimensions: ['ModelId'] },
} as const satisfies Record<string, MetricDefinition>;

export type MetricName = keyof typeof METRICS;

/** The dimension values a metric is published with, by dimension name. */
export type DimensionsOf<Name extends MetricName> = Record<(typeof METRICS)[Name]['dimensions'][number], string>;
