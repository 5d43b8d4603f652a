import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ConverseCommandOutput } from '@aws-sdk/client-bedrock-runtime';
import fc from 'fast-check';
import { LENGTH_TOLERANCE_SECONDS, parseClipIdeas } from '#domain/split-jobs/language/clip-ideas';
import {
  HOOK_LINE_MAX_CHARACTERS,
  REASON_MAX_CHARACTERS,
  TITLE_MAX_CHARACTERS,
  type ClipIdea,
  type TimedSentence,
} from '#domain/split-jobs/language/port';

const FIXTURES = join(__dirname, '..', 'fixtures', 'bedrock');

/** A Converse answer recorded in its real shape (test/fixtures/bedrock). */
function recorded(name: string): ConverseCommandOutput {
  return JSON.parse(readFileSync(join(FIXTURES, `${name}.json`), 'utf8')) as ConverseCommandOutput;
}

/** Thirty sentences of a podcast episode about sleep, 159 s in all. */
const SENTENCES: TimedSentence[] = (
  JSON.parse(readFileSync(join(FIXTURES, 'transcript.json'), 'utf8')) as { sentences: TimedSentence[] }
).sentences;

const LENGTHS = { minSeconds: 15, maxSeconds: 45, preferredSeconds: 30 };

describe('parseClipIdeas', () => {
  const valid = recorded('valid').output!.message!.content![0]!.toolUse!.input as { clips: Record<string, unknown>[] };
  const [A] = valid.clips;
  const withoutScore = Object.fromEntries(Object.entries(A!).filter(([key]) => key !== 'score'));

  it('refuses an answer that is not {"clips": [...]}, and one with no clip', () => {
    for (const raw of [null, 'clips', [], { clips: {} }, { ideas: [] }, { clips: [], extra: 1 }]) {
      expect(parseClipIdeas(raw, SENTENCES, LENGTHS, 6)).toMatchObject({ valid: false });
    }
    expect(parseClipIdeas({ clips: [] }, SENTENCES, LENGTHS, 6)).toMatchObject({
      valid: false,
      reason: 'the answer proposes no clip',
    });
  });

  it('drops an idea with a field missing, added or of another type', () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [withoutScore, /missing score/],
      [{ ...A, mood: 'happy' }, /unexpected mood/],
      [{ ...A, first_sentence: '8' }, /not integers/],
      [{ ...A, first_sentence: 8.5 }, /not integers/],
      [{ ...A, score: 101 }, /score/],
      [{ ...A, score: 90.5 }, /score/],
      [{ ...A, hook_line: 7 }, /hook_line is not a string/],
      [{ ...A, reason: '   ' }, /reason is empty/],
      [{ ...A, title: 'Two lines\nof title' }, /title holds a control character/],
      [{ ...A, reason: 'x'.repeat(REASON_MAX_CHARACTERS + 1) }, /reason is longer than/],
      [{ ...A, hook_line: 'x'.repeat(HOOK_LINE_MAX_CHARACTERS + 1) }, /hook_line is longer than/],
      [{ ...A, title: 'The experiment that changed everything about sl…' }, /title ends mid-word/],
      [{ ...A, title: 'The experiment that changed every-' }, /title ends mid-word/],
    ];
    for (const [clip, reason] of cases) {
      const reading = parseClipIdeas({ clips: [clip, valid.clips[1]] }, SENTENCES, LENGTHS, 6);
      expect(reading).toMatchObject({ valid: true, ideas: [{ firstSentence: 14 }] });
      expect(reading.dropped).toEqual([{ position: 0, reason: expect.stringMatching(reason) }]);
    }
  });

  it(`allows ${LENGTH_TOLERANCE_SECONDS} s either side of the lengths, and no more`, () => {
    // Sentences 8 to 10 last 14.8 s; 8 to 9, 9.9 s; 5 to 13, 47.8 s; 6 to 13, 42.1 s.
    const range = (first: number, last: number) => ({ ...A, first_sentence: first, last_sentence: last });
    const kept = (first: number, last: number) =>
      parseClipIdeas({ clips: [range(first, last)] }, SENTENCES, LENGTHS, 6).valid;
    expect(kept(8, 10)).toBe(true);
    expect(kept(8, 9)).toBe(false);
    expect(kept(6, 13)).toBe(true);
    expect(kept(5, 13)).toBe(false);
  });

  it('trims texts, keeps the better of a range proposed twice, and the best ideas past the number asked for', () => {
    const reading = parseClipIdeas(
      { clips: [{ ...A, title: '  Padded title  ' }, { ...A, score: 40 }, ...valid.clips.slice(1)] },
      SENTENCES,
      LENGTHS,
      2,
    );
    expect(reading).toMatchObject({
      valid: true,
      ideas: [
        { firstSentence: 8, title: 'Padded title', score: 91 },
        { firstSentence: 14, score: 84 },
      ],
    });
    expect(reading.dropped.map(({ reason }) => reason)).toEqual([
      'repeats the range 8-13',
      'past the 2 ideas asked for',
      'past the 2 ideas asked for',
    ]);
  });

  /** Every rule of an idea, checked on what parseClipIdeas returned. */
  function expectWithinRules(idea: ClipIdea, maxIdeas: number, ideas: readonly ClipIdea[]) {
    const byIndex = new Map(SENTENCES.map((sentence) => [sentence.index, sentence]));
    expect(Object.keys(idea).sort()).toEqual(['firstSentence', 'hookLine', 'lastSentence', 'reason', 'score', 'title']);
    expect(Number.isInteger(idea.firstSentence) && Number.isInteger(idea.lastSentence)).toBe(true);
    expect(idea.firstSentence).toBeLessThanOrEqual(idea.lastSentence);
    expect(byIndex.has(idea.firstSentence) && byIndex.has(idea.lastSentence)).toBe(true);
    const seconds = byIndex.get(idea.lastSentence)!.endSeconds - byIndex.get(idea.firstSentence)!.startSeconds;
    expect(seconds).toBeGreaterThanOrEqual(LENGTHS.minSeconds - LENGTH_TOLERANCE_SECONDS);
    expect(seconds).toBeLessThanOrEqual(LENGTHS.maxSeconds + LENGTH_TOLERANCE_SECONDS);
    for (const [text, max] of [
      [idea.title, TITLE_MAX_CHARACTERS],
      [idea.hookLine, HOOK_LINE_MAX_CHARACTERS],
      [idea.reason, REASON_MAX_CHARACTERS],
    ] as const) {
      expect(text.length).toBeGreaterThan(0);
      expect(text).toBe(text.trim());
      expect(Array.from(text).length).toBeLessThanOrEqual(max);
    }
    expect(Number.isInteger(idea.score) && idea.score >= 0 && idea.score <= 100).toBe(true);
    expect(ideas.length).toBeLessThanOrEqual(maxIdeas);
  }

  it('never throws on arbitrary JSON, and every idea it returns keeps every rule', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.integer({ min: 0, max: 12 }), (raw, maxIdeas) => {
        const reading = parseClipIdeas(raw, SENTENCES, LENGTHS, maxIdeas);
        const ideas = reading.valid ? reading.ideas : [];
        for (const idea of ideas) expectWithinRules(idea, maxIdeas, ideas);
      }),
      { numRuns: 300 },
    );
  });

  it('never throws on answers shaped like the schema, and every idea it returns keeps every rule', () => {
    const text = fc.oneof(
      fc.string({ maxLength: 80 }),
      fc.string({ minLength: 55, maxLength: 260 }),
      fc.string({ unit: 'binary', maxLength: 70 }),
    );
    const clip = fc.record(
      {
        first_sentence: fc.oneof(fc.integer({ min: -3, max: 33 }), fc.double(), fc.constant('3')),
        last_sentence: fc.integer({ min: -3, max: 33 }),
        hook_line: text,
        title: text,
        reason: text,
        score: fc.oneof(fc.integer({ min: -10, max: 110 }), fc.double({ noNaN: false })),
        extra: fc.jsonValue(),
      },
      { requiredKeys: ['first_sentence', 'last_sentence', 'hook_line', 'title', 'reason'] },
    );
    fc.assert(
      fc.property(fc.array(clip, { maxLength: 12 }), fc.integer({ min: 1, max: 8 }), (clips, maxIdeas) => {
        const reading = parseClipIdeas({ clips }, SENTENCES, LENGTHS, maxIdeas);
        const ideas = reading.valid ? reading.ideas : [];
        expect(reading.valid ? ideas.length > 0 : true).toBe(true);
        for (const idea of ideas) expectWithinRules(idea, maxIdeas, ideas);
        expect(reading.dropped.length).toBeLessThanOrEqual(clips.length);
      }),
      { numRuns: 300 },
    );
  });
});
