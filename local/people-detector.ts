import { existsSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PEOPLE_DETECTOR_DIR } from '#platform/settings';
import { peopleDetectorContents, writePeopleDetectorDirectory } from '../lib/people-detector-directory';

/**
 * The people detector's directory on this machine (lambdas/platform/people-detector-files.ts),
 * written once per version of the packages it is made from into the system's temporary
 * directory, as the layer is in AWS. Written beside and renamed into place, so that processes
 * starting together (the stack, test workers) never read a half-written one.
 */

let prepared: string | undefined;

export function localPeopleDetectorDirectory(): string {
  if (prepared) return prepared;
  const directory = join(tmpdir(), `people-detector-${peopleDetectorContents()}`);
  if (!existsSync(directory)) {
    const staging = mkdtempSync(`${directory}-`);
    writePeopleDetectorDirectory(staging);
    try {
      renameSync(staging, directory);
    } catch (error) {
      rmSync(staging, { recursive: true, force: true });
      if (!existsSync(directory)) throw error;
    }
  }
  prepared = directory;
  return directory;
}

/** The people-detector setting for the functions the local stack runs. */
export function peopleDetectorEnvironment(): Record<string, string> {
  return { [PEOPLE_DETECTOR_DIR.variable]: localPeopleDetectorDirectory() };
}
