import { spawnSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync } from 'node:zlib';
import { systemChromium, unpack } from '../../scripts/chromium.cjs';

let scratch: string;
const saved = { ...process.env };
beforeEach(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'chromium-resolver-'));
  delete process.env.CHROMIUM_PATH;
  delete process.env.CHROMIUM_FROM_NPM;
});
afterEach(async () => {
  process.env = { ...saved };
  await rm(scratch, { recursive: true, force: true });
});

/** A directory holding an executable `chromium`, as Debian's /usr/bin does. */
async function dirWithChromium(): Promise<string> {
  const dir = join(scratch, 'bin');
  await mkdir(dir);
  await writeFile(join(dir, 'chromium'), '#!/bin/sh\n');
  await chmod(join(dir, 'chromium'), 0o755);
  return dir;
}

describe('which Chromium the browser tests drive', () => {
  it('is CHROMIUM_PATH when set, before any on PATH', async () => {
    process.env.PATH = await dirWithChromium();
    process.env.CHROMIUM_PATH = process.execPath;
    expect(systemChromium()).toEqual({ executablePath: process.execPath, from: 'CHROMIUM_PATH' });
  });

  it('says so when CHROMIUM_PATH names nothing', () => {
    process.env.CHROMIUM_PATH = join(scratch, 'nothing');
    expect(() => systemChromium()).toThrow(`No Chromium at CHROMIUM_PATH=${join(scratch, 'nothing')}.`);
  });

  it('is the `chromium` on PATH (Debian’s) without CHROMIUM_PATH', async () => {
    const dir = await dirWithChromium();
    process.env.PATH = ['', join(scratch, 'none'), dir].join(':');
    expect(systemChromium()).toEqual({ executablePath: join(dir, 'chromium'), from: 'PATH' });
  });

  it('is the npm one when none is on PATH, or when CHROMIUM_FROM_NPM=1 passes over it', async () => {
    process.env.PATH = join(scratch, 'none');
    expect(systemChromium()).toBeUndefined();
    process.env.PATH = await dirWithChromium();
    process.env.CHROMIUM_FROM_NPM = '1';
    expect(systemChromium()).toBeUndefined();
  });
});

describe('unpacking the npm package’s Chromium', () => {
  /** A bin/ laid out as @sparticuz/chromium's: the browser and a tar of its fonts, brotli-compressed. */
  async function packageBin(): Promise<string> {
    const bin = join(scratch, 'package-bin');
    const fontsSource = join(scratch, 'fonts-source');
    await mkdir(join(fontsSource, 'fonts', 'Open_Sans'), { recursive: true });
    await writeFile(join(fontsSource, 'fonts', 'Open_Sans', 'OpenSans-Regular.ttf'), 'a font');
    await writeFile(join(fontsSource, 'fonts.conf'), '<fontconfig/>');
    const tar = spawnSync('tar', ['-c', '-C', fontsSource, 'fonts.conf', 'fonts']);
    expect(tar.status).toBe(0);
    await mkdir(bin);
    await writeFile(join(bin, 'chromium.br'), brotliCompressSync(Buffer.from('#!/bin/sh\necho Chromium 1.0\n')));
    await writeFile(join(bin, 'fonts.tar.br'), brotliCompressSync(tar.stdout));
    return bin;
  }

  it('gives a runnable browser, its fonts, and a fontconfig setup naming both the system’s fonts and them', async () => {
    const target = join(scratch, 'chromium-1.0');
    await unpack(await packageBin(), target);
    expect(spawnSync(join(target, 'chromium'), { encoding: 'utf8' }).stdout).toBe('Chromium 1.0\n');
    expect(await readFile(join(target, 'fonts', 'Open_Sans', 'OpenSans-Regular.ttf'), 'utf8')).toBe('a font');
    const conf = await readFile(join(target, 'fonts.conf'), 'utf8');
    expect(conf).toContain('<include ignore_missing="yes">/etc/fonts/fonts.conf</include>');
    expect(conf).toContain(`<dir>${join(target, 'fonts')}</dir>`);
  });

  it('unpacked by several callers at once (parallel Jest workers), leaves one whole copy and no partial ones', async () => {
    const bin = await packageBin();
    const target = join(scratch, 'chromium-1.0');
    await Promise.all([unpack(bin, target), unpack(bin, target), unpack(bin, target)]);
    expect(await readdir(scratch)).toEqual(expect.arrayContaining(['chromium-1.0']));
    expect((await readdir(scratch)).filter((name) => name.includes('.partial-'))).toEqual([]);
    expect(spawnSync(join(target, 'chromium'), { encoding: 'utf8' }).stdout).toBe('Chromium 1.0\n');
  });

  it('clears what an unpack killed half-way left behind', async () => {
    const abandoned = join(scratch, 'chromium-1.0.partial-999999999-abc');
    await mkdir(abandoned);
    await writeFile(join(abandoned, 'chromium'), 'half');
    await unpack(await packageBin(), join(scratch, 'chromium-1.0'));
    expect((await readdir(scratch)).filter((name) => name.includes('.partial-'))).toEqual([]);
  });
});
