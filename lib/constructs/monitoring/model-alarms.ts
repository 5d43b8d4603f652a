import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type { Construct } from 'constructs';
import { END_OF_LIFE_NOTICE_DAYS, type ModelEntry } from '#domain/models/model-registry';
import { businessMetric } from '../business-metrics';
import { onAny } from './alarm-options';

/**
 * A day: the watch-model-lifecycle task reads each model several times in it (lambdas/tasks.ts), so
 * a day without a reading means the watch itself stopped, which the alarm reports too.
 */
const LIFECYCLE_PERIOD = Duration.days(1);

/** Each configured model's alarm, by its kind: a deployment configures one model of each. */
const ALARM_IDS: Readonly<Record<ModelEntry['kind'], string>> = {
  video: 'VideoModelLifecycleAlarm',
  text: 'TextModelLifecycleAlarm',
};

const CONSEQUENCES: Readonly<Record<ModelEntry['kind'], string>> = {
  video: 'its calls will fail, and video jobs with them.',
  text: 'its calls will fail, and clips will be chosen by their sound and picture alone.',
};

/**
 * The alarm on each configured model's lifecycle, made in `scope`: Legacy, unavailable, within
 * END_OF_LIFE_NOTICE_DAYS of its end of life, or not read at all in a day.
 */
export class ModelAlarms {
  public readonly lifecycleAlarms: readonly cloudwatch.Alarm[];
  private readonly scope: Construct;

  constructor(scope: Construct, models: readonly ModelEntry[]) {
    this.scope = scope;
    const kinds = models.map((model) => model.kind);
    if (new Set(kinds).size !== kinds.length)
      throw new Error(`One configured model of each kind, got ${kinds.join(', ')}`);
    this.lifecycleAlarms = models.map((model) =>
      this.lifecycleProblems(model.id, 'Maximum').createAlarm(
        scope,
        ALARM_IDS[model.kind],
        onAny(
          `The ${model.kind} model ${model.id} is Legacy, unavailable, or within ${END_OF_LIFE_NOTICE_DAYS} days of its end of life, or its lifecycle was not read for a day: ${CONSEQUENCES[model.kind]} See docs/operations.md, "Model lifecycle".`,
          { treatMissingData: cloudwatch.TreatMissingData.BREACHING },
        ),
      ),
    );
  }

  lifecycleProblems(modelId: string, statistic: 'Maximum', label?: string): cloudwatch.Metric {
    return businessMetric(
      this.scope,
      'modelLifecycleProblems',
      { ModelId: modelId },
      { period: LIFECYCLE_PERIOD, statistic, label },
    );
  }
}
