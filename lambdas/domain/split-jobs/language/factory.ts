import { BedrockRuntimeClient } from '@aws-sdk/client-bedrock-runtime';
import { DEFAULT_TEXT_MODEL_ID, textModelById, type TextModelEntry } from '#domain/models/model-registry';
import { choiceSetting, optionalSetting, LANGUAGE_MODEL, TEXT_MODEL_ID } from '#platform/settings';
import { BedrockLanguageModel } from './bedrock';
import { NoLanguageModel } from './no-language-model';
import type { LanguageModel } from './port';
import { WinkNlpLanguageModel } from './wink-nlp';

/** The language models a setting can name. */
export const LANGUAGE_MODEL_KINDS = ['bedrock', 'wink-nlp', 'none'] as const satisfies readonly LanguageModel['kind'][];
export type LanguageModelKind = (typeof LANGUAGE_MODEL_KINDS)[number];

/**
 * What a deployment may choose: Bedrock, or none (clips ranked by the signals alone). The local
 * model is the local stack's: its packages are left out of the functions' bundles
 * (lib/constructs/node-function.ts).
 */
export const DEPLOYED_LANGUAGE_MODEL_KINDS = ['bedrock', 'none'] as const satisfies readonly LanguageModelKind[];
export type DeployedLanguageModelKind = (typeof DEPLOYED_LANGUAGE_MODEL_KINDS)[number];

/**
 * Attempts of one Converse call, the first included: the SDK retries throttling and 5xx answers
 * with backoff, two more times, within the request's time-out (LANGUAGE_REQUEST_TIMEOUT_MS).
 */
export const BEDROCK_MAX_ATTEMPTS = 3;

/** The `languageModel` setting. Unset means none: a missing language model only costs the clips' reasons and titles by what is said. */
function languageModelKind(): LanguageModelKind {
  return choiceSetting(LANGUAGE_MODEL, LANGUAGE_MODEL_KINDS, 'none');
}

/** The text model the `bedrock` language model reads with: the `textModelId` setting, else the registry's default. */
export function configuredTextModel(): TextModelEntry {
  return textModelById(optionalSetting(TEXT_MODEL_ID) ?? DEFAULT_TEXT_MODEL_ID);
}

export interface LanguageModelConfig {
  /** Defaults to the `languageModel` setting. */
  kind?: LanguageModelKind;
  /** Defaults to a client in the function's region, the profile's source region. */
  bedrock?: BedrockRuntimeClient;
  /** Defaults to the configured text model. */
  model?: TextModelEntry;
}

/**
 * Call once per container, on first use, like the SDK clients it creates: a worker's module then
 * loads without reading a setting or making a client.
 */
export function createLanguageModel(config: LanguageModelConfig = {}): LanguageModel {
  const kind = config.kind ?? languageModelKind();
  switch (kind) {
    case 'bedrock':
      return new BedrockLanguageModel({
        bedrock: config.bedrock ?? new BedrockRuntimeClient({ maxAttempts: BEDROCK_MAX_ATTEMPTS }),
        model: config.model ?? configuredTextModel(),
      });
    case 'wink-nlp':
      return new WinkNlpLanguageModel();
    case 'none':
      return new NoLanguageModel();
  }
}

let containerModel: LanguageModel | undefined;

/** The container's language model, made from the settings on first use. */
export function languageModel(): LanguageModel {
  containerModel ??= createLanguageModel();
  return containerModel;
}
