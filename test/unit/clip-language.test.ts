import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { TITLE_MAX_CHARACTERS, type ClipIdeasRequest, type TimedSentence } from '#domain/split-jobs/language/port';
import { WINK_MODEL_ID, WinkNlpLanguageModel } from '#domain/split-jobs/language/wink-nlp';
import { hookCues, openingStrength, PLAIN_OPENING } from '#domain/split-jobs/opening-cues';
import { cutAtWord, endsDangling, transcriptSentences } from '#domain/split-jobs/sentences';

const timed = (texts: readonly string[], secondsEach = 4, pause = 0.8): TimedSentence[] => {
  let at = 0.5;
  return texts.map((text, index) => {
    const sentence = { index, text, startSeconds: at, endSeconds: at + secondsEach };
    at += secondsEach + pause;
    return sentence;
  });
};

const TALK = [
  'Hello and welcome to this short talk about our team.',
  'Let me start with some background on the project.',
  'Why did our releases take two whole weeks?',
  'Every build ran on its own machine.',
  'So a small change waited for hours.',
  'Anyway that was how things were.',
  'We cut our build time by seventy three percent.',
  'A build that took forty minutes now takes eleven.',
  'The cache does most of the work.',
  'The office moved to a new floor.',
  'But the real problem was never the compiler.',
  'It was the review queue.',
  'Reviews waited days for a second pair of eyes.',
  'Thank you for listening to this talk.',
];

const request = (overrides: Partial<ClipIdeasRequest> = {}): ClipIdeasRequest => ({
  jobId: 'split_job_01',
  sentences: timed(TALK),
  language: 'en',
  clipStyle: 'viral_hooks',
  lengths: { minSeconds: 10, maxSeconds: 30, preferredSeconds: 20 },
  maxIdeas: 5,
  ...overrides,
});

describe('sentences of a transcript', () => {
  const word = (text: string, startSeconds: number) => ({ text, startSeconds, endSeconds: startSeconds + 0.3 });

  it('end at a full stop, a question or an exclamation mark, or the last word, timed by their words', () => {
    const sentences = transcriptSentences({
      language: 'en',
      words: [
        word('Prices', 0),
        word('fell.', 0.4),
        word('Why', 1.5),
        word('"now?"', 1.9),
        word('And', 3),
        word('then', 3.4),
      ],
    });
    expect(
      sentences.map((sentence) => ({ ...sentence, endSeconds: Math.round(sentence.endSeconds * 1000) / 1000 })),
    ).toEqual([
      { index: 0, text: 'Prices fell.', startSeconds: 0, endSeconds: 0.7, dangling: false },
      { index: 1, text: 'Why "now?"', startSeconds: 1.5, endSeconds: 2.2, dangling: false },
      { index: 2, text: 'And then', startSeconds: 3, endSeconds: 3.7, dangling: true },
    ]);
  });

  it.each([
    ['The numbers did not go up. In fact.', true],
    ['We went there because.', true],
    ['It was the best of the.', true],
    ['That is what we worked on.', false],
    ['Is it over?', false],
    ['Prices fell, then rose,', true],
  ])('say whether "%s" leaves its thought open: %s', (text, dangling) => {
    expect(endsDangling(text)).toBe(dangling);
  });

  it('are cut on a word boundary with an ellipsis, never beyond the limit', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), fc.integer({ min: 5, max: 120 }), (text, limit) => {
        const cut = cutAtWord(text, limit);
        expect(cut.length).toBeLessThanOrEqual(Math.max(limit, 1));
        const whole = text.replace(/\s+/g, ' ').trim();
        expect(cut === whole || (cut.endsWith('…') && whole.startsWith(cut.slice(0, -1)))).toBe(true);
      }),
    );
  });
});

describe('opening cues', () => {
  it.each([
    ['Why did our releases take two weeks?', 'question'],
    ['do you know what a build cache does', 'question'],
    ['We cut build time by 73 percent.', 'number'],
    ['A build that took forty minutes now takes eleven.', 'number'],
    ['But the real problem was the review queue.', 'contrast'],
    ['Here is how we fixed it in one afternoon.', 'promise'],
    ['This is the biggest mistake teams make.', 'claim'],
  ] as const)('find in "%s" %s', (sentence, cue) => {
    expect(hookCues(sentence)[0]?.cue).toBe(cue);
    expect(openingStrength(sentence)).toBeGreaterThan(PLAIN_OPENING);
  });

  it('give a plain statement the plain strength and filler none', () => {
    expect(openingStrength('Let me start with some background on the project.')).toBe(PLAIN_OPENING);
    expect(openingStrength('Um, so, yeah.')).toBe(0);
  });
});

describe('the local language model (wink-nlp)', () => {
  const model = new WinkNlpLanguageModel();

  it('names the library and model versions package.json pins', () => {
    const pinned = JSON.parse(readFileSync('package.json', 'utf8')) as { dependencies: Record<string, string> };
    expect(WINK_MODEL_ID).toBe(
      `wink-nlp ${pinned.dependencies['wink-nlp']} (wink-eng-lite-web-model ${pinned.dependencies['wink-eng-lite-web-model']})`,
    );
  });

  it('proposes the ranges that open on the planted hooks first, each titled, hooked and explained by its own words', async () => {
    const answer = await model.proposeClips(request());
    if (answer.state !== 'answered') throw new Error(`expected ideas, got ${answer.detail}`);
    const openings = answer.ideas.slice(0, 3).map((idea) => TALK[idea.firstSentence]);
    expect(new Set(openings)).toEqual(new Set([TALK[2], TALK[6], TALK[10]]));
    const question = answer.ideas.find((idea) => idea.firstSentence === 2);
    expect(question).toMatchObject({
      hookLine: 'Why did our releases take two whole weeks?',
      title: 'Why did our releases take two whole weeks?',
      reason: expect.stringMatching(/^Opens on a question: “Why did our releases take two whole weeks\?”/),
    });
  });

  it('keeps every idea within the lengths, apart from the others, and never ending a thought left open', async () => {
    const sentences = fc.array(
      fc.oneof(
        fc.constantFrom(...TALK),
        fc.constantFrom('And so.', 'In fact.', 'The.', 'Um.', 'Is it?'),
        fc.string({ maxLength: 60 }),
      ),
      { maxLength: 40 },
    );
    await fc.assert(
      fc.asyncProperty(sentences, fc.integer({ min: 1, max: 8 }), async (texts, seconds) => {
        const timedSentences = timed(texts, seconds, 0.6);
        const answer = await model.proposeClips(request({ sentences: timedSentences }));
        if (answer.state !== 'answered') throw new Error(answer.detail);
        const sorted = [...answer.ideas].sort((a, b) => a.firstSentence - b.firstSentence);
        sorted.forEach((idea, index) => {
          const first = timedSentences[idea.firstSentence]!;
          const last = timedSentences[idea.lastSentence]!;
          expect(last.endSeconds - first.startSeconds).toBeGreaterThanOrEqual(10);
          expect(last.endSeconds - first.startSeconds).toBeLessThanOrEqual(30);
          expect(endsDangling(last.text)).toBe(false);
          expect(idea.title.length).toBeLessThanOrEqual(TITLE_MAX_CHARACTERS);
          expect(idea.score).toBeGreaterThanOrEqual(0);
          expect(idea.score).toBeLessThanOrEqual(100);
          expect(idea.firstSentence).toBeGreaterThan(sorted[index - 1]?.lastSentence ?? -1);
        });
        expect(answer.ideas.length).toBeLessThanOrEqual(5);
      }),
      { numRuns: 60 },
    );
  });

  it('ends a clip before the speaker turns to another subject', async () => {
    const texts = [
      'Why did our releases take two whole weeks?',
      'Every build ran on its own machine.',
      'So a small change waited for hours.',
      'Anyway that was how things were.',
      'We talked about it at lunch a few times.',
    ];
    const answer = await model.proposeClips(request({ sentences: timed(texts), maxIdeas: 1 }));
    expect(answer).toMatchObject({ state: 'answered', ideas: [{ firstSentence: 0, lastSentence: 2 }] });
  });

  it('answers the same ideas for the same sentences', async () => {
    const [first, second] = await Promise.all([model.proposeClips(request()), model.proposeClips(request())]);
    expect({ ...first, usage: undefined }).toEqual({ ...second, usage: undefined });
  });

  it('declines a language other than English, so the clips are ranked without it', async () => {
    await expect(model.proposeClips(request({ language: 'de-DE' }))).resolves.toEqual({
      state: 'failed',
      cause: 'unavailable',
      detail: 'The local language model reads English only, not de-DE.',
    });
  });

  it('weighs what each clip style values: the hook most for viral_hooks, the subject most for educational', async () => {
    const viral = await model.proposeClips(request({ clipStyle: 'viral_hooks', maxIdeas: 1 }));
    const educational = await model.proposeClips(request({ clipStyle: 'educational', maxIdeas: 1 }));
    if (viral.state !== 'answered' || educational.state !== 'answered') throw new Error('expected ideas');
    expect(viral.ideas[0]!.score).toBeGreaterThan(educational.ideas[0]!.score);
  });
});
