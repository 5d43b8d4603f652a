import fc from 'fast-check';
import type { SplitPlatform } from '#contract/types';
import {
  autoClipLengths,
  CLIP_LENGTHS,
  CLIP_STYLE_WEIGHTS,
  chooseClips,
  MAX_REASONS,
  SENTENCE_LEAD_SECONDS,
  SENTENCE_TAIL_SECONDS,
  sentenceEdges,
  SILENCE_EDGE_PAD_SECONDS,
  signalWeights,
  SPEECH_NEIGHBOURHOOD_SECONDS,
  type ChosenClip,
  type ClipChoiceOptions,
  type ClipLengthPreset,
  type ClipSignal,
  type ClipStyle,
  type SpokenContent,
} from '#domain/split-jobs/clip-selection';
import { TITLE_MAX_CHARACTERS, type ClipIdea, type ClipIdeasAnswer } from '#domain/split-jobs/language/port';
import { transcriptSentences, type Sentence } from '#domain/split-jobs/sentences';
import {
  ANALYSIS_WINDOW_SECONDS,
  LOUDNESS_FLOOR_DB,
  type SourceAnalysis,
  type TimeRange,
} from '#domain/split-jobs/source-analysis';
import type { Transcript } from '#domain/split-jobs/transcription/port';

const PRESETS: ClipLengthPreset[] = ['under_30', 'under_60', 'under_90', 'auto'];
const STYLES = Object.keys(CLIP_STYLE_WEIGHTS) as ClipStyle[];
const PLATFORMS: SplitPlatform[] = ['tiktok', 'instagram_reels', 'youtube_shorts', 'facebook_reels', 'linkedin', 'x'];

const round3 = (seconds: number) => Math.round(seconds * 1000) / 1000;
const windowsOf = (durationSeconds: number) => Math.ceil(durationSeconds / ANALYSIS_WINDOW_SECONDS);

/** A seeded generator, so a 3-hour analysis is one seed to fast-check rather than 20 000 values. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}

/** Plateaus of random length and level, as real loudness and motion come in stretches. */
function plateaus(count: number, random: () => number, level: () => number): number[] {
  const values: number[] = [];
  while (values.length < count) {
    const value = level();
    const stretch = 1 + Math.floor(random() * 40);
    for (let index = 0; index < stretch && values.length < count; index += 1) values.push(value);
  }
  return values;
}

function silencesFrom(pairs: [number, number][], durationSeconds: number): TimeRange[] {
  const silences: TimeRange[] = [];
  for (const [at, length] of [...pairs].sort((a, b) => a[0] - b[0])) {
    const startSeconds = round3(at * durationSeconds);
    const endSeconds = round3(Math.min(durationSeconds, startSeconds + 0.4 + length * 8));
    const previous = silences.at(-1);
    if (previous && startSeconds <= previous.endSeconds) continue;
    silences.push({ startSeconds, endSeconds });
  }
  return silences;
}

const durations = fc
  .oneof(fc.integer({ min: 1_000, max: 120_000 }), fc.integer({ min: 120_000, max: 3 * 3600 * 1000 }))
  .map((milliseconds) => milliseconds / 1000);

const analyses: fc.Arbitrary<SourceAnalysis> = durations.chain((durationSeconds) =>
  fc
    .record({
      seed: fc.integer(),
      cuts: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 300 }),
      silences: fc.array(
        fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true })),
        {
          maxLength: 150,
        },
      ),
      hasAudio: fc.boolean(),
    })
    .map(({ seed, cuts, silences, hasAudio }) => {
      const random = seededRandom(seed);
      const count = windowsOf(durationSeconds);
      return {
        durationSeconds,
        loudnessDb: hasAudio
          ? plateaus(count, random, () => (random() < 0.2 ? LOUDNESS_FLOOR_DB : -60 + random() * 60))
          : new Array<number>(count).fill(LOUDNESS_FLOOR_DB),
        motion: plateaus(count, random, () => random() ** 3),
        sceneCuts: [...new Set(cuts.map((at) => round3(at * durationSeconds)))].sort((a, b) => a - b),
        silences: hasAudio ? silencesFrom(silences, durationSeconds) : [],
        hasAudio,
      };
    }),
);

/** Words spread over the source at a given rate, every few words ending a sentence. */
function spokenWords(durationSeconds: number, seed: number, wordsPerSecond: number): Transcript {
  const random = seededRandom(seed);
  const vocabulary = ['so', 'here', 'is', 'the', 'thing', 'about', 'video', 'clips', 'that', 'works'];
  const words = [];
  for (let at = random(); at < durationSeconds; at += (0.5 + random()) / wordsPerSecond) {
    const text = vocabulary[Math.floor(random() * vocabulary.length)]!;
    words.push({ text: random() < 0.15 ? `${text}.` : text, startSeconds: round3(at), endSeconds: round3(at + 0.2) });
  }
  return { language: 'en', words };
}

const optionsArbitrary: fc.Arbitrary<ClipChoiceOptions> = fc.record({
  preset: fc.constantFrom(...PRESETS),
  clipStyle: fc.constantFrom(...STYLES),
  platforms: fc.subarray(PLATFORMS),
  maxClips: fc.integer({ min: 1, max: 30 }),
});

/** What the language step answered: nothing asked, a failure, or ideas over sentence positions in [0, 1). */
type LanguageCase = null | 'failed' | { at: number; span: number; score: number }[];

interface Case {
  analysis: SourceAnalysis;
  transcript: { seed: number; wordsPerSecond: number } | null;
  language: LanguageCase;
  options: ClipChoiceOptions;
}

const cases: fc.Arbitrary<Case> = fc.record({
  analysis: analyses,
  transcript: fc.option(
    fc.record({ seed: fc.integer(), wordsPerSecond: fc.double({ min: 0.1, max: 4, noNaN: true }) }),
  ),
  language: fc.oneof(
    fc.constant(null),
    fc.constant('failed' as const),
    fc.array(
      fc.record({
        at: fc.double({ min: 0, max: 0.999, noNaN: true }),
        span: fc.integer({ min: 0, max: 40 }),
        score: fc.integer({ min: 0, max: 100 }),
      }),
      { maxLength: 30 },
    ),
  ),
  options: optionsArbitrary,
});

function ideaAt(sentences: readonly Sentence[], at: number, span: number, score: number): ClipIdea {
  const firstSentence = Math.floor(at * sentences.length);
  const lastSentence = Math.min(sentences.length - 1, firstSentence + span);
  return {
    firstSentence,
    lastSentence,
    hookLine: sentences[firstSentence]!.text,
    title: `Idea ${firstSentence}`,
    reason: `Proposed from sentence ${firstSentence} to ${lastSentence}.`,
    score,
  };
}

function spokenContentOf({ analysis, transcript, language }: Case): SpokenContent | null {
  if (!transcript) return null;
  const sentences = transcriptSentences(
    spokenWords(analysis.durationSeconds, transcript.seed, transcript.wordsPerSecond),
  );
  if (language === null || sentences.length === 0) return { sentences, language: null };
  const answer: ClipIdeasAnswer =
    language === 'failed'
      ? { state: 'failed', cause: 'timeout', detail: 'no answer in 60 s' }
      : { state: 'answered', ideas: language.map(({ at, span, score }) => ideaAt(sentences, at, span, score)) };
  return { sentences, language: { modelId: 'test-model', answer } };
}

function run(input: Case) {
  return chooseClips(input.analysis, spokenContentOf(input), input.options);
}

/**
 * Whether `seconds` is somewhere a clip may begin (or end) for this analysis, sentences and
 * preferred length: the edge of a sentence (one that does not leave its thought open, for an end);
 * away from speech, 0, the end, a cut, or inside a silence, the pad from one of its edges (its
 * middle when it is shorter than two pads); or a point of the fallback grid.
 */
function isBoundaryPoint(
  analysis: SourceAnalysis,
  sentences: readonly Sentence[],
  preferredSeconds: number,
  seconds: number,
  edge: 'start' | 'end',
): boolean {
  const duration = round3(analysis.durationSeconds);
  const sentenceEdge = sentences.some((sentence, index) =>
    edge === 'start'
      ? sentenceEdges(sentences, index, duration)[0] === seconds
      : !sentence.dangling && sentenceEdges(sentences, index, duration)[1] === seconds,
  );
  const nearSpeech = sentences.some(
    (sentence) =>
      seconds > sentence.startSeconds - SPEECH_NEIGHBOURHOOD_SECONDS &&
      seconds < sentence.endSeconds + SPEECH_NEIGHBOURHOOD_SECONDS,
  );
  const insideSilences = analysis.silences.flatMap(({ startSeconds, endSeconds }) => {
    const pad = Math.min(SILENCE_EDGE_PAD_SECONDS, (endSeconds - startSeconds) / 2);
    return [round3(startSeconds + pad), round3(endSeconds - pad)];
  });
  const content = [0, duration, ...analysis.sceneCuts.map(round3), ...insideSilences];
  const endOfOpenSpeech = edge === 'end' && seconds === duration && sentences.at(-1)?.dangling === true;
  return (
    sentenceEdge ||
    endOfOpenSpeech ||
    (!nearSpeech && content.includes(Math.min(duration, Math.max(0, seconds)))) ||
    Number.isInteger(seconds / preferredSeconds)
  );
}

const inOrderOfScore = (clips: ChosenClip[]) =>
  clips.every((clip, index) => {
    const next = clips[index + 1];
    return !next || clip.score > next.score || (clip.score === next.score && clip.startSeconds <= next.startSeconds);
  });

describe('clip selection, for any analysis and options', () => {
  it('returns between one and maxClips clips, inside the source and never overlapping', () => {
    fc.assert(
      fc.property(cases, (input) => {
        const { clips } = run(input);
        const duration = round3(input.analysis.durationSeconds);
        expect(clips.length).toBeGreaterThanOrEqual(1);
        expect(clips.length).toBeLessThanOrEqual(input.options.maxClips);
        const byStart = [...clips].sort((a, b) => a.startSeconds - b.startSeconds);
        const misplaced = byStart.filter(
          (clip, index) =>
            clip.startSeconds < 0 ||
            clip.endSeconds > duration ||
            clip.endSeconds <= clip.startSeconds ||
            clip.startSeconds < (byStart[index - 1]?.endSeconds ?? 0),
        );
        expect(misplaced).toEqual([]);
      }),
    );
  });

  it('keeps every clip within the lengths chosen, or makes a source shorter than their minimum one whole clip', () => {
    fc.assert(
      fc.property(cases, (input) => {
        const { lengths, clips } = run(input);
        expect([lengths, 'auto']).toContain(input.options.preset);
        const { minSeconds, maxSeconds } = CLIP_LENGTHS[lengths];
        const duration = round3(input.analysis.durationSeconds);
        const shortSource = duration < minSeconds;
        const fits = ({ startSeconds, endSeconds }: ChosenClip) =>
          shortSource
            ? startSeconds === 0 && endSeconds === duration
            : endSeconds - startSeconds >= minSeconds && endSeconds - startSeconds <= maxSeconds;
        expect(clips.filter((clip) => !fits(clip))).toEqual([]);
        expect(shortSource ? clips.length : 1).toBe(1);
      }),
    );
  });

  it('scores clips within [0, 1] to three decimals and lists them best first, earlier first on ties', () => {
    fc.assert(
      fc.property(cases, (input) => {
        const { clips } = run(input);
        for (const { score } of clips) {
          expect(score).toBeGreaterThanOrEqual(0);
          expect(score).toBeLessThanOrEqual(1);
          expect(round3(score)).toBe(score);
        }
        expect(inOrderOfScore(clips)).toBe(true);
      }),
    );
  });

  it('starts and ends every clip at a sentence edge near speech, elsewhere on 0, the end, a cut, inside a silence or the grid', () => {
    fc.assert(
      fc.property(cases, (input) => {
        const { lengths, clips } = run(input);
        const { preferredSeconds } = CLIP_LENGTHS[lengths];
        const duration = round3(input.analysis.durationSeconds);
        const sentences = spokenContentOf(input)?.sentences ?? [];
        for (const clip of clips) {
          if (clip.startSeconds === 0 && clip.endSeconds === duration) continue;
          expect(isBoundaryPoint(input.analysis, sentences, preferredSeconds, clip.startSeconds, 'start')).toBe(true);
          expect(isBoundaryPoint(input.analysis, sentences, preferredSeconds, clip.endSeconds, 'end')).toBe(true);
        }
      }),
    );
  });

  it("breaks every score down into the style's weights and signals in [0, 1] that recompute it within 0.002", () => {
    fc.assert(
      fc.property(cases, (input) => {
        const { clips } = run(input);
        for (const { score, breakdown, ranking } of clips) {
          const weights = signalWeights(
            input.options.clipStyle,
            input.options.platforms,
            ranking.source === 'language_and_signals',
          );
          const contributions = Object.entries(breakdown) as [ClipSignal, { value: number; weight: number }][];
          expect(contributions.map(([signal]) => signal).sort()).toEqual(Object.keys(weights).sort());
          for (const [signal, { value, weight }] of contributions) {
            expect(value).toBeGreaterThanOrEqual(0);
            expect(value).toBeLessThanOrEqual(1);
            expect(Math.abs(weight - weights[signal])).toBeLessThanOrEqual(0.00005);
          }
          const recomputed = contributions.reduce((sum, [, { value, weight }]) => sum + value * weight, 0);
          expect(Math.abs(recomputed - score)).toBeLessThanOrEqual(0.002);
        }
      }),
    );
  });

  it("gives every clip one to three different reasons, the language model's first where it proposed the clip", () => {
    fc.assert(
      fc.property(cases, (input) => {
        for (const { breakdown, reasons, ranking } of run(input).clips) {
          expect(reasons.length).toBeGreaterThanOrEqual(1);
          expect(reasons.length).toBeLessThanOrEqual(MAX_REASONS);
          expect(new Set(reasons).size).toBe(reasons.length);
          const proposed = breakdown.language.value > 0;
          expect(!proposed || /^Proposed from sentence \d+ to \d+\.$/.test(reasons[0]!)).toBe(true);
          const answered = Array.isArray(input.language) && (spokenContentOf(input)?.sentences.length ?? 0) > 0;
          expect(ranking.source).toBe(answered ? 'language_and_signals' : 'signals');
        }
      }),
    );
  });

  it('titles every clip with at most TITLE_MAX_CHARACTERS, whole words, from a sentence start or the proposal', () => {
    fc.assert(
      fc.property(cases, (input) => {
        const sentences = spokenContentOf(input)?.sentences ?? [];
        for (const { title } of run(input).clips) {
          if (title === null) continue;
          expect(title.length).toBeLessThanOrEqual(TITLE_MAX_CHARACTERS);
          const bare = title.replace(/…$/, '');
          const fromSentence = sentences.some((sentence) =>
            title.endsWith('…')
              ? sentence.text.toLowerCase().startsWith(`${bare} `.toLowerCase())
              : sentence.text.toLowerCase() === bare.toLowerCase(),
          );
          expect(fromSentence || /^Idea \d+$/.test(title)).toBe(true);
        }
      }),
    );
  });

  it('chooses the same clips every time for the same input', () => {
    fc.assert(
      fc.property(cases, (input) => {
        expect(run(structuredClone(input))).toEqual(run(input));
      }),
      { numRuns: 30 },
    );
  });
});

/** A ten-minute source, quiet and still but for the loud, busy stretch 300–340 s, cut every 20 s. */
function sourceWithLoudStretch(): SourceAnalysis {
  const durationSeconds = 600;
  const inStretch = (window: number) =>
    window * ANALYSIS_WINDOW_SECONDS >= 300 && window * ANALYSIS_WINDOW_SECONDS < 340;
  const windows = Array.from({ length: windowsOf(durationSeconds) }, (_, window) => window);
  return {
    durationSeconds,
    loudnessDb: windows.map((window) => (inStretch(window) ? -10 : -35)),
    motion: windows.map((window) => (inStretch(window) ? 0.3 : 0.02)),
    sceneCuts: [...Array.from({ length: 29 }, (_, index) => (index + 1) * 20), 310, 330].sort((a, b) => a - b),
    silences: [],
    hasAudio: true,
  };
}

function steadySource(durationSeconds: number): SourceAnalysis {
  const count = windowsOf(durationSeconds);
  return {
    durationSeconds,
    loudnessDb: new Array<number>(count).fill(-20),
    motion: new Array<number>(count).fill(0),
    sceneCuts: [],
    silences: [],
    hasAudio: true,
  };
}

const OPTIONS: ClipChoiceOptions = { preset: 'under_60', clipStyle: 'balanced', platforms: [], maxClips: 10 };

describe('clip selection, by example', () => {
  it.each(['highlights', 'viral_hooks', 'balanced'] as const)(
    'takes the loud, busy stretch first for %s clips',
    (clipStyle) => {
      const { clips } = chooseClips(sourceWithLoudStretch(), null, { ...OPTIONS, clipStyle });
      expect(clips[0]).toMatchObject({ startSeconds: 300, endSeconds: 340 });
      expect(clips[0]!.score).toBeGreaterThan(clips[1]!.score);
    },
  );

  it('explains the loud, busy stretch by its movement, loudness and cuts, strongest contribution first, in figures', () => {
    const { clips } = chooseClips(sourceWithLoudStretch(), null, { ...OPTIONS, clipStyle: 'highlights' });
    const weights = signalWeights('highlights', [], false);
    expect(clips[0]!.breakdown).toMatchObject({
      energy: { value: 1, weight: Math.round(weights.energy * 10_000) / 10_000 },
      motion: { weight: Math.round(weights.motion * 10_000) / 10_000 },
      language: { value: 0, weight: 0 },
    });
    expect(clips[0]!.reasons).toEqual([
      "7.8× the source's average movement on screen.",
      'Louder than 93% of the source.',
      'Sound through 100% of it.',
    ]);
    expect(clips[0]!.ranking).toEqual({
      source: 'signals',
      languageModel: null,
      fallbackReason: 'No words were transcribed: ranked by sound and picture alone.',
    });
  });

  it('places a clip in the source when nothing in it stands out, so no two clips get the same reason', () => {
    const quiet = { ...steadySource(600), loudnessDb: steadySource(600).loudnessDb.map(() => -60) };
    const { clips } = chooseClips(quiet, null, { ...OPTIONS, maxClips: 3 });
    expect(clips.map((clip) => clip.reasons)).toEqual(
      clips.map((clip) => [
        `The strongest stretch left, ${Math.floor(clip.startSeconds / 60)}:${String(clip.startSeconds % 60).padStart(2, '0')} to ${Math.floor(clip.endSeconds / 60)}:${String(clip.endSeconds % 60).padStart(2, '0')}: nothing in it stands out.`,
      ]),
    );
  });

  it('still makes clips of a source with no cuts and no silences, on the grid of the preferred length', () => {
    const { clips } = chooseClips(steadySource(600), null, OPTIONS);
    expect(clips).toHaveLength(10);
    for (const clip of clips) {
      expect([clip.startSeconds % 40, clip.endSeconds % 40]).toEqual([0, 0]);
      expect(clip.endSeconds - clip.startSeconds).toBe(40);
    }
  });

  it.each([
    [20, 'under_60'],
    [40, 'under_90'],
    [5, 'under_30'],
  ] as const)('makes a %s s source one clip of the whole source with %s', (durationSeconds, preset) => {
    const { clips } = chooseClips(steadySource(durationSeconds), null, { ...OPTIONS, preset });
    expect(clips.map(({ startSeconds, endSeconds }) => [startSeconds, endSeconds])).toEqual([[0, durationSeconds]]);
  });

  it('makes no clips of an empty source', () => {
    expect(chooseClips(steadySource(0), null, OPTIONS).clips).toEqual([]);
  });

  it('chooses among thousands of boundaries of a three-hour source in seconds', () => {
    const durationSeconds = 3 * 3600;
    const random = seededRandom(7);
    const analysis: SourceAnalysis = {
      ...steadySource(durationSeconds),
      loudnessDb: plateaus(windowsOf(durationSeconds), random, () => -50 + random() * 45),
      sceneCuts: Array.from({ length: 4000 }, (_, index) => round3(index * 2.7 + random())),
      silences: Array.from({ length: 2000 }, (_, index) => ({
        startSeconds: index * 5.4 + 1.5,
        endSeconds: index * 5.4 + 2,
      })),
    };
    const started = Date.now();
    const { clips } = chooseClips(analysis, null, { ...OPTIONS, preset: 'under_90', maxClips: 50 });
    // About 0.3 s in plain Node; Jest's sandbox makes every global lookup (Math) several times slower.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(clips).toHaveLength(50);
  });
});

/** A talk of sentences at given times, each word 0.35 s long, over a steady picture, with the pauses between them as silences. */
function talk(lines: readonly [number, string][], durationSeconds: number) {
  const words = lines.flatMap(([at, text]) =>
    text.split(' ').map((word, index) => ({
      text: word,
      startSeconds: round3(at + index * 0.4),
      endSeconds: round3(at + index * 0.4 + 0.35),
    })),
  );
  const sentences = transcriptSentences({ language: 'en', words });
  const silences = sentences.flatMap((sentence, index) => {
    const next = sentences[index + 1];
    const gapEnd = next ? next.startSeconds : durationSeconds;
    return gapEnd - sentence.endSeconds >= 0.4 ? [{ startSeconds: sentence.endSeconds, endSeconds: gapEnd }] : [];
  });
  const analysis: SourceAnalysis = { ...steadySource(durationSeconds), silences };
  return { analysis, sentences };
}

const signalsOnly = (sentences: readonly Sentence[]): SpokenContent => ({ sentences, language: null });
const under30 = { ...OPTIONS, preset: 'under_30' as const };

describe('clips of spoken words', () => {
  const lines: [number, string][] = [
    [0.5, 'Welcome to the weekly review of our build times.'],
    [5, 'Our builds were slow for most of the year.'],
    [9, 'The numbers did not go up.'],
    [11.5, 'In fact.'],
    [13.2, 'They went down every week.'],
    [17, 'Why did our releases take two weeks?'],
    [21, 'Every build ran on a machine of its own.'],
    [25, 'We moved them all to one shared cache.'],
    [29, 'A build that took forty minutes now takes eleven.'],
    [34, 'That is the whole story of this quarter.'],
  ];

  it('start SENTENCE_LEAD_SECONDS before a sentence and end SENTENCE_TAIL_SECONDS after one, never after a thought left open', () => {
    const { analysis, sentences } = talk(lines, 40);
    expect(sentences.map((sentence) => sentence.dangling)).toEqual([
      false,
      false,
      false,
      true,
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
    const { clips } = chooseClips(analysis, signalsOnly(sentences), { ...under30, maxClips: 3 });
    expect(clips.length).toBeGreaterThan(0);
    for (const clip of clips) {
      const opening = sentences.find(
        (sentence) => round3(sentence.startSeconds - SENTENCE_LEAD_SECONDS) === clip.startSeconds,
      );
      const closing = sentences.find(
        (sentence) => round3(sentence.endSeconds + SENTENCE_TAIL_SECONDS) === clip.endSeconds,
      );
      expect([clip.startSeconds, opening?.text]).toEqual([clip.startSeconds, expect.any(String)]);
      expect([clip.endSeconds, closing?.dangling]).toEqual([clip.endSeconds, false]);
    }
  });

  it('open on the planted question rather than on the stretch after a pause, and no plain opening scores a full hook', () => {
    const { analysis, sentences } = talk(lines, 40);
    const { clips } = chooseClips(analysis, signalsOnly(sentences), {
      ...under30,
      maxClips: 1,
      clipStyle: 'viral_hooks',
    });
    expect(clips[0]!.hookLine).toBe('Why did our releases take two weeks?');
    expect(clips[0]!.reasons).toContain('Opens on a question: “Why did our releases take two weeks?”.');
    const hooks = sentences.map((sentence, index) => {
      const [start, end] = [sentenceEdges(sentences, index, 40)[0], 40];
      return chooseClips({ ...analysis, durationSeconds: end }, signalsOnly(sentences.slice(index)), {
        ...under30,
        maxClips: 1,
      }).clips.find((clip) => clip.startSeconds === start)?.breakdown.hook.value;
    });
    const plain = hooks.filter(
      (hook, index) => hook !== undefined && !/\?|\d|forty|two|In fact/.test(sentences[index]!.text),
    );
    for (const hook of plain) expect(hook).toBeLessThan(0.6);
  });

  it('are titled by their opening sentence, cut at a word with an ellipsis past TITLE_MAX_CHARACTERS', () => {
    const long = 'This opening sentence keeps going well past the limit that a title may have in any list.';
    const { analysis, sentences } = talk(
      [
        [1, long],
        [12, 'Then a second one follows.'],
      ],
      16,
    );
    const clip = chooseClips(analysis, signalsOnly(sentences), { ...under30, maxClips: 2 }).clips.find(
      (chosen) => chosen.startSeconds === round3(1 - SENTENCE_LEAD_SECONDS),
    );
    expect(clip!.title!.length).toBeLessThanOrEqual(TITLE_MAX_CHARACTERS);
    expect(clip!.title!.endsWith('…')).toBe(true);
    expect(long.startsWith(`${clip!.title!.slice(0, -1)} `)).toBe(true);
    expect(clip!.hookLine).toBe(long);
  });

  it('have no title or hook line without a transcript, or without a word at their start', () => {
    const { analysis } = talk(lines, 40);
    expect(
      chooseClips(analysis, null, { ...under30, maxClips: 2 }).clips.map((clip) => [clip.title, clip.hookLine]),
    ).toEqual([
      [null, null],
      [null, null],
    ]);
    const { clips } = chooseClips(steadySource(60), signalsOnly([]), { ...under30, maxClips: 1 });
    expect([clips[0]!.title, clips[0]!.hookLine]).toEqual([null, null]);
  });

  const proposal: ClipIdea = {
    firstSentence: 6,
    lastSentence: 9,
    hookLine: 'Every build ran on a machine of its own.',
    title: 'One shared cache: from 40 minutes to 11',
    reason: 'Tells how one shared cache cut a build from forty minutes to eleven.',
    score: 92,
  };

  it("rank the language model's proposal first, with its title, hook line and reason", () => {
    const { analysis, sentences } = talk(lines, 40);
    const answer: ClipIdeasAnswer = { state: 'answered', ideas: [proposal] };
    const { clips } = chooseClips(
      analysis,
      { sentences, language: { modelId: 'test-model', answer } },
      { ...under30, maxClips: 2 },
    );
    expect(clips[0]).toMatchObject({
      startSeconds: round3(sentences[6]!.startSeconds - SENTENCE_LEAD_SECONDS),
      endSeconds: round3(sentences[9]!.endSeconds + SENTENCE_TAIL_SECONDS),
      title: proposal.title,
      hookLine: proposal.hookLine,
      ranking: { source: 'language_and_signals', languageModel: 'test-model', fallbackReason: null },
    });
    expect(clips[0]!.reasons[0]).toBe(proposal.reason);
    expect(clips[0]!.breakdown.language.value).toBe(0.92);
    expect(clips[1]!.breakdown.language.value).toBe(0);
  });

  it.each([
    ['throttled', 'The language model was too busy to answer: ranked by sound and picture alone.'],
    ['timeout', 'The language model did not answer in time: ranked by sound and picture alone.'],
    ['invalid_answer', "The language model's answer was not valid: ranked by sound and picture alone."],
    ['refused', 'The language model declined to answer: ranked by sound and picture alone.'],
  ] as const)('are still chosen when the language step fails (%s), and say so', (cause, fallbackReason) => {
    const { analysis, sentences } = talk(lines, 40);
    const answer: ClipIdeasAnswer = { state: 'failed', cause, detail: 'recorded' };
    const withFailure = chooseClips(analysis, { sentences, language: { modelId: 'test-model', answer } }, under30);
    const withoutModel = chooseClips(analysis, signalsOnly(sentences), under30);
    expect(withFailure.clips.map(({ startSeconds, endSeconds }) => [startSeconds, endSeconds])).toEqual(
      withoutModel.clips.map(({ startSeconds, endSeconds }) => [startSeconds, endSeconds]),
    );
    expect(withFailure.clips.length).toBeGreaterThan(0);
    for (const clip of withFailure.clips) {
      expect(clip.ranking).toEqual({ source: 'signals', languageModel: 'test-model', fallbackReason });
      expect(clip.breakdown.language.weight).toBe(0);
    }
  });
});

describe('clip lengths and weights', () => {
  it.each(Object.entries(CLIP_LENGTHS))(
    '%s prefers a length inside its range, with a maximum at least twice its minimum',
    (_, lengths) => {
      expect(lengths.minSeconds).toBeLessThan(lengths.preferredSeconds);
      expect(lengths.preferredSeconds).toBeLessThan(lengths.maxSeconds);
      expect(lengths.maxSeconds).toBeGreaterThanOrEqual(2 * lengths.minSeconds);
    },
  );

  it.each(STYLES)('weighs %s signals to a sum of 1, with or without platforms', (style) => {
    fc.assert(
      fc.property(fc.subarray(PLATFORMS), (platforms) => {
        const weights = Object.values(signalWeights(style, platforms));
        expect(weights.reduce((sum, weight) => sum + weight, 0)).toBeCloseTo(1, 12);
        for (const weight of weights) expect(weight).toBeGreaterThanOrEqual(0);
      }),
    );
  });

  it('weighs the hook more for short-video feeds and what is said more for LinkedIn and X', () => {
    const plain = signalWeights('balanced', []);
    expect(signalWeights('balanced', ['tiktok']).hook).toBeGreaterThan(plain.hook);
    expect(signalWeights('balanced', ['tiktok', 'instagram_reels', 'youtube_shorts'])).toEqual(
      signalWeights('balanced', ['tiktok']),
    );
    expect(signalWeights('balanced', ['linkedin']).language).toBeGreaterThan(plain.language);
    expect(signalWeights('podcast', ['x']).language).toBeGreaterThan(signalWeights('podcast', []).language);
  });

  it.each(STYLES)(
    'weighs language 0 for %s when the language step did not answer, the rest still summing to 1',
    (style) => {
      const weights = signalWeights(style, ['tiktok'], false);
      expect(weights.language).toBe(0);
      expect(Object.values(weights).reduce((sum, weight) => sum + weight, 0)).toBeCloseTo(1, 12);
    },
  );

  it('chooses lengths by content for auto', () => {
    const fastCuts = { ...steadySource(120), sceneCuts: Array.from({ length: 30 }, (_, index) => index * 4 + 2) };
    const quiet = { ...steadySource(120), loudnessDb: steadySource(120).loudnessDb.map(() => -60) };
    expect(autoClipLengths(fastCuts, 'balanced')).toBe('under_30');
    expect(autoClipLengths(fastCuts, 'podcast')).toBe('under_90');
    expect(autoClipLengths(steadySource(120), 'balanced')).toBe('under_90');
    expect(autoClipLengths(quiet, 'highlights')).toBe('under_60');
    expect(chooseClips(fastCuts, null, { ...OPTIONS, preset: 'auto' }).lengths).toBe('under_30');
  });
});
