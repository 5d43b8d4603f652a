import type { LanguageModel } from './port';
import { WinkNlpLanguageModel } from './wink-nlp';

let containerModel: LanguageModel | undefined;

/** The container's language model, made on first use. */
export function languageModel(): LanguageModel {
  containerModel ??= new WinkNlpLanguageModel();
  return containerModel;
}
