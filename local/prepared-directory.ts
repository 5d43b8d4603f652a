import { existsSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A directory the local stack makes as a layer is made in AWS, once per `name` (which names its
 * contents: the versions it is made from) in the system's temporary directory. Written beside and
 * renamed into place, so that processes starting together (the stack, test workers) never read a
 * half-written one.
 */
export function preparedDirectory(name: string, write: (directory: string) => void): string {
  const directory = join(tmpdir(), name);
  if (existsSync(directory)) return directory;
  const staging = mkdtempSync(`${directory}-`);
  write(staging);
  try {
    renameSync(staging, directory);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    if (!existsSync(directory)) throw error;
  }
  return directory;
}
