import fc from 'fast-check';
import { assCaptions, captionFrame, escapeAssText } from '#domain/split-jobs/burnt-in-captions';
import { clipCaptionCues, clipCaptions, type VisibleCaptionStyle } from '#domain/split-jobs/captions';
import { clipRangeArbitrary, spokenWordsArbitrary, transcriptOf, word } from './support/transcripts';

const INTERVIEW = transcriptOf(
  word('So', 10, 10.3),
  word('welcome', 10.3, 10.7),
  word('back.', 10.7, 11.1),
  word('Today', 11.4, 11.7),
  word('we', 11.7, 11.8),
  word('compare', 11.8, 12.2),
  word('R&D', 12.2, 12.6),
  word('budgets', 12.6, 13.0),
  word('across', 13.0, 13.3),
  word('{three}', 13.3, 13.6),
  word('companies', 13.6, 14.1),
  word('Okay', 17.0, 17.4),
  word('go', 17.6, 18.4),
);
const CLIP = { startSeconds: 10, endSeconds: 18 };
const STYLES: VisibleCaptionStyle[] = ['clean', 'bold_center', 'karaoke', 'platform_native'];

interface AssEvent {
  startMs: number;
  endMs: number;
  text: string;
}

const FIELDS =
  'Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding'.split(
    ', ',
  );

function parseAss(document: string) {
  const lines = document.split('\n');
  const info = Object.fromEntries(
    lines
      .filter((line) => /^\w[\w ]*: /.test(line) && !/^(Style|Dialogue|Format): /.test(line))
      .map((line) => line.split(': ')),
  ) as Record<string, string>;
  const styleLines = lines.filter((line) => line.startsWith('Style: '));
  expect(styleLines).toHaveLength(1);
  const values = styleLines[0]!.slice('Style: '.length).split(',');
  const style = Object.fromEntries(FIELDS.map((field, index) => [field, values[index]!]));
  const toMs = (time: string) => {
    const [h, m, s] = time.split(':');
    return Math.round(((Number(h) * 60 + Number(m)) * 60 + Number(s)) * 1000);
  };
  const events: AssEvent[] = lines
    .filter((line) => line.startsWith('Dialogue: '))
    .map((line) => {
      const parts = line.slice('Dialogue: '.length).split(',');
      return { startMs: toMs(parts[1]!), endMs: toMs(parts[2]!), text: parts.slice(9).join(',') };
    });
  return { info, style, events };
}

/** The words an event shows, override blocks removed and escapes undone. */
function shownWords(text: string): string[] {
  return text
    .replace(/\{\\k\d+\}/g, '')
    .replace(/\\N/g, ' ')
    .replace(/\\([{}])/g, '$1')
    .replace(/\\\u200b/g, '\\')
    .split(' ')
    .filter(Boolean);
}

const assOf = (style: VisibleCaptionStyle, aspectRatio: '9:16' | '16:9' | '1:1' = '9:16') =>
  parseAss(assCaptions(clipCaptionCues(INTERVIEW, CLIP, style)!, aspectRatio));

describe('assCaptions', () => {
  it.each([
    ['9:16', 720, 1280],
    ['16:9', 1280, 720],
    ['1:1', 720, 720],
  ] as const)(
    'plays at the output size of %s, outlines scaled with it, lines wrapped evenly',
    (aspectRatio, width, height) => {
      const { info } = assOf('clean', aspectRatio);
      expect(info).toMatchObject({
        ScriptType: 'v4.00+',
        PlayResX: String(width),
        PlayResY: String(height),
        ScaledBorderAndShadow: 'yes',
        WrapStyle: '0',
      });
    },
  );

  it.each(STYLES)(
    '%s: one event per WebVTT cue, at the cue times (to the centisecond), with the same words',
    (style) => {
      const vttCues = [
        ...clipCaptions(INTERVIEW, CLIP, style)!.matchAll(
          /(\d\d):(\d\d):(\d\d)\.(\d{3}) --> (\d\d):(\d\d):(\d\d)\.(\d{3})/g,
        ),
      ].map((match) => {
        const ms = (i: number) =>
          ((Number(match[i]) * 60 + Number(match[i + 1])) * 60 + Number(match[i + 2])) * 1000 + Number(match[i + 3]);
        return { startMs: ms(1), endMs: ms(5) };
      });
      const { events } = assOf(style);
      expect(events).toHaveLength(vttCues.length);
      events.forEach((event, index) => {
        expect(Math.abs(event.startMs - vttCues[index]!.startMs)).toBeLessThanOrEqual(5);
        expect(Math.abs(event.endMs - vttCues[index]!.endMs)).toBeLessThanOrEqual(5);
      });
      expect(events.flatMap((event) => shownWords(event.text))).toEqual(INTERVIEW.words.map((w) => w.text));
    },
  );

  it('keeps every style inside the 9:16 safe area: off the bottom fifth and the right-hand button column', () => {
    const frame = captionFrame('9:16');
    expect(frame.marginBottom).toBeGreaterThanOrEqual(0.2 * 1280);
    expect(frame.marginRight).toBeGreaterThanOrEqual(0.15 * 720);
    for (const style of STYLES) {
      const { style: fields } = assOf(style);
      expect(Number(fields.MarginL)).toBeGreaterThanOrEqual(frame.marginLeft);
      expect(Number(fields.MarginR)).toBeGreaterThanOrEqual(frame.marginRight);
      const size = Number(fields.Fontsize);
      const twoLines = 2 * size * 1.3 + 2 * Number(fields.Outline);
      // Bottom-aligned text ends MarginV above the bottom; top-aligned text starts MarginV below the top.
      const lowestRow = {
        2: 1280 - Number(fields.MarginV),
        5: 640 + twoLines / 2,
        8: Number(fields.MarginV) + twoLines,
      }[Number(fields.Alignment) as 2 | 5 | 8];
      expect(lowestRow).toBeLessThanOrEqual(0.8 * 1280);
    }
  });

  it('places each style where it promises: clean and karaoke at the bottom, bold_center in the middle, platform_native from 70%', () => {
    const fields = (style: VisibleCaptionStyle) => assOf(style).style;
    expect(fields('clean')).toMatchObject({ Alignment: '2', Fontname: 'Montserrat', Bold: '-1', BorderStyle: '1' });
    expect(fields('karaoke')).toMatchObject({ Alignment: '2', Fontname: 'Montserrat', Bold: '-1' });
    expect(fields('karaoke').PrimaryColour).not.toBe(fields('karaoke').SecondaryColour);
    expect(fields('bold_center')).toMatchObject({ Alignment: '5', Fontname: 'Montserrat Black' });
    expect(Number(fields('bold_center').Fontsize)).toBeGreaterThan(1.5 * Number(fields('clean').Fontsize));
    expect(Number(fields('bold_center').Outline)).toBeGreaterThan(Number(fields('clean').Outline));
    expect(fields('platform_native')).toMatchObject({ Alignment: '8', MarginV: String(0.7 * 1280), BorderStyle: '3' });
  });

  it('karaoke: each word lights up when it is spoken', () => {
    const { events } = assOf('karaoke');
    for (const event of events) {
      let atMs = event.startMs;
      for (const [, centiseconds, text] of event.text.replace(/\\N/g, ' ').matchAll(/\{\\k(\d+)\}(\S+)/g)) {
        const spoken = INTERVIEW.words.find((w) => w.text === shownWords(text ?? '')[0])!;
        expect(atMs).toBe(Math.round((spoken.startSeconds - CLIP.startSeconds) * 1000));
        atMs += Number(centiseconds) * 10;
      }
      expect(atMs).toBe(event.endMs);
    }
  });

  it('escapes braces and backslashes, so that no word opens an override block or starts a tag', () => {
    expect(escapeAssText('{\\b1}bold\\N')).toBe('\\{\\\u200bb1\\}bold\\\u200bN');
    expect(escapeAssText('two\nlines')).toBe('two lines');
    const document = assCaptions(
      clipCaptionCues(transcriptOf(word('{\\an8}up', 0, 0.5)), { startSeconds: 0, endSeconds: 1 }, 'clean')!,
      '9:16',
    );
    expect(parseAss(document).events.map((event) => shownWords(event.text))).toEqual([['{\\an8}up']]);
  });
});

/** Words some of which hold characters ASS reserves. */
const spokenWords = spokenWordsArbitrary(
  fc.oneof(fc.stringMatching(/^[a-z]{0,4}$/), fc.stringMatching(/^[a-z{}\\.!?-]{0,12}$/)),
);
const clipRange = clipRangeArbitrary(3000);

describe('assCaptions for any transcript and clip', () => {
  it('draws events inside the clip, one after another, each word spoken in it once and in order', () => {
    fc.assert(
      fc.property(
        spokenWords,
        clipRange,
        fc.constantFrom(...STYLES),
        fc.constantFrom('9:16', '16:9', '1:1') as fc.Arbitrary<'9:16' | '16:9' | '1:1'>,
        (words, clip, style, aspectRatio) => {
          const cues = clipCaptionCues(transcriptOf(...words), clip, style);
          const inside = words.filter((w) => w.startSeconds < clip.endSeconds && w.endSeconds > clip.startSeconds);
          expect(cues === null).toBe(inside.length === 0);
          const events = cues ? parseAss(assCaptions(cues, aspectRatio)).events : [];
          const clipMs = Math.round((clip.endSeconds - clip.startSeconds) * 1000);
          const misplaced = events.filter(
            (event, index) =>
              event.startMs < (events[index - 1]?.endMs ?? 0) ||
              event.endMs < event.startMs ||
              event.endMs > clipMs + 5,
          );
          expect(misplaced).toEqual([]);
          expect(events.flatMap((event) => shownWords(event.text))).toEqual(inside.map((w) => w.text));
          const karaokeLengths = (style === 'karaoke' ? events : []).map((event) => ({
            timed: 10 * [...event.text.matchAll(/\{\\k(\d+)\}/g)].reduce((sum, [, cs]) => sum + Number(cs), 0),
            shown: event.endMs - event.startMs,
          }));
          expect(karaokeLengths.filter(({ timed, shown }) => timed !== shown)).toEqual([]);
        },
      ),
      { numRuns: 300 },
    );
  });
});
