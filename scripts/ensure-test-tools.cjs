// What the tests need from the system besides npm: PocketSphinx with its English model and flite
// (the speech tests make speech with flite and hear it back), Python 3 for the Python webhook
// receiver example (examples/webhook-receiver/receiver.py), and a Chromium for the console's
// browser tests (playwright-core downloads none): Debian's when installed, else the one the npm
// package @sparticuz/chromium carries (scripts/chromium.cjs), which needs Debian's NSS and expat
// libraries. On Debian or Ubuntu the missing packages are installed, as root or through sudo;
// anywhere else, or without the rights, the test run stops at once with the line to run. The npm
// Chromium is unpacked here (once per version, about 5 s) and started once, so that a browser
// that cannot start stops the run now, not in the console tests minutes later. Debian's ffmpeg is
// installed too where the rights allow, but not needed: with it the tests run on a current ffmpeg
// as well as on the npm build (scripts/media-tests-other-ffmpeg.ts). Plain CommonJS, like
// ensure-dependencies.cjs.
const { execFileSync, spawnSync } = require('node:child_process');
const { findChromium, systemChromium } = require('./chromium.cjs');

/** What the npm Chromium links to that a minimal Debian lacks (libnss3 brings libnspr4). */
const NPM_CHROMIUM_LIBRARIES = ['libnss3', 'libexpat1'];

const succeeds = (command, args) => spawnSync(command, args, { stdio: 'ignore' }).status === 0;
const debian = succeeds('dpkg-query', ['--version']);
/** Whether the browser will be the npm one (a CHROMIUM_PATH that names nothing is reported below). */
const npmChromium = (() => {
  try {
    return systemChromium() === undefined;
  } catch {
    return false;
  }
})();

const PACKAGES = [
  'pocketsphinx',
  'pocketsphinx-en-us',
  'flite',
  'python3',
  ...(npmChromium ? NPM_CHROMIUM_LIBRARIES : []),
];
const WANTED = ['ffmpeg'];
const installed = (pkg) => {
  const result = spawnSync('dpkg-query', ['-W', '-f=${Status}', pkg], { encoding: 'utf8' });
  return result.status === 0 && result.stdout.includes('ok installed');
};

function stop(message) {
  console.error(message);
  process.exit(1);
}

function onDebian() {
  const missing = PACKAGES.filter((pkg) => !installed(pkg));
  const wanted = WANTED.filter((pkg) => !installed(pkg));
  if (missing.length === 0 && wanted.length === 0) return;
  const asRoot = process.getuid?.() === 0 ? [] : succeeds('sudo', ['-n', 'true']) ? ['sudo', '-n'] : undefined;
  const line = `sudo apt-get install -y ${missing.join(' ')}`;
  if (asRoot === undefined) {
    if (missing.length > 0) stop(`npm test needs Debian packages that are not installed. Run:\n  ${line}`);
    return;
  }
  const apt = (args) => {
    const [command, ...rest] = [...asRoot, 'env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get', ...args];
    execFileSync(command, rest, { stdio: ['ignore', 'ignore', 'pipe'] });
  };
  const install = (packages) => {
    try {
      apt(['install', '-y', '-q', ...packages]);
    } catch {
      // The package lists may be missing (a fresh image) or stale: fetched only when the install needs them.
      apt(['update', '-q']);
      apt(['install', '-y', '-q', ...packages]);
    }
  };
  const reason = (error) => String(error.stderr ?? error.message).trim();
  if (missing.length > 0) {
    console.error(`Installing what the tests need from Debian: ${missing.join(' ')}...`);
    try {
      install(missing);
    } catch (error) {
      stop(`Installing ${missing.join(' ')} failed (${reason(error)}). Run:\n  ${line}`);
    }
  }
  if (wanted.length > 0) {
    console.error(`Installing Debian's ${wanted.join(' ')}, for the media tests to run on it too...`);
    try {
      install(wanted);
    } catch (error) {
      console.error(`Installing ${wanted.join(' ')} failed (${reason(error)}): the tests run on the npm build alone.`);
    }
  }
}

function elsewhere() {
  const tools = ['pocketsphinx_continuous', 'flite', 'python3'];
  const missing = tools.filter((tool) => !succeeds('sh', ['-c', `command -v ${tool}`]));
  if (missing.length > 0) {
    stop(`npm test needs ${missing.join(' and ')} on PATH (PocketSphinx with its English model, flite, Python 3).`);
  }
}

/** The browser starts, or the run stops with what it lacks. */
async function checkChromium() {
  let chromium;
  try {
    chromium = await findChromium();
  } catch (error) {
    stop(`npm test needs a Chromium: ${error.message}`);
  }
  const started = spawnSync(chromium.executablePath, ['--version'], {
    encoding: 'utf8',
    env: { ...process.env, ...chromium.env },
  });
  if (started.status === 0) return;
  const unresolved = spawnSync('ldd', [chromium.executablePath], { encoding: 'utf8' });
  const lacking = [...(unresolved.stdout ?? '').matchAll(/^\s*(\S+) => not found/gm)].map((match) => match[1]);
  stop(
    [
      `The Chromium at ${chromium.executablePath} (from ${chromium.from}) does not start: ${
        String(started.stderr || started.error?.message || '').trim() || `exit ${started.status}`
      }`,
      lacking.length > 0 ? `It lacks the libraries ${lacking.join(', ')}.` : '',
      chromium.from === 'npm' && debian
        ? `Run:\n  sudo apt-get install -y ${NPM_CHROMIUM_LIBRARIES.join(' ')}\nor set CHROMIUM_PATH to a Chromium that starts.`
        : 'Set CHROMIUM_PATH to a Chromium that starts.',
    ]
      .filter(Boolean)
      .join('\n'),
  );
}

if (debian) onDebian();
else elsewhere();
void checkChromium();
