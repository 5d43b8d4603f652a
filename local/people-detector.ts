import { PEOPLE_DETECTOR_DIR } from '#platform/settings';
import { peopleDetectorBuild, writePeopleDetectorDirectory } from '../lib/people-detector-directory';
import { preparedDirectory } from './prepared-directory';

/**
 * The people detector's directory on this machine (lambdas/platform/people-detector-files.ts),
 * written once per build (the packages it is made from and the worker's code), as the layer is in AWS.
 */

let prepared: string | undefined;

export function localPeopleDetectorDirectory(): string {
  prepared ??= preparedDirectory(`people-detector-${peopleDetectorBuild()}`, writePeopleDetectorDirectory);
  return prepared;
}

/** The people-detector setting for the functions the local stack runs. */
export function peopleDetectorEnvironment(): Record<string, string> {
  return { [PEOPLE_DETECTOR_DIR.variable]: localPeopleDetectorDirectory() };
}
