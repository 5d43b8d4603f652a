import type { ChildProcess } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';

/** How long an emulator gets to shut down on SIGTERM before it is killed. */
const STOP_GRACE_MS = 5000;

/**
 * Answers a loopback port nobody listens on: the one asked for (failing with EADDRINUSE if it is
 * taken, rather than letting an emulator start and quietly talk to whatever holds it), or one the
 * OS picks. The emulator binds it a moment later, a small race we accept.
 */
export async function freeLoopbackPort(wanted = 0): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(wanted, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** How many ports an emulator is started on, at most, when the ones picked for it are taken. */
const PORT_ATTEMPTS = 3;

/**
 * Starts an emulator on a port freeLoopbackPort picks, and again on a new one when the start fails
 * because another process took the port before the emulator bound it: that race is freeLoopbackPort's,
 * and the ephemeral range it picks from is also every outgoing connection's. A port the caller
 * asked for is tried once.
 */
export async function startOnFreePort<T>(wanted: number | undefined, start: (port: number) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await start(await freeLoopbackPort(wanted));
    } catch (error) {
      if (wanted !== undefined || attempt === PORT_ATTEMPTS || !saysPortTaken(error)) throw error;
    }
  }
}

/** Whether a failed start says its port was taken: Node's EADDRINUSE, or Jetty's (DynamoDB Local's) bind failure. */
function saysPortTaken(error: unknown): boolean {
  return error instanceof Error && /EADDRINUSE|Failed to bind to/.test(error.message);
}

function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

/** Resolves once the child is gone (at once if it already is). */
function whenExited(child: ChildProcess): Promise<void> {
  if (hasExited(child)) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** SIGTERM (or the signal given), then SIGKILL if the child is still there after the grace period. */
export async function stopChildProcess(
  child: ChildProcess,
  graceMs = STOP_GRACE_MS,
  signal: NodeJS.Signals = 'SIGTERM',
): Promise<void> {
  // No pid: the spawn itself failed (e.g. ENOENT), there is nothing to stop and no 'exit' will come.
  if (child.pid === undefined || hasExited(child)) return;
  const exited = whenExited(child);
  child.kill(signal);
  const killTimer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  try {
    await exited;
  } finally {
    clearTimeout(killTimer);
  }
}

/**
 * Children still running when this process exits (normally, by process.exit or by an uncaught
 * exception) get a SIGTERM on the way out. A parent killed outright never runs 'exit' handlers:
 * each emulator has its own way to notice that (see dynamodb.ts and s3-sqs.ts).
 */
const liveChildren = new Set<ChildProcess>();
let exitHookInstalled = false;

export function stopWithThisProcess(child: ChildProcess): void {
  liveChildren.add(child);
  child.once('exit', () => liveChildren.delete(child));
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const running of liveChildren) running.kill('SIGTERM');
  });
}

/** Keeps the last bytes a child printed, to explain a failed start; echoes them when LOCAL_DEBUG is set. */
export function recordOutput(child: ChildProcess, label: string, limit = 8192): () => string {
  let tail = '';
  const onData = (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    tail = (tail + text).slice(-limit);
    if (process.env.LOCAL_DEBUG) {
      for (const line of text.split('\n')) if (line.trim()) process.stderr.write(`[${label}] ${line}\n`);
    }
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  return () => tail.trim();
}
