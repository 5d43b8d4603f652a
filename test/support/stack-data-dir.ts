import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Linux's memory-backed file system, where a file sync costs nothing. The local stack's emulators
 * keep their data in files and DynamoDB Local's SQLite syncs each write: on a disk, every request
 * of a test then cost about twice the CPU time (of DynamoDB Local and of the stack) and three
 * times the wall time. What the stack does with its data is the same on either.
 */
const MEMORY_BACKED_DIR = '/dev/shm';

/** A new, empty data directory for a local stack started by a test, in memory where the machine offers it. */
export function stackDataDir(prefix: string): Promise<string> {
  return mkdtemp(join(existsSync(MEMORY_BACKED_DIR) ? MEMORY_BACKED_DIR : tmpdir(), prefix));
}
