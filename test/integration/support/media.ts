import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ffmpeg from '@ffmpeg-installer/ffmpeg';

/** Real media files made with the same ffmpeg the local renderer uses. */
export function makeMedia(
  kind: 'mp4' | 'png',
  options: { width?: number; height?: number; seconds?: number } = {},
): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'media-'));
  try {
    const file = join(dir, `sample.${kind}`);
    const size = `${options.width ?? 64}x${options.height ?? 64}`;
    const args =
      kind === 'mp4'
        ? [
            '-f',
            'lavfi',
            '-i',
            `testsrc=size=${size}:rate=10:duration=${options.seconds ?? 1}`,
            '-pix_fmt',
            'yuv420p',
            '-movflags',
            '+faststart',
          ]
        : ['-f', 'lavfi', '-i', `testsrc=size=${size}:rate=1:duration=1`, '-frames:v', '1'];
    execFileSync(ffmpeg.path, ['-hide_banner', '-loglevel', 'error', '-y', ...args, file]);
    return readFileSync(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
