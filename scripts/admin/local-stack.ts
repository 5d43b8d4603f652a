import { processExists, readStackInfo, stackInfoPath, type StackInfo } from '../../local/stack-info';

/** How long /healthz gets to answer: a running stack answers at once. */
const HEALTH_TIMEOUT_MS = 2000;

export class LocalStackNotRunning extends Error {
  constructor(dataDir: string, reason: string) {
    super(
      `The local stack in ${dataDir} is not running (${reason}); start it with npm start, or set TABLE_NAME for a deployed stack.`,
    );
  }
}

async function healthStatus(url: string): Promise<number | undefined> {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(HEALTH_TIMEOUT_MS) })).status;
  } catch {
    return undefined;
  }
}

/**
 * The stack info of the local stack running on `dataDir`. A stopped stack leaves its stack.json
 * behind, so the file alone proves nothing: its process must be alive (a pid the system has since
 * given to another program is caught next) and its /healthz must answer 200.
 */
export async function findRunningLocalStack(dataDir: string): Promise<StackInfo> {
  const info = await readStackInfo(dataDir);
  if (!info)
    throw new LocalStackNotRunning(dataDir, `no stack has started there: ${stackInfoPath(dataDir)} is missing`);
  if (!processExists(info.pid)) throw new LocalStackNotRunning(dataDir, `its process ${info.pid} has ended`);
  const healthUrl = new URL('/healthz', info.apiUrl).href;
  const status = await healthStatus(healthUrl);
  if (status === undefined) throw new LocalStackNotRunning(dataDir, `${healthUrl} does not answer`);
  if (status !== 200) throw new LocalStackNotRunning(dataDir, `${healthUrl} answers ${status}`);
  return info;
}
