import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freeLoopbackPort } from '../../local/emulators/child-processes';
import { stackDataDir } from '../support/stack-data-dir';

/**
 * `npm start`, `npm run console` and `npm run listen` stopped the way a tool or a person stops
 * them: a signal to the pid they got back, which is npm's, not the stack's. Each runs in a process
 * group of its own, so that whatever it started, however deep, is found (and cleaned up) by group.
 */

const PROJECT_ROOT = join(__dirname, '..', '..');

/** How long a stopped script gets until every process it started is gone: the stack's stop takes a few seconds. */
const STOP_TIMEOUT_MS = 20_000;

interface NpmScript {
  child: ChildProcess;
  output: () => string;
}

/**
 * `--ignore-scripts` skips prestart, which is not under test and would run `npm ci` when the lock
 * file is newer than node_modules; the script itself still runs.
 */
function runNpm(args: string[], environment: Record<string, string>): NpmScript {
  let output = '';
  const child = spawn('npm', ['--ignore-scripts', ...args], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, ...environment },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return { child, output: () => output };
}

/** The live processes (zombies are gone, only not yet reaped) of a process group, as `ps` lines. */
async function groupMembers(group: number): Promise<string[]> {
  const { stdout } = await promisify(execFile)('ps', ['-A', '-o', 'pid=,pgid=,stat=,args=']);
  return stdout
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter(([, pgid, stat]) => Number(pgid) === group && !stat?.startsWith('Z'))
    .map((fields) => fields.join(' '));
}

async function answers(url: string): Promise<boolean> {
  try {
    await fetch(url, { signal: AbortSignal.timeout(1000) });
    return true;
  } catch {
    return false;
  }
}

async function until(condition: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await condition()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function printed(script: NpmScript, pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray> {
  let match: RegExpExecArray | null = null;
  await until(
    async () => Boolean((match = pattern.exec(script.output()))) || script.child.exitCode !== null,
    timeoutMs,
  );
  if (!match)
    throw new Error(`npm ${script.child.spawnargs.slice(2).join(' ')} never printed ${pattern}:\n${script.output()}`);
  return match;
}

/** Whatever a failed test left of a group. */
function killGroup(group: number | undefined) {
  if (group === undefined) return;
  try {
    process.kill(-group, 'SIGKILL');
  } catch {
    // Nothing left of it.
  }
}

/** The stack's own process in a `ps` line of groupMembers (not a shell running it). */
const STACK_PROCESS = /^\d+ \d+ \S+ \S*node --import tsx local\/main\.ts/m;

/** The pid of the group's process whose command line matches. */
async function memberRunning(group: number, command: RegExp): Promise<number> {
  const line = (await groupMembers(group)).find((member) => command.test(member));
  if (!line) throw new Error(`No process of group ${group} runs ${command}: ${(await groupMembers(group)).join('\n')}`);
  return Number(line.split(' ')[0]);
}

describe('npm start, stopped through the pid npm start gave', () => {
  let dataDir: string;
  let script: NpmScript | undefined;
  let health: string;

  beforeEach(async () => {
    dataDir = await stackDataDir('npm-start-signals-');
    const port = await freeLoopbackPort();
    health = `http://127.0.0.1:${port}/healthz`;
    script = runNpm(['start'], { PORT: String(port), LOCAL_DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
    await printed(script, /^Local stack ready: /m, 90_000);
  }, 120_000);

  afterEach(async () => {
    killGroup(script?.child.pid);
    await rm(dataDir, { recursive: true, force: true });
  });

  async function expectAllGone(group: number) {
    await until(async () => !(await answers(health)) && (await groupMembers(group)).length === 0, STOP_TIMEOUT_MS);
    expect({ healthAnswers: await answers(health), left: await groupMembers(group) }).toEqual({
      healthAnswers: false,
      left: [],
    });
  }

  it('SIGTERM to npm stops the stack: /healthz goes quiet and no process it started is left', async () => {
    const npm = script!.child.pid!;
    // Every piece is there to be stopped (tsx starts an esbuild only when its cache misses).
    const running = (await groupMembers(npm)).join('\n');
    for (const piece of [STACK_PROCESS, /fauxqs-process/, /DynamoDBLocal/]) expect(running).toMatch(piece);
    process.kill(npm, 'SIGTERM');
    await expectAllGone(npm);
    expect(script!.output()).toContain('SIGTERM: stopping the local stack');
  }, 60_000);

  it('SIGKILL to npm: the stack notices that npm is gone and stops, leaving no process behind', async () => {
    const npm = script!.child.pid!;
    process.kill(npm, 'SIGKILL');
    await expectAllGone(npm);
    expect(script!.output()).toContain(`Its parent process ${npm} ended: stopping the local stack`);
  }, 60_000);

  it("SIGKILL to the stack's own process: DynamoDB Local and fauxqs end with it", async () => {
    const group = script!.child.pid!;
    process.kill(await memberRunning(group, STACK_PROCESS), 'SIGKILL');
    await expectAllGone(group);
  }, 60_000);
});

/** Just enough of the API for the console's key check and listen's first page of events. */
function fakeApi(): Server {
  return createServer((request, response) => {
    const answer = request.url?.startsWith('/api/v1/developer/me')
      ? { organization_id: 1, environment: 'test', key_prefix: 'abc' }
      : { data: [], pagination: { next_cursor: null } };
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
  });
}

describe('npm run console and npm run listen, stopped through the pid npm gave', () => {
  let api: Server;
  let apiUrl: string;
  let stateDir: string;
  let script: NpmScript | undefined;

  beforeEach(async () => {
    api = fakeApi();
    const port = await freeLoopbackPort();
    await new Promise<void>((resolve) => api.listen(port, '127.0.0.1', resolve));
    apiUrl = `http://127.0.0.1:${port}/api/v1/developer`;
    stateDir = await mkdtemp(join(tmpdir(), 'listen-signals-'));
  });

  afterEach(async () => {
    killGroup(script?.child.pid);
    api.closeAllConnections();
    await new Promise((resolve) => api.close(resolve));
    await rm(stateDir, { recursive: true, force: true });
  });

  it('SIGTERM to npm stops the console: its page goes quiet and no process is left', async () => {
    script = runNpm(['run', 'console', '--', '--port', '0', '--api-url', apiUrl], { API_KEY: 'svc_test_abc_secret' });
    const [, link] = await printed(script, /^Open (\S+)$/m, 30_000);
    const npm = script.child.pid!;
    expect(await answers(link!)).toBe(true);

    process.kill(npm, 'SIGTERM');
    await until(async () => !(await answers(link!)) && (await groupMembers(npm)).length === 0, STOP_TIMEOUT_MS);
    expect({ pageAnswers: await answers(link!), left: await groupMembers(npm) }).toEqual({
      pageAnswers: false,
      left: [],
    });
  }, 60_000);

  it('SIGINT to npm stops listen: it says so and no process is left', async () => {
    script = runNpm(
      [
        'run',
        'listen',
        '--',
        '--forward-to',
        'http://127.0.0.1:9/hooks',
        '--api-url',
        apiUrl,
        '--state-file',
        join(stateDir, 'listen.json'),
      ],
      { API_KEY: 'svc_test_abc_secret' },
    );
    await printed(script, /Waiting for the first event\./, 30_000);
    const npm = script.child.pid!;

    process.kill(npm, 'SIGINT');
    await until(async () => (await groupMembers(npm)).length === 0, STOP_TIMEOUT_MS);
    expect(await groupMembers(npm)).toEqual([]);
    expect(script.output()).toMatch(/Stopped\.$/m);
  }, 60_000);
});
