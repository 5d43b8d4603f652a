import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findMediaTool } from '../../local/media-tools';

/**
 * Which ffprobe the local stack chooses when the one on PATH, or the one FFPROBE_PATH names, does
 * not run: fake binaries, shell scripts in a folder that is the whole PATH.
 */

const LOADER_ERROR =
  'error while loading shared libraries: libavdevice.so.59: cannot open shared object file: No such file or directory';

/** An ffprobe as a partial upgrade leaves it: the dynamic loader refuses it and exits 127. */
const BROKEN = `#!/bin/sh\necho "$0: ${LOADER_ERROR}" >&2\nexit 127\n`;
const WORKING = '#!/bin/sh\necho "ffprobe version 9.9-fake Copyright (c) the fakes"\n';

describe('choosing ffprobe for the local stack', () => {
  let directory: string;
  let warnings: string[];
  const warn = (line: string) => warnings.push(line);

  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), 'media-tools-'));
    warnings = [];
  });

  afterEach(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  async function fake(name: string, script: string): Promise<string> {
    const path = join(directory, name);
    await writeFile(path, script);
    await chmod(path, 0o755);
    return path;
  }

  it('passes over an ffprobe on PATH that does not run, says so in one line, and takes the npm one', async () => {
    const broken = await fake('ffprobe', BROKEN);

    const chosen = await findMediaTool('ffprobe', { environment: { PATH: directory }, warn });

    expect(chosen).toMatchObject({ source: 'npm', version: expect.stringMatching(/^ffprobe version /) });
    expect(chosen.path).not.toBe(broken);
    expect(warnings).toEqual([
      `The ffprobe on PATH, ${broken}, does not run (${broken}: ${LOADER_ERROR}): using the npm package's; set FFPROBE_PATH to choose another`,
    ]);
  });

  it('takes an ffprobe on PATH that runs, without a word', async () => {
    const working = await fake('ffprobe', WORKING);

    await expect(findMediaTool('ffprobe', { environment: { PATH: directory }, warn })).resolves.toEqual({
      path: working,
      source: 'PATH',
      version: 'ffprobe version 9.9-fake Copyright (c) the fakes',
    });
    expect(warnings).toEqual([]);
  });

  it('refuses an FFPROBE_PATH that does not run, naming the variable, even with a working one on PATH', async () => {
    await fake('ffprobe', WORKING);
    const broken = await fake('ffprobe-6', BROKEN);

    await expect(
      findMediaTool('ffprobe', { environment: { PATH: directory, FFPROBE_PATH: broken }, warn }),
    ).rejects.toThrow(
      `FFPROBE_PATH names ${broken}, which does not run (${broken}: ${LOADER_ERROR}): set FFPROBE_PATH to a working ffprobe, or unset it to use the one on PATH or the npm package's`,
    );
  });

  it('refuses an FFPROBE_PATH naming no file', async () => {
    const missing = join(directory, 'nothing-here');

    await expect(
      findMediaTool('ffprobe', { environment: { PATH: directory, FFPROBE_PATH: missing }, warn }),
    ).rejects.toThrow(
      new RegExp(`^FFPROBE_PATH names ${missing}, which does not run \\(.*ENOENT.*\\): set FFPROBE_PATH`),
    );
  });

  it('takes the FFPROBE_PATH that runs over the one on PATH', async () => {
    await fake('ffprobe', BROKEN);
    const named = await fake('ffprobe-7', WORKING);

    await expect(
      findMediaTool('ffprobe', { environment: { PATH: directory, FFPROBE_PATH: named }, warn }),
    ).resolves.toMatchObject({ path: named, source: 'environment' });
    expect(warnings).toEqual([]);
  });
});
