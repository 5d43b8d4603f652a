import { BedrockClient, GetFoundationModelCommand } from '@aws-sdk/client-bedrock';
import { log } from '#platform/log';
import { putMetric } from '#platform/metrics';
import { optionalSetting, WATCHED_MODEL_IDS } from '#platform/settings';
import { daysUntil, lifecycleVerdict, type LifecycleStatus, type ModelEntry, MODEL_REGISTRY } from './model-registry';

/**
 * The watch over the configured models' lifecycles in AWS: what Bedrock says of each model now
 * (GetFoundationModel's `modelLifecycle`), judged as the synthesis judges the registry's dates
 * (lifecycleVerdict), so that a model moved to Legacy, or given an end of life, after the stack
 * was deployed is reported before its calls start to fail. Each reading is a metric the
 * ModelLifecycle alarm watches, and a log line saying why.
 */

export interface ModelLifecycleReading {
  modelId: string;
  /** What Bedrock answered; UNAVAILABLE when it would not describe the model. */
  status: LifecycleStatus | 'UNAVAILABLE';
  /** ISO date of the end of life, Bedrock's when it gives one, else the registry's. */
  endOfLife?: string;
  daysToEndOfLife?: number;
  /** Why the model needs an operator, when it does. */
  problem?: string;
}

/** Bedrock's answers that mean the model cannot be used here: reported, not retried. */
const UNAVAILABLE_ERRORS = new Set(['ResourceNotFoundException', 'ValidationException', 'AccessDeniedException']);

const isoDay = (date: Date) => date.toISOString().slice(0, 10);

export async function readModelLifecycle(
  bedrock: BedrockClient,
  model: ModelEntry,
  now: Date,
): Promise<ModelLifecycleReading> {
  let answer;
  try {
    answer = await bedrock.send(new GetFoundationModelCommand({ modelIdentifier: model.id }));
  } catch (error) {
    if (!(error instanceof Error) || !UNAVAILABLE_ERRORS.has(error.name)) throw error;
    return {
      modelId: model.id,
      status: 'UNAVAILABLE',
      problem: `Bedrock will not describe it here (${error.name}: ${error.message}): calls to it fail`,
    };
  }
  const lifecycle = answer.modelDetails?.modelLifecycle;
  const status: LifecycleStatus =
    lifecycle?.status === 'ACTIVE' ? 'ACTIVE' : lifecycle?.status === 'LEGACY' ? 'LEGACY' : 'EOL';
  const endOfLife = lifecycle?.endOfLifeTime ? isoDay(lifecycle.endOfLifeTime) : model.lifecycle.endOfLife;
  const legacySince = lifecycle?.legacyTime ? isoDay(lifecycle.legacyTime) : model.lifecycle.legacySince;
  const verdict = lifecycleVerdict(
    {
      status,
      source: model.lifecycle.source,
      ...(endOfLife ? { endOfLife } : {}),
      ...(legacySince ? { legacySince } : {}),
    },
    now,
  );
  return {
    modelId: model.id,
    status,
    ...(endOfLife ? { endOfLife, daysToEndOfLife: daysUntil(endOfLife, now) } : {}),
    ...(verdict.state === 'active' ? {} : { problem: verdict.reason }),
  };
}

/** The models the WATCHED_MODEL_IDS setting names, each of the registry. */
export function watchedModels(): ModelEntry[] {
  const ids = (optionalSetting(WATCHED_MODEL_IDS) ?? '').split(',').filter(Boolean);
  return ids.map((id) => {
    const model = MODEL_REGISTRY.find((entry) => entry.id === id);
    if (!model) throw new Error(`${WATCHED_MODEL_IDS.variable} names ${id}, which is not in the model registry`);
    return model;
  });
}

let client: BedrockClient | undefined;

/** Reads every watched model, publishes a metric of each reading and logs each problem. */
export async function watchModelLifecycles(
  bedrock: BedrockClient = (client ??= new BedrockClient({})),
  now = new Date(),
): Promise<ModelLifecycleReading[]> {
  const readings = await Promise.all(watchedModels().map((model) => readModelLifecycle(bedrock, model, now)));
  for (const reading of readings) {
    putMetric('modelLifecycleProblems', reading.problem ? 1 : 0, { ModelId: reading.modelId });
    if (reading.daysToEndOfLife !== undefined) {
      putMetric('modelDaysToEndOfLife', reading.daysToEndOfLife, { ModelId: reading.modelId });
    }
    if (reading.problem) {
      log('warn', 'A configured model needs attention: see docs/operations.md, "Model lifecycle"', { ...reading });
    }
  }
  return readings;
}
