import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * What a running local stack tells other processes (the admin CLI, tests) about itself, in
 * LOCAL_DATA_DIR/stack.json. Its own module, so that readers do not load the emulators.
 */
export interface StackInfo {
  pid: number;
  apiUrl: string;
  environment: Record<string, string>;
}

/** The data dir of the local stack: where `npm start` keeps its state and other processes find it. */
export const localDataDir = () => process.env.LOCAL_DATA_DIR ?? '.local';

export const stackInfoPath = (dataDir: string) => join(dataDir, 'stack.json');

export async function writeStackInfo(dataDir: string, info: StackInfo): Promise<void> {
  await writeFile(stackInfoPath(dataDir), `${JSON.stringify(info, null, 2)}\n`);
}

/** Whether a process of that id is running (a stopped stack leaves its stack.json and files behind). */
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process is there, only not ours to signal.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export async function readStackInfo(dataDir: string): Promise<StackInfo | undefined> {
  try {
    return JSON.parse(await readFile(stackInfoPath(dataDir), 'utf8')) as StackInfo;
  } catch {
    return undefined;
  }
}
