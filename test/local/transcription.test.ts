import { chmod, mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { localTranscription } from '../../local/transcription';

/** A prefix laid out as Debian's packages lay out the recognizer and its English model, as far as asked. */
async function installation(parts: { recognizer: boolean; model: boolean }): Promise<string> {
  const prefix = await mkdtemp(join(tmpdir(), 'speech-prefix-'));
  await mkdir(join(prefix, 'bin'));
  if (parts.recognizer) {
    await writeFile(join(prefix, 'bin', 'pocketsphinx_continuous'), '#!/bin/sh\n');
    await chmod(join(prefix, 'bin', 'pocketsphinx_continuous'), 0o755);
  }
  if (parts.model) {
    const model = join(prefix, 'share', 'pocketsphinx', 'model', 'en-us');
    await mkdir(join(model, 'en-us'), { recursive: true });
    await writeFile(join(model, 'en-us.lm.bin'), '');
    await writeFile(join(model, 'cmudict-en-us.dict'), '');
  }
  return prefix;
}

const prefixes: string[] = [];

/** A search path whose second directory holds the recognizer (or only part of it). */
async function searchPathWith(parts: { recognizer: boolean; model: boolean }): Promise<string> {
  const prefix = await installation(parts);
  prefixes.push(prefix);
  return [join(prefix, 'elsewhere'), join(prefix, 'bin')].join(delimiter);
}

afterAll(async () => {
  await Promise.all(prefixes.map((prefix) => rm(prefix, { recursive: true, force: true })));
});

describe('the local stack’s transcription', () => {
  it('is the recognizer found on the search path with its English model, unless told otherwise', async () => {
    const searchPath = await searchPathWith({ recognizer: true, model: true });
    const recognizer = join(searchPath.split(delimiter)[1]!, 'pocketsphinx_continuous');
    for (const choice of [undefined, '', 'pocketsphinx']) {
      await expect(localTranscription(choice, searchPath)).resolves.toEqual({
        environment: { TRANSCRIPTION_PROVIDER: 'pocketsphinx', POCKETSPHINX_PATH: recognizer },
        summary: `Transcription: pocketsphinx (captions and titles on; ${recognizer})`,
      });
    }
  });

  it('follows a link to the recognizer to find the model beside it', async () => {
    const searchPath = await searchPathWith({ recognizer: true, model: true });
    const installed = join(searchPath.split(delimiter)[1]!, 'pocketsphinx_continuous');
    const linked = await mkdtemp(join(tmpdir(), 'speech-link-'));
    prefixes.push(linked);
    await symlink(installed, join(linked, 'pocketsphinx_continuous'));
    await expect(localTranscription(undefined, linked)).resolves.toMatchObject({
      environment: { TRANSCRIPTION_PROVIDER: 'pocketsphinx', POCKETSPHINX_PATH: await realpath(installed) },
    });
  });

  it.each([
    ['no recognizer', { recognizer: false, model: false }],
    ['the recognizer without its English model', { recognizer: true, model: false }],
    ['the model without the recognizer', { recognizer: false, model: true }],
  ])('is none with %s, and says what to install', async (_case, parts) => {
    await expect(localTranscription(undefined, await searchPathWith(parts))).resolves.toEqual({
      environment: { TRANSCRIPTION_PROVIDER: 'none' },
      summary:
        "Transcription: none — install Debian's pocketsphinx pocketsphinx-en-us " +
        '(apt-get install pocketsphinx pocketsphinx-en-us) for captions and titles',
    });
  });

  it('is none when TRANSCRIPTION_PROVIDER says so, even with the recognizer installed', async () => {
    const searchPath = await searchPathWith({ recognizer: true, model: true });
    await expect(localTranscription('none', searchPath)).resolves.toEqual({
      environment: { TRANSCRIPTION_PROVIDER: 'none' },
      summary: 'Transcription: none (TRANSCRIPTION_PROVIDER=none): clips get no captions or titles',
    });
  });

  it('stops the start when TRANSCRIPTION_PROVIDER asks for the recognizer and it is missing', async () => {
    const searchPath = await searchPathWith({ recognizer: true, model: false });
    await expect(localTranscription('pocketsphinx', searchPath)).rejects.toThrow(
      "TRANSCRIPTION_PROVIDER=pocketsphinx, but pocketsphinx_continuous or its English model is missing: install Debian's pocketsphinx pocketsphinx-en-us",
    );
  });

  it('refuses Amazon Transcribe, which the local stack cannot reach, and any other provider', async () => {
    for (const choice of ['amazon-transcribe', 'whisper']) {
      await expect(localTranscription(choice, '')).rejects.toThrow(
        `TRANSCRIPTION_PROVIDER must be pocketsphinx or none on the local stack, got "${choice}"`,
      );
    }
  });
});
