import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { subjectSampleSize } from '#domain/framing/subject-window';
import { analyseSegment } from '#domain/split-jobs/analysis';
import { assCaptions } from '#domain/split-jobs/burnt-in-captions';
import { clipCaptionCues, type VisibleCaptionStyle } from '#domain/split-jobs/captions';
import { renderClip, type ClipRenderRequest } from '#domain/split-jobs/clip-rendering';
import { framingOfSampledFrames } from '#domain/split-jobs/subject-frames';
import type { Transcript } from '#domain/split-jobs/transcription/port';
import { localCaptionFontFiles } from '../local/caption-fonts';
import { resolveMediaTool } from '../local/media-tools';
import { peopleDetectorEnvironment } from '../local/people-detector';
import { makePeopleFixture } from '../test/support/people-fixtures';

/**
 * The stills of docs/split-jobs.md (`npm run docs:stills`): each a short clip rendered with
 * renderClip from a generated source, and one frame of it as a small JPEG in docs/split-jobs/.
 * A still is a render request, the moment of the clip to show and the file to write, so that any
 * look of a clip (a caption style, a framing) is one more entry of STILLS.
 */

const RUN = promisify(execFile);
const OUTPUT_DIRECTORY = join(__dirname, '..', 'docs', 'split-jobs');
/**
 * The generated sources, wider than the clips' 9:16: a colourful pattern, and the framing tests'
 * sources made from a real photograph (test/support/people-fixtures.ts): a presenter beside a
 * whiteboard, two people far apart, slides.
 */
const SOURCE = { width: 1280, height: 720, seconds: 4 };
type SourceName = 'pattern' | 'presenter' | 'twoPeople' | 'slides';
/** Stills are shown at half the clip's size. */
const STILL_SCALE = 0.5;

/** What a still asks of renderClip; the source, the tools and the directories are the script's. */
type StillRender = Pick<ClipRenderRequest, 'range' | 'aspectRatio' | 'burntInCaptions'>;

interface Still {
  /** File name in docs/split-jobs/. */
  name: string;
  source: SourceName;
  /** Frames the clip as a split job would under this `framing`; `fit` shows the whole picture. */
  framing: 'subject' | 'stacked' | 'fit';
  render: StillRender;
  /** The moment of the clip shown, in seconds. */
  frameSeconds: number;
}

const SPOKEN: Transcript = {
  language: 'en',
  words: ['Every', 'clip', 'gets', 'its', 'captions', 'drawn', 'right', 'into', 'the', 'picture.'].map(
    (text, index) => ({ text, startSeconds: 0.2 + index * 0.3, endSeconds: 0.45 + index * 0.3 }),
  ),
};
const RANGE = { startSeconds: 0, endSeconds: SOURCE.seconds };

function captionStill(style: VisibleCaptionStyle, frameSeconds: number): Still {
  return {
    name: `captions-${style.replace('_', '-')}.jpg`,
    source: 'pattern',
    framing: 'fit',
    render: {
      range: RANGE,
      aspectRatio: '9:16',
      burntInCaptions: {
        assDocument: assCaptions(clipCaptionCues(SPOKEN, RANGE, style)!, '9:16'),
        fonts: localCaptionFontFiles(),
      },
    },
    frameSeconds,
  };
}

function framingStill(name: string, source: SourceName, framing: Still['framing']): Still {
  return { name, source, framing, render: { range: RANGE, aspectRatio: '9:16' }, frameSeconds: 2 };
}

const STILLS: readonly Still[] = [
  captionStill('clean', 1.6),
  captionStill('bold_center', 1.6),
  // Half-way through a cue, so that the words spoken so far are lit and the rest are not.
  captionStill('karaoke', 1.6),
  captionStill('platform_native', 1.6),
  framingStill('framing-subject.jpg', 'presenter', 'subject'),
  framingStill('framing-fit.jpg', 'presenter', 'fit'),
  framingStill('framing-stacked.jpg', 'twoPeople', 'stacked'),
  framingStill('framing-slides.jpg', 'slides', 'fit'),
];

/** The framing a split job would give a clip of the whole source under `framing`. */
async function framingOf(
  ffmpeg: string,
  source: string,
  workDir: string,
  framing: Still['framing'],
): Promise<ClipRenderRequest['framing']> {
  const frameSize = subjectSampleSize(SOURCE);
  const path = join(workDir, 'subject-frames.rgb');
  const { sceneCuts } = await analyseSegment({
    ffmpegPath: ffmpeg,
    input: source,
    range: RANGE,
    hasAudio: false,
    timeoutMs: 120_000,
    subjectFrames: { path, ...frameSize },
  });
  return framingOfSampledFrames(path, frameSize, {
    framing,
    aspectRatio: '9:16',
    source: SOURCE,
    clip: RANGE,
    sceneCuts,
  });
}

async function main() {
  Object.assign(process.env, peopleDetectorEnvironment());
  const ffmpeg = (await resolveMediaTool('ffmpeg')).path;
  const workDir = await mkdtemp(join(tmpdir(), 'split-stills-'));
  try {
    const sources = {} as Record<SourceName, string>;
    sources.pattern = join(workDir, 'pattern.mp4');
    await RUN(ffmpeg, [
      ...['-v', 'error', '-y', '-f', 'lavfi', '-i', `mandelbrot=size=${SOURCE.width}x${SOURCE.height}:rate=30`],
      ...['-t', String(SOURCE.seconds), '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p'],
      sources.pattern,
    ]);
    for (const name of ['presenter', 'twoPeople', 'slides'] as const) {
      sources[name] = join(workDir, `${name}.mp4`);
      await writeFile(sources[name], makePeopleFixture(name));
    }
    await mkdir(OUTPUT_DIRECTORY, { recursive: true });
    for (const still of STILLS) {
      const outputDirectory = join(workDir, still.name);
      await mkdir(outputDirectory);
      const input = sources[still.source];
      const rendered = await renderClip({
        ...still.render,
        framing: await framingOf(ffmpeg, input, outputDirectory, still.framing),
        ffmpegPath: ffmpeg,
        input,
        source: { width: SOURCE.width, height: SOURCE.height, hasAudio: false },
        outputDirectory,
        timeoutMs: 120_000,
      });
      const output = join(OUTPUT_DIRECTORY, still.name);
      await RUN(ffmpeg, [
        ...['-v', 'error', '-y', '-ss', String(still.frameSeconds), '-i', rendered.videoPath, '-frames:v', '1'],
        ...['-vf', `scale=iw*${STILL_SCALE}:-2`, '-q:v', '5', output],
      ]);
      console.log(`wrote ${output}`);
    }
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
