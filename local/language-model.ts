import { LANGUAGE_MODEL } from '#platform/settings';

/**
 * What reads transcripts on the local stack: wink-nlp with its English model, which ships inside
 * its npm package. LANGUAGE_MODEL in `npm start`'s environment chooses instead: `none`, so clips
 * are ranked by their sound, picture and opening words alone. Bedrock cannot be reached from here.
 */
export function localLanguageModel(choice = process.env[LANGUAGE_MODEL.variable]): Record<string, string> {
  if (choice === undefined || choice === '' || choice === 'wink-nlp') return { [LANGUAGE_MODEL.variable]: 'wink-nlp' };
  if (choice === 'none') return { [LANGUAGE_MODEL.variable]: 'none' };
  throw new Error(`LANGUAGE_MODEL must be wink-nlp or none on the local stack, got "${choice}"`);
}
