import { access, constants, realpath } from 'node:fs/promises';
import { englishModelOf } from '#domain/split-jobs/transcription/pocketsphinx';
import { POCKETSPHINX_PATH, TRANSCRIPTION_PROVIDER } from '#platform/settings';
import { onPath } from './media-tools';

/**
 * What transcribes speech on the local stack: PocketSphinx when the machine has its recognizer and
 * English model (Debian's `pocketsphinx` and `pocketsphinx-en-us`), else nothing, so clips get no
 * captions or titles. TRANSCRIPTION_PROVIDER in `npm start`'s environment chooses instead: `none`,
 * or `pocketsphinx`, which then must be installed. Amazon Transcribe cannot be reached from here.
 */

export const RECOGNIZER = 'pocketsphinx_continuous';
export const RECOGNIZER_PACKAGES = 'pocketsphinx pocketsphinx-en-us';
const INSTALL = `install Debian's ${RECOGNIZER_PACKAGES} (apt-get install ${RECOGNIZER_PACKAGES})`;

export interface LocalTranscription {
  /** TRANSCRIPTION_PROVIDER, and where the recognizer is when there is one. */
  environment: Record<string, string>;
  /** One line for the operator: what transcribes, and what that means for clips. */
  summary: string;
}

const readable = (path: string) =>
  access(path, constants.R_OK).then(
    () => true,
    () => false,
  );

/**
 * The recognizer on `searchPath`, when its English model is installed beside it. Its real path:
 * through a link (`/bin` is one to `/usr/bin` on current Debian) the model is not beside it.
 */
export async function findRecognizer(searchPath?: string): Promise<string | undefined> {
  const onSearchPath = await onPath(RECOGNIZER, searchPath);
  if (!onSearchPath) return undefined;
  const recognizer = await realpath(onSearchPath);
  const model = englishModelOf(recognizer);
  const found = await Promise.all([model.acousticModelDir, model.languageModel, model.dictionary].map(readable));
  return found.every(Boolean) ? recognizer : undefined;
}

export async function localTranscription(
  choice = process.env[TRANSCRIPTION_PROVIDER.variable],
  searchPath?: string,
): Promise<LocalTranscription> {
  const none = (summary: string) => ({ environment: { [TRANSCRIPTION_PROVIDER.variable]: 'none' }, summary });
  if (choice === 'none')
    return none('Transcription: none (TRANSCRIPTION_PROVIDER=none): clips get no captions or titles');
  if (choice && choice !== 'pocketsphinx') {
    throw new Error(`TRANSCRIPTION_PROVIDER must be pocketsphinx or none on the local stack, got "${choice}"`);
  }
  const recognizer = await findRecognizer(searchPath);
  if (recognizer) {
    return {
      environment: { [TRANSCRIPTION_PROVIDER.variable]: 'pocketsphinx', [POCKETSPHINX_PATH.variable]: recognizer },
      summary: `Transcription: pocketsphinx (captions and titles on; ${recognizer})`,
    };
  }
  if (choice)
    throw new Error(
      `TRANSCRIPTION_PROVIDER=pocketsphinx, but ${RECOGNIZER} or its English model is missing: ${INSTALL}`,
    );
  return none(`Transcription: none — ${INSTALL} for captions and titles`);
}
