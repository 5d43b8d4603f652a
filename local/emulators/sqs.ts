import { fork, type ChildProcess } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { recordOutput, startOnFreePort, stopChildProcess, stopWithThisProcess } from './child-processes';

export interface SqsOptions {
  /** Where fauxqs keeps its SQLite database (queues and messages); created if missing. */
  dataDir: string;
  /** Defaults to a free port. */
  port?: number;
}

export interface SqsEmulator {
  /**
   * `http://127.0.0.1:<port>`. Queue URLs are `http://127.0.0.1:<port>/000000000000/<name>`, on the current port even for
   * queues created before a restart.
   */
  endpoint: string;
  /** The Node process running fauxqs. */
  pid: number;
  /** SIGTERM (fauxqs closes its database), SIGKILL after 5 s; resolves once the process is gone. */
  stop(): Promise<void>;
}

const READY_TIMEOUT_MS = 15_000;

/** See the comment at its top for why fauxqs runs in a child process. */
const FAUXQS_PROCESS_SCRIPT = join(__dirname, 'fauxqs-process.mjs');

/**
 * Starts fauxqs as SQS on 127.0.0.1, state persisted in dataDir, and waits until it listens. (It
 * also serves S3, but buffers every body in memory: the local stack's S3 is s3/s3-server.ts.)
 */
export async function startSqs({ dataDir, port }: SqsOptions): Promise<SqsEmulator> {
  const root = resolve(dataDir);
  await mkdir(root, { recursive: true });
  // Chosen here, not by fauxqs: the child names its queue URLs after the port before it listens.
  return startOnFreePort(port, (wantedPort) => startOnPort(root, wantedPort));
}

async function startOnPort(root: string, wantedPort: number): Promise<SqsEmulator> {
  const startedAt = performance.now();
  const child = fork(FAUXQS_PROCESS_SCRIPT, [String(wantedPort), root], {
    // Not our own flags (tsx or Jest loaders): plain Node. fauxqs persists through node:sqlite,
    // which warns on every start that it is experimental.
    execArgv: ['--disable-warning=ExperimentalWarning'],
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  stopWithThisProcess(child);
  const output = recordOutput(child, 'sqs');
  const stop = () => stopChildProcess(child);
  let boundPort: number;
  try {
    boundPort = await listeningPort(child, output);
  } catch (error) {
    await stop();
    throw error;
  }
  const endpoint = `http://127.0.0.1:${boundPort}`;
  if (process.env.LOCAL_DEBUG) {
    console.error(
      `[sqs] fauxqs ready at ${endpoint} in ${Math.round(performance.now() - startedAt)} ms (pid ${child.pid}, data ${root})`,
    );
  }
  return { endpoint, pid: child.pid as number, stop };
}

function listeningPort(child: ChildProcess, output: () => string): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const timer = setTimeout(
      () => fail(new Error(`fauxqs did not start within ${READY_TIMEOUT_MS} ms:\n${output()}`)),
      READY_TIMEOUT_MS,
    );
    const onMessage = (message: { port?: unknown }) => {
      if (typeof message?.port !== 'number') return;
      cleanUp();
      resolvePort(message.port);
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
      fail(new Error(`fauxqs exited while starting (code ${code}, signal ${signal}):\n${output()}`));
    };
    const onError = (error: Error) => fail(new Error(`Could not start fauxqs: ${error.message}`));
    function cleanUp() {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('close', onExit);
      child.off('error', onError);
    }
    function fail(error: Error) {
      cleanUp();
      reject(error);
    }
    child.on('message', onMessage);
    // 'close' rather than 'exit': by then the output explaining the failure has all been read.
    child.once('close', onExit);
    child.once('error', onError);
  });
}
