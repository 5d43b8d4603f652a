import type { Clip } from '#contract/types';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { resolveMediaTool } from '../../local/media-tools';
import { waitForJob } from './support/jobs';
import { makeSpeechSource, type SpeechSource, type SpokenSentence, wordsOf } from './support/media';
import { call, createOrganization, type TestOrganization, uploadSplitSource } from './support/stack';

/**
 * Speech heard on the local stack: a talk spoken by a speech synthesizer, split into clips whose
 * captions and titles come from what the local recognizer (PocketSphinx) heard. The stack must
 * run with it, and the test fails, saying what to install, when the machine lacks it.
 */

const SENTENCES = [
  'Welcome to the weekly product review.',
  'This week we shipped a faster upload page.',
  'Customers can now cut long videos into short clips.',
  'The team fixed several bugs in the billing screen.',
  'Next month we will add support for more languages.',
  'Please send us your questions by email.',
  'Thank you for watching and see you next week.',
  'Our next review will be on Friday morning.',
];

const INSTALL = "install Debian's pocketsphinx pocketsphinx-en-us (apt-get install pocketsphinx pocketsphinx-en-us)";
/** The share of the words spoken in a clip that its captions must hold. */
const MIN_WORD_RECALL = 0.6;
/** A sentence counts as spoken in a clip when it lies inside it, give or take this much. */
const EDGE_SECONDS = 0.3;

/** The text of every cue of a WebVTT file, tags and character references taken out. */
function cueText(webvtt: string): string {
  return webvtt
    .split(/\n\n+/)
    .filter((block) => block.includes('-->'))
    .map((block) => block.split('\n').slice(1).join(' '))
    .join(' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>');
}

/** How many of `expected` (with repeats) `heard` holds. */
function matched(expected: readonly string[], heard: readonly string[]): number {
  const left = new Map<string, number>();
  for (const word of heard) left.set(word, (left.get(word) ?? 0) + 1);
  return expected.filter((word) => {
    const count = left.get(word) ?? 0;
    if (count > 0) left.set(word, count - 1);
    return count > 0;
  }).length;
}

const sentencesIn = (sentences: readonly SpokenSentence[], clip: Clip) =>
  sentences.filter(
    (sentence) =>
      sentence.startSeconds >= clip.start_time_seconds - EDGE_SECONDS &&
      sentence.endSeconds <= clip.end_time_seconds + EDGE_SECONDS,
  );

/**
 * Splits the uploaded source into clips of under 30 s (with `options` added to the request), and
 * answers the clips by time with their captions' WebVTT.
 */
async function splitIntoClips(org: TestOrganization, assetId: string, options: Record<string, unknown> = {}) {
  const created = await call<{ id: string }>('POST', '/split-jobs', {
    key: org.key,
    body: { source_asset_id: assetId, clip_length_preset: 'under_30', language: 'en', ...options },
  });
  expect(created.status).toBe(201);
  const { job } = await waitForJob(org.key, created.body.id, 90_000);
  expect(job.status).toBe('completed');
  const listed = await call<{ clips: Clip[] }>('GET', `/split-jobs/${created.body.id}/clips?order=time`, {
    key: org.key,
  });
  const captions = new Map<string, string>();
  for (const clip of listed.body.clips) {
    if (!clip.captions_url) continue;
    const response = await fetch(clip.captions_url);
    expect(response.status).toBe(200);
    captions.set(clip.id, await response.text());
  }
  return { clips: listed.body.clips, captions };
}

/** The first cue's middle, in seconds of the clip. */
function firstCueMiddleSeconds(webvtt: string): number {
  const [start, end] = [...webvtt.matchAll(/(\d\d):(\d\d):(\d\d\.\d{3})/g)]
    .slice(0, 2)
    .map(([, h, m, s]) => Number(h) * 3600 + Number(m) * 60 + Number(s));
  return (start! + end!) / 2;
}

/** The clip's luma at `seconds`, one byte a pixel. */
async function frameAt(url: string, seconds: number): Promise<Buffer> {
  const ffmpeg = await resolveMediaTool('ffmpeg');
  const { stdout } = await promisify(execFile)(
    ffmpeg.path,
    ['-v', 'error', '-ss', seconds.toFixed(3), '-i', url, '-frames:v', '1', '-f', 'rawvideo', '-pix_fmt', 'gray', '-'],
    { encoding: 'buffer', maxBuffer: 8 * 1024 * 1024 },
  );
  return stdout;
}

const FRAME = { width: 720, height: 1280 };

/**
 * Mean absolute difference of two 9:16 frames' luma in the band where `clean` captions (the
 * default style) are drawn: from 55 % to 80 % of the height.
 */
function captionBandDifference(a: Buffer, b: Buffer): number {
  const [first, last] = [Math.round(0.55 * FRAME.height) * FRAME.width, Math.round(0.8 * FRAME.height) * FRAME.width];
  let sum = 0;
  for (let index = first; index < last; index++) sum += Math.abs(a[index]! - b[index]!);
  return sum / (last - first);
}

describe('a split job of a talk, on a local stack that hears speech', () => {
  let source: SpeechSource;
  let clips: Clip[];
  let captions: Map<string, string>;
  /** The one clip of a second job on the same source with `burn_captions: false`. */
  let plainClip: Clip;

  beforeAll(async () => {
    const stackEnvironment = JSON.parse(process.env.IT_STACK_ENVIRONMENT ?? '{}') as Record<string, string>;
    if (stackEnvironment.TRANSCRIPTION_PROVIDER !== 'pocketsphinx') {
      throw new Error(
        `The local stack transcribes with "${stackEnvironment.TRANSCRIPTION_PROVIDER}", not pocketsphinx: ${INSTALL}, ` +
          'and leave TRANSCRIPTION_PROVIDER unset',
      );
    }
    source = makeSpeechSource({ sentences: SENTENCES, pauseSeconds: 2, sentencesPerScene: 2, width: 320, height: 180 });
    const org = await createOrganization({ credits: 100 });
    const assetId = await uploadSplitSource(org, source.bytes, 'review.mp4');
    ({ clips, captions } = await splitIntoClips(org, assetId));
    plainClip = (await splitIntoClips(org, assetId, { burn_captions: false, max_clips: 1 })).clips[0]!;
  }, 210_000);

  it('makes a source of 40 to 60 seconds, with several clips to cut from it', () => {
    expect(source.durationSeconds).toBeGreaterThanOrEqual(40);
    expect(source.durationSeconds).toBeLessThanOrEqual(60);
    expect(clips.length).toBeGreaterThanOrEqual(2);
    expect(clips.every((clip) => clip.status === 'completed')).toBe(true);
  });

  it('gives every clip WebVTT captions holding most of the words spoken in it', () => {
    const recall = clips.map((clip) => {
      const spoken = sentencesIn(source.sentences, clip).flatMap((sentence) => wordsOf(sentence.text));
      const webvtt = captions.get(clip.id) ?? '';
      expect(webvtt.startsWith('WEBVTT\n')).toBe(true);
      return { clip: clip.id, spoken: spoken.length, heard: matched(spoken, wordsOf(cueText(webvtt))) };
    });
    for (const { clip, spoken, heard } of recall) {
      expect({ clip, spoken: spoken > 0, enough: heard / spoken >= MIN_WORD_RECALL }).toEqual({
        clip,
        spoken: true,
        enough: true,
      });
    }
  });

  /**
   * A title is the clip's first sentence as heard, from the clip's first word to the first pause
   * (clip-selection.ts): it starts mid-sentence, in lower case, when the cut falls just after a
   * sentence's first sound.
   */
  it('titles every clip with the first sentence heard in it, taken from its captions', () => {
    for (const clip of clips) {
      expect(clip.title).toMatch(/[.…]$/);
      const title = wordsOf(clip.title!);
      const captioned = wordsOf(cueText(captions.get(clip.id) ?? '')).join(' ');
      expect(` ${captioned} `).toContain(` ${title.join(' ')} `);
      const firstSentence = source.sentences.find((sentence) => sentence.endSeconds > clip.start_time_seconds);
      expect(matched(title, wordsOf(firstSentence!.text)) / title.length).toBeGreaterThanOrEqual(MIN_WORD_RECALL);
    }
  });

  it('draws the captions into every clip: frames where words are spoken differ from the same clip without them', async () => {
    expect(clips.map((clip) => clip.captions_burned_in)).toEqual(clips.map(() => true));
    expect(plainClip.captions_burned_in).toBe(false);
    const captioned = clips.find((clip) => clip.start_time_seconds === plainClip.start_time_seconds);
    expect(captioned).toBeDefined();
    const atSeconds = firstCueMiddleSeconds(captions.get(captioned!.id)!);
    const [drawn, plain] = await Promise.all([
      frameAt(captioned!.download_url!, atSeconds),
      frameAt(plainClip.download_url!, atSeconds),
    ]);
    expect(drawn.length).toBe(FRAME.width * FRAME.height);
    expect(plain.length).toBe(drawn.length);
    expect(captionBandDifference(drawn, plain)).toBeGreaterThan(2);
  });
});
