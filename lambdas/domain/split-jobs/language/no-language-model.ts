import type { ClipIdeasAnswer, LanguageModel } from './port';

/** No language model: every clip is ranked by its sound, picture and opening words alone. */
export class NoLanguageModel implements LanguageModel {
  readonly kind = 'none';
  readonly modelId = null;

  async proposeClips(): Promise<ClipIdeasAnswer> {
    return { state: 'failed', cause: 'unavailable', detail: 'No language model is configured.' };
  }
}
