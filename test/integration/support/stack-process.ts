import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { stopChildProcess } from '../../../local/emulators/child-processes';
import { readStackInfo } from '../../../local/stack-info';

/** A local stack in a process of its own, started exactly as `npm start` starts it. */
export interface StackProcess {
  child: ChildProcess;
  port: number;
  apiUrl: string;
  environment: Record<string, string>;
  output: () => string;
}

const PROJECT_ROOT = join(__dirname, '..', '..', '..');

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function waitForHealth(url: string, child: ChildProcess, log: () => string) {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`The local stack exited early:\n${log()}`);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
      if (response.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`The local stack did not become healthy:\n${log()}`);
}

/**
 * This process's environment without the shared stack's variables, which tests that use the
 * operator's domain functions copy in (support/stack.ts): a stack or CLI of a data dir of its
 * own must find its own table, queues and settings, not the shared stack's.
 */
function ownEnvironment(): NodeJS.ProcessEnv {
  const shared = Object.keys(JSON.parse(process.env.IT_STACK_ENVIRONMENT ?? '{}') as Record<string, string>);
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !shared.includes(name)));
}

export async function startStackProcess(
  dataDir: string,
  environment: Record<string, string> = {},
): Promise<StackProcess> {
  const port = await freePort();
  let output = '';
  const child = spawn(process.execPath, ['--import', 'tsx', 'local/main.ts'], {
    cwd: PROJECT_ROOT,
    env: {
      ...ownEnvironment(),
      PORT: String(port),
      LOCAL_DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      VIDEO_RENDER_POLL_SECONDS: '1',
      VIDEO_RENDER_DEADLINE_SECONDS: '40',
      // The stand-in for the video model at its cheapest: the finishing step's encode is what the tests check.
      LOCAL_RENDERER_PRESET: 'ultrafast',
      // The longest retry wait (5 h) scaled to under a second, SQS's shortest delay: six attempts in about 5 s.
      WEBHOOK_RETRY_SCALE: '0.00005',
      ...environment,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  await waitForHealth(`http://127.0.0.1:${port}/healthz`, child, () => output);
  const info = await readStackInfo(dataDir);
  if (!info) throw new Error(`The local stack answered /healthz but wrote no stack info in ${dataDir}:\n${output}`);
  return { child, port, apiUrl: info.apiUrl, environment: info.environment, output: () => output };
}

/** Ends the stack as an operator would (SIGTERM), or kills it outright when `signal` says so. */
export async function stopStackProcess({ child }: Pick<StackProcess, 'child'>, signal: NodeJS.Signals = 'SIGTERM') {
  await stopChildProcess(child, 15_000, signal);
  child.stdout?.destroy();
  child.stderr?.destroy();
}

/**
 * Runs the operator CLI exactly as an operator would, against the local stack of `dataDir`
 * (or, with TABLE_NAME among `environment`, against the deployed stack that names).
 */
export function runAdmin(
  dataDir: string,
  args: string[],
  environment: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'scripts/admin.ts', ...args],
      { cwd: PROJECT_ROOT, env: { ...ownEnvironment(), LOCAL_DATA_DIR: dataDir, ...environment } },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** The operator CLI's `--json` answer against the local stack of `dataDir`; a non-zero exit throws with its stderr. */
export async function adminJson(dataDir: string, ...args: string[]): Promise<Record<string, unknown>> {
  const { code, stdout, stderr } = await runAdmin(dataDir, [...args, '--json']);
  if (code !== 0) throw new Error(`admin ${args.join(' ')} exited ${code}:\n${stderr}`);
  return JSON.parse(stdout) as Record<string, unknown>;
}
