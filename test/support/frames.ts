import { execFileSync } from 'node:child_process';
import ffmpeg from '@ffmpeg-installer/ffmpeg';

/** Every frame of a video file as a small grey picture, in order, to compare frames with. */
export function greyFramesOf(path: string, width = 48, height = 48): Buffer[] {
  const raw = execFileSync(
    ffmpeg.path,
    ['-v', 'error', '-i', path, '-vf', `scale=${width}:${height},format=gray`, '-f', 'rawvideo', '-'],
    { maxBuffer: 256 * 1024 * 1024 },
  );
  const size = width * height;
  return Array.from({ length: raw.length / size }, (_, i) => raw.subarray(i * size, (i + 1) * size));
}

/** The mean absolute difference of two grey frames, 0 to 255. */
export function frameDifference(a: Buffer, b: Buffer): number {
  return a.reduce((sum, value, i) => sum + Math.abs(value - b[i]!), 0) / a.length;
}
