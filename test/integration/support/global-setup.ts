import { spawn } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';

/** Integration tests share one real local stack, started exactly as `npm start` starts it. */
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

async function waitForHealth(url: string, child: ReturnType<typeof spawn>, log: () => string) {
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

export default async function globalSetup() {
  const dataDir = await mkdtemp(join(tmpdir(), 'video-api-it-'));
  const port = await freePort();
  let output = '';
  const child = spawn(process.execPath, ['--import', 'tsx', 'local/main.ts'], {
    cwd: join(__dirname, '..', '..', '..'),
    env: {
      ...process.env,
      PORT: String(port),
      LOCAL_DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      VIDEO_RENDER_POLL_SECONDS: '1',
      VIDEO_RENDER_DEADLINE_SECONDS: '20',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  await waitForHealth(`http://127.0.0.1:${port}/healthz`, child, () => output);
  const info = JSON.parse(await readFile(join(dataDir, 'stack.json'), 'utf8')) as {
    apiUrl: string;
    environment: Record<string, string>;
  };
  process.env.IT_DATA_DIR = dataDir;
  process.env.IT_BASE_URL = `http://127.0.0.1:${port}`;
  process.env.IT_API_URL = info.apiUrl;
  process.env.IT_STACK_ENVIRONMENT = JSON.stringify(info.environment);
  process.env.IT_STARTUP_OUTPUT = output;
  (globalThis as { __localStack?: unknown }).__localStack = child;
}
