import type { ClipIdeasAnswer, LanguageModel } from './port';

/** For stacks without a language model: clips are ranked by their sound and picture alone, and say so. */
export class NoLanguageModel implements LanguageModel {
  readonly kind = 'none';
  readonly modelId = null;

  async proposeClips(): Promise<ClipIdeasAnswer> {
    return { state: 'failed', cause: 'unavailable', detail: 'no language model is configured' };
  }
}
