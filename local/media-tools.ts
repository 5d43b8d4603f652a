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

const resolved = new Map<MediaTool, Promise<ResolvedMediaTool>>();

export function resolveMediaTool(tool: MediaTool): Promise<ResolvedMediaTool> {
  let result = resolved.get(tool);
  if (!result) {
    result = (async () => {
      const named = process.env[MEDIA_TOOL_SETTINGS[tool].variable];
      const onThisPath = named ? undefined : await onPath(tool);
      const found: Omit<ResolvedMediaTool, 'version'> = named
        ? { path: named, source: 'environment' }
        : onThisPath
          ? { path: onThisPath, source: 'PATH' }
          : { path: await fromNpm(tool), source: 'npm' };
      return { ...found, version: await versionOf(found.path) };
    })();
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
