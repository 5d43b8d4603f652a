import fc from 'fast-check';
import { clipCaptions, LINE_CHARACTERS } from '#domain/split-jobs/captions';
import type { TimeRange } from '#domain/split-jobs/source-analysis';
import type { TranscriptWord } from '#domain/split-jobs/transcription/port';
import { clipRangeArbitrary, spokenWordsArbitrary, transcriptOf, word } from './support/transcripts';

/** Spoken from 9.5 s to 18.4 s of the source; the clip is [10, 18]. */
const INTERVIEW = transcriptOf(
  word('So', 9.5, 10.3),
  word('welcome', 10.3, 10.7),
  word('back.', 10.7, 11.1),
  word('Today', 11.4, 11.7),
  word('we', 11.7, 11.8),
  word('compare', 11.8, 12.2),
  word('R&D', 12.2, 12.6),
  word('budgets', 12.6, 13.0),
  word('across', 13.0, 13.3),
  word('<three>', 13.3, 13.6),
  word('companies', 13.6, 14.1),
  word('and', 14.1, 14.2),
  word('what', 14.2, 14.4),
  word('they', 14.4, 14.5),
  word('learned', 14.5, 14.9),
  word('from', 14.9, 15.0),
  word('it.', 15.0, 15.3),
  word('Okay', 17.0, 17.4),
  word("let's", 17.4, 17.6),
  word('go', 17.6, 18.4),
);
const CLIP = { startSeconds: 10, endSeconds: 18 };

const vtt = (...cues: string[]) => `${['WEBVTT', ...cues].join('\n\n')}\n`;

describe('clipCaptions styles', () => {
  it('clean: up to two lines of 42 characters, a new cue at each sentence and after a pause', () => {
    expect(clipCaptions(INTERVIEW, CLIP, 'clean')).toBe(
      vtt(
        '00:00:00.000 --> 00:00:01.100\nSo welcome back.',
        '00:00:01.400 --> 00:00:04.900\nToday we compare R&amp;D budgets across\n&lt;three&gt; companies and what they learned',
        '00:00:04.900 --> 00:00:05.400\nfrom it.',
        "00:00:07.000 --> 00:00:08.000\nOkay let's go",
      ),
    );
  });

  it('bold_center: three words at most, bold, in the middle of the frame', () => {
    const settings = 'line:50% position:50% align:center';
    expect(clipCaptions(INTERVIEW, CLIP, 'bold_center')).toBe(
      vtt(
        `00:00:00.000 --> 00:00:01.100 ${settings}\n<b>So welcome back.</b>`,
        `00:00:01.400 --> 00:00:02.200 ${settings}\n<b>Today we compare</b>`,
        `00:00:02.200 --> 00:00:03.300 ${settings}\n<b>R&amp;D budgets across</b>`,
        `00:00:03.300 --> 00:00:04.200 ${settings}\n<b>&lt;three&gt; companies and</b>`,
        `00:00:04.200 --> 00:00:04.900 ${settings}\n<b>what they learned</b>`,
        `00:00:04.900 --> 00:00:05.400 ${settings}\n<b>from it.</b>`,
        `00:00:07.000 --> 00:00:08.000 ${settings}\n<b>Okay let's go</b>`,
      ),
    );
  });

  it('karaoke: the cues of clean, with the time each later word is spoken before it', () => {
    expect(clipCaptions(INTERVIEW, CLIP, 'karaoke')).toBe(
      vtt(
        '00:00:00.000 --> 00:00:01.100\nSo <00:00:00.300>welcome <00:00:00.700>back.',
        '00:00:01.400 --> 00:00:04.900\n' +
          'Today <00:00:01.700>we <00:00:01.800>compare <00:00:02.200>R&amp;D <00:00:02.600>budgets <00:00:03.000>across\n' +
          '<00:00:03.300>&lt;three&gt; <00:00:03.600>companies <00:00:04.100>and <00:00:04.200>what <00:00:04.400>they <00:00:04.500>learned',
        '00:00:04.900 --> 00:00:05.400\nfrom <00:00:05.000>it.',
        "00:00:07.000 --> 00:00:08.000\nOkay <00:00:07.400>let's <00:00:07.600>go",
      ),
    );
  });

  it('platform_native: four words at most, at 70% of the height above the platform controls', () => {
    expect(clipCaptions(INTERVIEW, CLIP, 'platform_native')).toBe(
      vtt(
        '00:00:00.000 --> 00:00:01.100 line:70%\nSo welcome back.',
        '00:00:01.400 --> 00:00:02.600 line:70%\nToday we compare R&amp;D',
        '00:00:02.600 --> 00:00:04.100 line:70%\nbudgets across &lt;three&gt; companies',
        '00:00:04.100 --> 00:00:04.900 line:70%\nand what they learned',
        '00:00:04.900 --> 00:00:05.400 line:70%\nfrom it.',
        "00:00:07.000 --> 00:00:08.000 line:70%\nOkay let's go",
      ),
    );
  });
});

describe('clipCaptions words and times', () => {
  it('is null for the none style, without a transcript, and when nothing is said during the clip', () => {
    expect(clipCaptions(INTERVIEW, CLIP, 'none')).toBeNull();
    expect(clipCaptions(null, CLIP, 'clean')).toBeNull();
    expect(clipCaptions(INTERVIEW, { startSeconds: 15.3, endSeconds: 17 }, 'clean')).toBeNull();
    expect(clipCaptions(transcriptOf(), CLIP, 'clean')).toBeNull();
    expect(clipCaptions(INTERVIEW, { startSeconds: 12, endSeconds: 12 }, 'clean')).toBeNull();
  });

  it('cuts words that are partly in the clip to its start and end', () => {
    expect(clipCaptions(INTERVIEW, { startSeconds: 11.5, endSeconds: 11.75 }, 'clean')).toBe(
      vtt('00:00:00.000 --> 00:00:00.250\nToday we'),
    );
  });

  it('leaves out a word that ends as the clip starts or starts as it ends', () => {
    const transcript = transcriptOf(word('before', 1, 2), word('inside', 2, 3), word('after', 3, 4));
    expect(clipCaptions(transcript, { startSeconds: 2, endSeconds: 3 }, 'clean')).toBe(
      vtt('00:00:00.000 --> 00:00:01.000\ninside'),
    );
  });

  it('escapes the characters WebVTT reserves, so a word can neither open a tag nor end the timing arrow', () => {
    const transcript = transcriptOf(word('<i>Q&A</i>', 0, 0.4), word('-->', 0.4, 0.8));
    expect(clipCaptions(transcript, { startSeconds: 0, endSeconds: 1 }, 'clean')).toBe(
      vtt('00:00:00.000 --> 00:00:00.800\n&lt;i&gt;Q&amp;A&lt;/i&gt; --&gt;'),
    );
  });

  it('folds whitespace inside a word, since a blank line would end the cue', () => {
    const transcript = transcriptOf(word('New\n\nYork', 0, 0.5));
    expect(clipCaptions(transcript, { startSeconds: 0, endSeconds: 1 }, 'clean')).toBe(
      vtt('00:00:00.000 --> 00:00:00.500\nNew York'),
    );
  });

  it('ends a cue at a pause of a second, even inside a sentence', () => {
    const transcript = transcriptOf(word('well', 0, 0.4), word('maybe', 1.4, 1.8), word('not', 2.7, 3));
    expect(clipCaptions(transcript, { startSeconds: 0, endSeconds: 5 }, 'clean')).toBe(
      vtt('00:00:00.000 --> 00:00:00.500\nwell', '00:00:01.400 --> 00:00:03.000\nmaybe not'),
    );
  });

  it('keeps a quick word on screen for half a second, unless the next cue starts sooner', () => {
    const transcript = transcriptOf(word('Yes.', 1, 1.1), word('No.', 3, 3.1), word('Well.', 3.3, 3.4));
    expect(clipCaptions(transcript, { startSeconds: 0, endSeconds: 3.45 }, 'clean')).toBe(
      vtt(
        '00:00:01.000 --> 00:00:01.500\nYes.',
        '00:00:03.000 --> 00:00:03.300\nNo.',
        '00:00:03.300 --> 00:00:03.450\nWell.',
      ),
    );
  });

  it('puts words spoken at the same moment in one cue, and gives the later ones no timestamp of their own', () => {
    const transcript = transcriptOf(
      word('one', 1, 1.2),
      word('two', 1, 1.2),
      word('three', 1, 1.2),
      word('four', 1, 1.2),
    );
    expect(clipCaptions(transcript, { startSeconds: 0, endSeconds: 5 }, 'karaoke')).toBe(
      vtt('00:00:01.000 --> 00:00:01.500\none two three four'),
    );
    expect(clipCaptions(transcript, { startSeconds: 0, endSeconds: 5 }, 'bold_center')).toBe(
      vtt('00:00:01.000 --> 00:00:01.500 line:50% position:50% align:center\n<b>one two three four</b>'),
    );
  });

  it('orders words by when they are spoken, and keeps a word said at the very start of the clip', () => {
    const transcript = transcriptOf(word('world', 2.5, 3), word('hello', 2, 2.5));
    expect(clipCaptions(transcript, { startSeconds: 2, endSeconds: 4 }, 'clean')).toBe(
      vtt('00:00:00.000 --> 00:00:01.000\nhello world'),
    );
    expect(clipCaptions(transcriptOf(word('now', 2, 2)), { startSeconds: 2, endSeconds: 4 }, 'clean')).toBe(
      vtt('00:00:00.000 --> 00:00:00.500\nnow'),
    );
  });

  it('writes hours in cue times', () => {
    const transcript = transcriptOf(word('late', 3725.25, 3726));
    expect(clipCaptions(transcript, { startSeconds: 0, endSeconds: 4000 }, 'clean')).toBe(
      vtt('01:02:05.250 --> 01:02:06.000\nlate'),
    );
  });
});

interface ParsedCue {
  startMs: number;
  endMs: number;
  settings: string;
  payload: string;
}

const TIMING = /^(\d{2}):(\d{2}):(\d{2})\.(\d{3}) --> (\d{2}):(\d{2}):(\d{2})\.(\d{3})(?: (.+))?$/;
/** The only tags the captions use: bold, and karaoke's word timestamps. */
const TAG = /<\/?b>|<\d{2}:\d{2}:\d{2}\.\d{3}>/g;
const toMs = (h: string, m: string, s: string, ms: string) =>
  ((Number(h) * 60 + Number(m)) * 60 + Number(s)) * 1000 + Number(ms);
const unescape = (text: string) => text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
const wordsOf = (payload: string) => unescape(payload.replace(TAG, '')).split(/\s+/).filter(Boolean);

/** Parses the file as a WebVTT reader would; throws on anything this module must not write. */
function parseVtt(text: string): ParsedCue[] {
  if (!text.startsWith('WEBVTT\n\n') || !text.endsWith('\n')) throw new Error('Not a WebVTT file');
  return text
    .slice(0, -1)
    .split('\n\n')
    .slice(1)
    .map((block) => {
      const [timing = '', ...lines] = block.split('\n');
      const match = TIMING.exec(timing);
      if (!match) throw new Error(`Not a cue timing line: ${timing}`);
      const payload = lines.join('\n');
      const unescaped = /[<>]|&(?!amp;|lt;|gt;)/.test(payload.replace(TAG, ''));
      if (lines.length === 0 || lines.some((line) => line.trim() === '') || unescaped) {
        throw new Error(`Not a cue payload: ${payload}`);
      }
      const [, h1, m1, s1, ms1, h2, m2, s2, ms2, settings] = match;
      return {
        startMs: toMs(h1!, m1!, s1!, ms1!),
        endMs: toMs(h2!, m2!, s2!, ms2!),
        settings: settings ?? '',
        payload,
      };
    });
}

const SHAPES = {
  clean: { settings: '', maxWords: Infinity, maxLines: 2 },
  karaoke: { settings: '', maxWords: Infinity, maxLines: 2 },
  bold_center: { settings: 'line:50% position:50% align:center', maxWords: 3, maxLines: 1 },
  platform_native: { settings: 'line:70%', maxWords: 4, maxLines: 1 },
} as const;

const STYLES = Object.keys(SHAPES) as (keyof typeof SHAPES)[];

/** Everything wrong with one cue of the style, as sentences; empty when nothing is. */
function cueProblems(cue: ParsedCue, style: keyof typeof SHAPES): string[] {
  const shape = SHAPES[style];
  const lines = cue.payload.replace(/^<b>|<\/b>$/g, '').split('\n');
  const words = wordsOf(cue.payload);
  const problems = [
    cue.settings !== shape.settings && `settings "${cue.settings}"`,
    words.length > shape.maxWords && `${words.length} words`,
    lines.length > shape.maxLines && `${lines.length} lines`,
    ...lines.map((line) => {
      const lineWords = wordsOf(line);
      return (
        lineWords.length > 1 && lineWords.join(' ').length > LINE_CHARACTERS && `a line of ${line.length} characters`
      );
    }),
    style === 'bold_center' && !/^<b>[^]*<\/b>$/.test(cue.payload) && 'not bold',
  ];
  if (style === 'karaoke') {
    const marks = [...cue.payload.matchAll(/<(\d{2}):(\d{2}):(\d{2})\.(\d{3})>/g)].map(([, h, m, s, ms]) =>
      toMs(h!, m!, s!, ms!),
    );
    const inOrder = marks.every((markMs, index) => markMs > (marks[index - 1] ?? cue.startMs) && markMs < cue.endMs);
    problems.push(
      marks.length !== words.length - 1 && `${marks.length} word timestamps for ${words.length} words`,
      !inOrder && `word timestamps ${marks.join(', ')} not inside the cue and in order`,
    );
  }
  return problems.filter((problem) => problem !== false).map((problem) => `${problem}: ${cue.payload}`);
}

/** Everything wrong with the captions of these words for the clip; empty when nothing is. */
function captionProblems(words: TranscriptWord[], clip: TimeRange, style: keyof typeof SHAPES): string[] {
  const inside = words.filter((w) => w.startSeconds < clip.endSeconds && w.endSeconds > clip.startSeconds);
  const captions = clipCaptions(transcriptOf(...words), clip, style);
  if (captions === null) return inside.length === 0 ? [] : ['no captions, yet words are spoken in the clip'];
  const cues = parseVtt(captions);
  const clipMs = Math.round((clip.endSeconds - clip.startSeconds) * 1000);
  const timingProblems = cues.flatMap((cue, index) => {
    const previousEndMs = cues[index - 1]?.endMs ?? 0;
    const inOrder = previousEndMs <= cue.startMs && cue.startMs < cue.endMs && cue.endMs <= clipMs;
    return inOrder ? [] : [`cue ${cue.startMs}-${cue.endMs} ms after one ending at ${previousEndMs}, clip ${clipMs}`];
  });
  const written = cues.flatMap((cue) => wordsOf(cue.payload)).join(' ');
  const spoken = inside.map((w) => w.text).join(' ');
  return [
    ...timingProblems,
    ...cues.flatMap((cue) => cueProblems(cue, style)),
    ...(written === spoken ? [] : [`wrote "${written}" for "${spoken}"`]),
  ];
}

/** Short words, words with punctuation and characters to escape, and words longer than a line. */
const spokenWords = spokenWordsArbitrary(
  fc.oneof(
    fc.stringMatching(/^[a-z]{0,4}$/),
    fc.stringMatching(/^[a-z&<>'.!?-]{0,14}$/),
    fc.stringMatching(/^x{40,50}$/),
  ),
  3000,
);
const clipRange = clipRangeArbitrary(4000);

describe('clipCaptions for any transcript and clip', () => {
  it('writes valid, ordered cues inside the clip, each word spoken in it exactly once, in the style’s shape', () => {
    fc.assert(
      fc.property(spokenWords, clipRange, fc.constantFrom(...STYLES), (words, clip, style) => {
        expect(captionProblems(words, clip, style)).toEqual([]);
      }),
      { numRuns: 400 },
    );
  });
});
