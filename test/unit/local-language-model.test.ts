import { localLanguageModel } from '../../local/language-model';

describe('the local stack’s language model', () => {
  it('is wink-nlp unless LANGUAGE_MODEL says none', () => {
    expect(localLanguageModel(undefined)).toEqual({ LANGUAGE_MODEL: 'wink-nlp' });
    expect(localLanguageModel('')).toEqual({ LANGUAGE_MODEL: 'wink-nlp' });
    expect(localLanguageModel('wink-nlp')).toEqual({ LANGUAGE_MODEL: 'wink-nlp' });
    expect(localLanguageModel('none')).toEqual({ LANGUAGE_MODEL: 'none' });
  });

  it('refuses Bedrock, which cannot be reached from a local stack, naming the choices', () => {
    expect(() => localLanguageModel('bedrock')).toThrow(
      'LANGUAGE_MODEL must be wink-nlp or none on the local stack, got "bedrock"',
    );
  });
});
