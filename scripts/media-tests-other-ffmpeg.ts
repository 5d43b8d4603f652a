import { spawnSync } from 'node:child_process';
import { realpath } from 'node:fs/promises';
import { MEDIA_TOOL_SETTINGS, type MediaTool } from '#platform/media-tools';
import { findMediaTool, npmMediaTool, type ResolvedMediaTool } from '../local/media-tools';

/**
 * The second ffmpeg `npm test` runs on. Jest runs every test on the ffmpeg and ffprobe the stack
 * picks (FFMPEG_PATH/FFPROBE_PATH, else PATH, else the npm static builds); where that is not the
 * npm builds, the split jobs' media tests (analysis, rendering, captions drawn in, probing) run
 * here first on the npm builds, which AWS runs unless a layer of its own is set. So both the 2018
 * build and a current one, Debian's where `npm test` could install it, are tried on every run.
 * Where the stack picks the npm builds there is no other to try, and one line says so.
 */

const MEDIA_TESTS = [
  'test/unit/source-analysis.test.ts',
  'test/unit/clip-rendering.test.ts',
  'test/unit/burnt-in-captions-render.test.ts',
  'test/unit/video-probe.test.ts',
];

const TOOLS: readonly MediaTool[] = ['ffmpeg', 'ffprobe'];

/** `ffmpeg version 5.1.9-0+deb12u1` of the whole `-version` line. */
const shortVersion = (tool: ResolvedMediaTool) => tool.version.split(' ').slice(0, 3).join(' ');

async function main(): Promise<number> {
  const picked = await Promise.all(TOOLS.map((tool) => findMediaTool(tool, { warn: () => undefined })));
  const npm = await Promise.all(TOOLS.map((tool) => npmMediaTool(tool)));
  const samePaths = await Promise.all(
    picked.map(async (tool, index) => (await realpath(tool.path)) === (await realpath(npm[index]!.path))),
  );
  const [stack, bundled] = [picked[0]!, npm[0]!];
  if (samePaths.every(Boolean)) {
    console.log(
      `Media tests on one ffmpeg: the stack picks the npm build (${shortVersion(bundled)}), there is no other to compare.`,
    );
    return 0;
  }
  console.log(
    `Media tests on the npm builds (${shortVersion(bundled)}); then every test on ${shortVersion(stack)} (${stack.source}).`,
  );
  const environment = Object.fromEntries(
    TOOLS.map((tool, index) => [MEDIA_TOOL_SETTINGS[tool].variable, npm[index]!.path]),
  );
  const jest = spawnSync(
    process.execPath,
    [require.resolve('jest/bin/jest'), '--selectProjects', 'unit', '--', ...MEDIA_TESTS],
    {
      stdio: 'inherit',
      env: { ...process.env, ...environment },
    },
  );
  return jest.status ?? 1;
}

void main().then((code) => {
  process.exitCode = code;
});
