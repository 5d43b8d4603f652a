import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { subjectCropWindow } from '#domain/framing/subject-window';
import { assCaptions } from '#domain/split-jobs/burnt-in-captions';
import { clipCaptionCues, type VisibleCaptionStyle } from '#domain/split-jobs/captions';
import { renderClip, type ClipRenderRequest } from '#domain/split-jobs/clip-rendering';
import type { Transcript } from '#domain/split-jobs/transcription/port';
import { captionFontEnvironment } from '#platform/caption-fonts';
import { localCaptionFontFiles } from '../../local/caption-fonts';
import { resolveMediaTool } from '../../local/media-tools';

const run = promisify(execFile);
jest.setTimeout(120_000);

const WIDTH = 720;
const HEIGHT = 1280;
/** Words from 0.5 s to 2.6 s of the clip; nothing is said after. */
const TRANSCRIPT: Transcript = {
  language: 'en',
  words: ['Captions', 'drawn', 'into', 'the', 'picture', 'itself.'].map((text, index) => ({
    text,
    startSeconds: 0.5 + index * 0.35,
    endSeconds: 0.8 + index * 0.35,
  })),
};
const RANGE = { startSeconds: 0, endSeconds: 4 };
const SPOKEN_SECONDS = 2.2;
const SILENT_SECONDS = 3.5;

/** The rows (fractions of the height) each style promises to draw in, on 9:16. */
const PROMISED_ROWS: Record<VisibleCaptionStyle, [number, number]> = {
  clean: [0.55, 0.8],
  karaoke: [0.55, 0.8],
  bold_center: [0.4, 0.6],
  platform_native: [0.68, 0.8],
};
/** The right-hand column where the platforms draw their buttons. */
const BUTTON_COLUMN = 0.83;

let workDir: string;
let ffmpegPath: string;
let source: string;
let plain: Awaited<ReturnType<typeof renderClip>>;
let plainFrames: Record<number, Buffer>;

async function frameAt(video: string, seconds: number): Promise<Buffer> {
  const { stdout } = await run(
    ffmpegPath,
    ['-v', 'error', '-ss', String(seconds), '-i', video, '-frames:v', '1', '-f', 'rawvideo', '-pix_fmt', 'gray', '-'],
    { encoding: 'buffer', maxBuffer: 4 * WIDTH * HEIGHT },
  );
  if (stdout.length !== WIDTH * HEIGHT)
    throw new Error(`A frame of ${stdout.length} bytes at ${seconds} s of ${video}`);
  return stdout;
}

/** Mean absolute difference of the two frames' luma, in the rectangle of fractions [x0, x1) × [y0, y1). */
function difference(a: Buffer, b: Buffer, [x0, x1]: [number, number], [y0, y1]: [number, number]): number {
  let sum = 0;
  let count = 0;
  for (let y = Math.floor(y0 * HEIGHT); y < Math.floor(y1 * HEIGHT); y++) {
    for (let x = Math.floor(x0 * WIDTH); x < Math.floor(x1 * WIDTH); x++) {
      sum += Math.abs(a[y * WIDTH + x]! - b[y * WIDTH + x]!);
      count++;
    }
  }
  return sum / count;
}

async function render(
  name: string,
  captions: ClipRenderRequest['burntInCaptions'],
  framing?: ClipRenderRequest['framing'],
) {
  const outputDirectory = join(workDir, name);
  await mkdir(outputDirectory);
  return renderClip({
    ffmpegPath,
    input: source,
    range: RANGE,
    aspectRatio: '9:16',
    source: { width: 640, height: 360, hasAudio: false },
    framing,
    outputDirectory,
    timeoutMs: 60_000,
    burntInCaptions: captions,
  });
}

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'burnt-in-captions-'));
  ffmpegPath = (await resolveMediaTool('ffmpeg')).path;
  source = join(workDir, 'source.mp4');
  await run(ffmpegPath, [
    ...['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc2=size=640x360:rate=30:duration=5'],
    ...['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', source],
  ]);
  plain = await render('plain', undefined);
  plainFrames = {
    [SPOKEN_SECONDS]: await frameAt(plain.videoPath, SPOKEN_SECONDS),
    [SILENT_SECONDS]: await frameAt(plain.videoPath, SILENT_SECONDS),
  };
});

afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
});

describe('captions burnt into a rendered clip', () => {
  it('are not drawn, and not reported, when none are asked for', () => {
    expect(plain.captionsBurnedIn).toBe(false);
  });

  it.each(['clean', 'bold_center', 'karaoke', 'platform_native'] as const)(
    '%s: drawn where the style promises while words are spoken, outside the safe area never, and not at all in silence',
    async (style) => {
      const cues = clipCaptionCues(TRANSCRIPT, RANGE, style)!;
      const rendered = await render(style, { assDocument: assCaptions(cues, '9:16'), fonts: localCaptionFontFiles() });
      expect(rendered.captionsBurnedIn).toBe(true);

      const spoken = await frameAt(rendered.videoPath, SPOKEN_SECONDS);
      const plainSpoken = plainFrames[SPOKEN_SECONDS]!;
      const [top, bottom] = PROMISED_ROWS[style];
      expect(difference(spoken, plainSpoken, [0, 1], [top, bottom])).toBeGreaterThan(4);
      // Elsewhere only the encoder's noise: above and below the promised rows, and the button column.
      expect(difference(spoken, plainSpoken, [0, 1], [0, top])).toBeLessThan(1);
      expect(difference(spoken, plainSpoken, [0, 1], [0.8, 1])).toBeLessThan(1);
      expect(difference(spoken, plainSpoken, [BUTTON_COLUMN, 1], [0, 1])).toBeLessThan(1);

      const silent = await frameAt(rendered.videoPath, SILENT_SECONDS);
      expect(difference(silent, plainFrames[SILENT_SECONDS]!, [0, 1], [0, 1])).toBeLessThan(1);
    },
  );

  it('are drawn over a clip that follows its subject too, on the cropped and scaled picture', async () => {
    const window = subjectCropWindow('9:16', { width: 640, height: 360 })!;
    const xs = Array.from({ length: 4 * 30 }, (_, frame) => frame / (4 * 30));
    const crop = { ...window, travelX: 640 - window.width, travelY: 0, xs, ys: xs.map(() => 0) };
    const following = {
      framing: 'subject' as const,
      reason: 'One person in 100% of the clip: the frame follows them.',
      crop,
    };
    const cues = clipCaptionCues(TRANSCRIPT, RANGE, 'bold_center')!;
    const fonts = localCaptionFontFiles();
    const cropped = await render('subject-plain', undefined, following);
    const captioned = await render('subject-captioned', { assDocument: assCaptions(cues, '9:16'), fonts }, following);
    expect([cropped.framing, captioned.framing, captioned.captionsBurnedIn]).toEqual(['subject', 'subject', true]);
    const spoken = await frameAt(captioned.videoPath, SPOKEN_SECONDS);
    const plainSpoken = await frameAt(cropped.videoPath, SPOKEN_SECONDS);
    expect(difference(spoken, plainSpoken, [0, 1], PROMISED_ROWS.bold_center)).toBeGreaterThan(4);
    expect(difference(spoken, plainSpoken, [0, 1], [0, 0.4])).toBeLessThan(1);
  });

  it('draws with the shipped fonts only, without reading the machine’s fontconfig configuration', async () => {
    const fonts = localCaptionFontFiles();
    const assPath = join(workDir, 'fonts.ass');
    await writeFile(assPath, assCaptions(clipCaptionCues(TRANSCRIPT, RANGE, 'bold_center')!, '9:16'));
    const { stderr } = await run(
      ffmpegPath,
      [
        ...['-hide_banner', '-loglevel', 'verbose', '-f', 'lavfi', '-i', `color=c=gray:s=${WIDTH}x${HEIGHT}:d=2`],
        ...['-vf', `ass=filename=${assPath}:fontsdir=${fonts.fontsDirectory}`, '-f', 'null', '-'],
      ],
      { env: { ...process.env, ...captionFontEnvironment(fonts) } },
    );
    expect(stderr).toMatch(/fontselect: \(Montserrat Black, 400, 0\) -> Montserrat-Black,/);
    expect(stderr).not.toMatch(/Fontconfig (error|warning)/);
    expect(stderr).not.toContain('/etc/fonts');
  });
});
