import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { assCaptions } from '#domain/split-jobs/burnt-in-captions';
import { clipCaptionCues, type VisibleCaptionStyle } from '#domain/split-jobs/captions';
import { renderClip, type ClipRenderRequest } from '#domain/split-jobs/clip-rendering';
import type { Transcript } from '#domain/split-jobs/transcription/port';
import { localCaptionFontFiles } from '../../local/caption-fonts';
import { resolveMediaTool } from '../../local/media-tools';
import { reapedChildrenCpuSeconds } from './cpu';
import { round } from './statistics';

/**
 * What drawing captions into a clip costs: the CPU seconds of one clip's render (ffmpeg's, as the
 * kernel counts a reaped child) with the captions of each style and without, on a generated
 * 1280x720 source rendered to 9:16, with a word every 0.3 s for the whole clip (speech without a
 * pause: the most captions a clip can have). Renders run one at a time, without a split job, in
 * ROUNDS rounds of every variant; each figure is the median of its rounds, since a shared
 * machine's other work moves a single render's CPU time by a few percent.
 */

const CLIP_SECONDS = 30;
const STYLES: readonly VisibleCaptionStyle[] = ['clean', 'bold_center', 'karaoke', 'platform_native'];
const WORD_INTERVAL_SECONDS = 0.3;
const ROUNDS = 3;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export interface CaptionBurnInFigures {
  clip_seconds: number;
  ffmpeg: string;
  /** CPU seconds of the render without captions. */
  plain_cpu_s: number;
  /** Per style: CPU seconds with its captions, and what they added as a share of the plain render. */
  styles: { style: VisibleCaptionStyle; cpu_s: number; added_percent: number }[];
}

function steadySpeech(seconds: number): Transcript {
  const words = 'so the point is that every clip should carry its own captions, drawn in.'.split(' ');
  const count = Math.floor(seconds / WORD_INTERVAL_SECONDS);
  return {
    language: 'en',
    words: Array.from({ length: count }, (_, index) => ({
      text: words[index % words.length]!,
      startSeconds: index * WORD_INTERVAL_SECONDS,
      endSeconds: index * WORD_INTERVAL_SECONDS + WORD_INTERVAL_SECONDS * 0.8,
    })),
  };
}

export async function measureCaptionBurnIn(progress: (message: string) => void): Promise<CaptionBurnInFigures> {
  const ffmpeg = await resolveMediaTool('ffmpeg');
  const workDir = await mkdtemp(join(tmpdir(), 'bench-captions-'));
  try {
    const source = join(workDir, 'source.mp4');
    await promisify(execFile)(ffmpeg.path, [
      ...['-v', 'error', '-y', '-f', 'lavfi', '-i', `testsrc2=size=1280x720:rate=30:duration=${CLIP_SECONDS}`],
      ...['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', source],
    ]);
    const range = { startSeconds: 0, endSeconds: CLIP_SECONDS };
    const renderCpuSeconds = async (name: string, captions: ClipRenderRequest['burntInCaptions']) => {
      const outputDirectory = join(workDir, name);
      await mkdir(outputDirectory);
      const before = reapedChildrenCpuSeconds();
      await renderClip({
        ffmpegPath: ffmpeg.path,
        input: source,
        range,
        aspectRatio: '9:16',
        source: { width: 1280, height: 720, hasAudio: false },
        outputDirectory,
        timeoutMs: 10 * 60_000,
        burntInCaptions: captions,
      });
      return reapedChildrenCpuSeconds() - before;
    };
    const variants: { name: VisibleCaptionStyle | 'plain'; captions: ClipRenderRequest['burntInCaptions'] }[] = [
      { name: 'plain', captions: undefined },
      ...STYLES.map((style) => ({
        name: style,
        captions: {
          assDocument: assCaptions(clipCaptionCues(steadySpeech(CLIP_SECONDS), range, style)!, '9:16'),
          fonts: localCaptionFontFiles(),
        },
      })),
    ];
    const samples = new Map<string, number[]>(variants.map(({ name }) => [name, []]));
    for (let pass = 0; pass < ROUNDS; pass++) {
      for (const { name, captions } of variants) {
        samples.get(name)!.push(await renderCpuSeconds(`${name}-${pass}`, captions));
      }
      progress(`caption burn-in: round ${pass + 1} of ${ROUNDS}`);
    }
    const plain = median(samples.get('plain')!);
    const styles = STYLES.map((style) => {
      const cpu = median(samples.get(style)!);
      return { style, cpu_s: round(cpu, 2), added_percent: round(((cpu - plain) / plain) * 100) };
    });
    return { clip_seconds: CLIP_SECONDS, ffmpeg: ffmpeg.version, plain_cpu_s: round(plain, 2), styles };
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}
