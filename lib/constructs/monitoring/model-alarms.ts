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

/**
 * The alarm on each configured model's lifecycle, made in `scope`: Legacy, unavailable, within
 * END_OF_LIFE_NOTICE_DAYS of its end of life, or not read at all in a day.
 */
export class ModelAlarms {
  public readonly lifecycleAlarms: readonly cloudwatch.Alarm[];
  private readonly scope: Construct;

  constructor(scope: Construct, models: readonly ModelEntry[]) {
    this.scope = scope;
    this.lifecycleAlarms = models.map((model, index) =>
      this.lifecycleProblems(model.id, 'Maximum').createAlarm(
        scope,
        index === 0 ? 'VideoModelLifecycleAlarm' : `VideoModel${index + 1}LifecycleAlarm`,
        onAny(
          `The model ${model.id} is Legacy, unavailable, or within ${END_OF_LIFE_NOTICE_DAYS} days of its end of life, or its lifecycle was not read for a day: its calls will fail. See docs/operations.md, "Model lifecycle".`,
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
