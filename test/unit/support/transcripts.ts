import fc from 'fast-check';
import type { Transcript, TranscriptWord } from '#domain/split-jobs/transcription/port';

/** A word of a transcript, spoken from `startSeconds` to `endSeconds` of the source. */
export const word = (text: string, startSeconds: number, endSeconds: number): TranscriptWord => ({
  text,
  startSeconds,
  endSeconds,
});

/** An English transcript of these words. */
export const transcriptOf = (...words: TranscriptWord[]): Transcript => ({ language: 'en', words });

/**
 * Words one after another on a 10 ms grid (so "inside the clip" has one answer), each unique (its
 * index first), the rest of each word drawn from `fragment`; the first starts within the first
 * `firstStartMaxCs` hundredths of a second.
 */
export function spokenWordsArbitrary(fragment: fc.Arbitrary<string>, firstStartMaxCs = 0) {
  return fc
    .record({
      firstStart: fc.integer({ min: 0, max: firstStartMaxCs }),
      words: fc.array(
        fc.record({
          // Mostly words said in one breath, some after a pause of up to 1.5 s.
          gap: fc.oneof(fc.integer({ min: 0, max: 20 }), fc.integer({ min: 0, max: 150 })),
          duration: fc.integer({ min: 1, max: 80 }),
          fragment,
        }),
        { maxLength: 60 },
      ),
    })
    .map(({ firstStart, words }) => {
      let at = firstStart;
      return words.map(({ gap, duration, fragment: rest }, index) => {
        at += gap;
        const spoken = word(`${index}${rest}`, at / 100, (at + duration) / 100);
        at += duration;
        return spoken;
      });
    });
}

/** A clip starting within the first `startMaxCs` hundredths of a second, up to 25 s long. */
export function clipRangeArbitrary(startMaxCs: number) {
  return fc
    .record({ start: fc.integer({ min: 0, max: startMaxCs }), length: fc.integer({ min: 1, max: 2500 }) })
    .map(({ start, length }) => ({ startSeconds: start / 100, endSeconds: (start + length) / 100 }));
}
