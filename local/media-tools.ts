import { execFile } from 'node:child_process';
import { access, constants } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { MEDIA_TOOL_SETTINGS, type MediaTool } from '#platform/media-tools';

/**
 * Which ffmpeg and ffprobe the local stack hands its functions (through FFMPEG_PATH and
 * FFPROBE_PATH, as the CDK app does in AWS): the one the environment names, else the one on PATH
 * (a distribution's build is usually years newer, and these decode untrusted uploads), else the
 * static build that the npm packages @ffmpeg-installer/ffmpeg and @ffprobe-installer/ffprobe ship,
 * so that `npm start` works on a machine with neither.
 */

export interface ResolvedMediaTool {
  path: string;
  source: 'environment' | 'PATH' | 'npm';
  /** The first line of `-version`. */
  version: string;
}

const NPM_PACKAGES: Readonly<Record<MediaTool, string>> = {
  ffmpeg: '@ffmpeg-installer/ffmpeg',
  ffprobe: '@ffprobe-installer/ffprobe',
};

/** The first executable named `name` in the directories of `searchPath` (PATH unless given). */
export async function onPath(name: string, searchPath = process.env.PATH ?? ''): Promise<string | undefined> {
  for (const directory of searchPath.split(delimiter).filter(Boolean)) {
    const candidate = join(directory, name);
    try {
      await access(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not in this directory.
    }
  }
  return undefined;
}

async function fromNpm(tool: MediaTool): Promise<string> {
  const installer = (await import(NPM_PACKAGES[tool])) as { path?: string; default?: { path?: string } };
  const path = installer.path ?? installer.default?.path;
  if (!path) throw new Error(`${NPM_PACKAGES[tool]} did not report a binary path`);
  return path;
}

async function versionOf(path: string): Promise<string> {
  const { stdout } = await promisify(execFile)(path, ['-version'], { timeout: 10_000 });
  return stdout.split('\n')[0]?.trim() ?? '';
}

/** Why a binary did not run, in one line: the last it printed on stderr (the loader's complaint), else the error's first. */
function failure(error: unknown): string {
  const { stderr, message } = error as { stderr?: string; message: string };
  const said = stderr
    ?.split('\n')
    .filter((line) => line.trim())
    .pop();
  return (said ?? message.split('\n')[0] ?? '').trim();
}

/** Where to look, and where a tool on PATH that does not run is reported: this process's own unless a test says. */
export interface MediaToolLookup {
  environment?: NodeJS.ProcessEnv;
  warn?: (line: string) => void;
}

/**
 * Every candidate is run with `-version` before it is chosen: a distribution's ffprobe whose shared
 * library is missing (a partial upgrade, a copied binary) is found on PATH all the same. One on
 * PATH that does not run is passed over, said in one line, for the npm build; one the variable
 * names stops the start, since the operator asked for that one.
 */
export async function findMediaTool(
  tool: MediaTool,
  { environment = process.env, warn = console.warn }: MediaToolLookup = {},
): Promise<ResolvedMediaTool> {
  const { variable } = MEDIA_TOOL_SETTINGS[tool];
  const named = environment[variable];
  if (named) {
    try {
      return { path: named, source: 'environment', version: await versionOf(named) };
    } catch (error) {
      throw new Error(
        `${variable} names ${named}, which does not run (${failure(error)}): set ${variable} to a working ${tool}, or unset it to use the one on PATH or the npm package's`,
      );
    }
  }
  const onThisPath = await onPath(tool, environment.PATH ?? '');
  if (onThisPath) {
    try {
      return { path: onThisPath, source: 'PATH', version: await versionOf(onThisPath) };
    } catch (error) {
      warn(
        `The ${tool} on PATH, ${onThisPath}, does not run (${failure(error)}): using the npm package's; set ${variable} to choose another`,
      );
    }
  }
  return npmMediaTool(tool);
}

/** The npm package's static build of the tool: the last resort of findMediaTool. */
export async function npmMediaTool(tool: MediaTool): Promise<ResolvedMediaTool> {
  const path = await fromNpm(tool);
  return { path, source: 'npm', version: await versionOf(path) };
}

const resolved = new Map<MediaTool, Promise<ResolvedMediaTool>>();

/** findMediaTool in this process's environment, once per tool. */
export function resolveMediaTool(tool: MediaTool): Promise<ResolvedMediaTool> {
  let result = resolved.get(tool);
  if (!result) {
    result = findMediaTool(tool);
    resolved.set(tool, result);
  }
  return result;
}

/** The tools' paths for the functions the local stack runs, in their settings' variables. */
export async function mediaToolEnvironment(): Promise<Record<string, string>> {
  const [ffmpeg, ffprobe] = await Promise.all([resolveMediaTool('ffmpeg'), resolveMediaTool('ffprobe')]);
  return {
    [MEDIA_TOOL_SETTINGS.ffmpeg.variable]: ffmpeg.path,
    [MEDIA_TOOL_SETTINGS.ffprobe.variable]: ffprobe.path,
  };
}
