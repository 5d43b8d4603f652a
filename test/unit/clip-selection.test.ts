import fc from 'fast-check';
import type { SplitPlatform } from '#contract/types';
import {
  autoClipLengths,
  CLIP_LENGTHS,
  CLIP_STYLE_WEIGHTS,
  chooseClips,
  clipReasons,
  MAX_REASONS,
  REASON_MIN_SIGNAL,
  SILENCE_EDGE_PAD_SECONDS,
  signalWeights,
  TITLE_MAX_CHARACTERS,
  type ChosenClip,
  type ClipChoiceOptions,
  type ClipLengthPreset,
  type ClipSignal,
  type ClipStyle,
  type ScoreBreakdown,
} from '#domain/split-jobs/clip-selection';
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

interface Case {
  analysis: SourceAnalysis;
  transcript: { seed: number; wordsPerSecond: number } | null;
  options: ClipChoiceOptions;
}

const cases: fc.Arbitrary<Case> = fc.record({
  analysis: analyses,
  transcript: fc.option(
    fc.record({ seed: fc.integer(), wordsPerSecond: fc.double({ min: 0.1, max: 4, noNaN: true }) }),
  ),
  options: optionsArbitrary,
});

function run({ analysis, transcript, options }: Case) {
  const spoken = transcript && spokenWords(analysis.durationSeconds, transcript.seed, transcript.wordsPerSecond);
  return chooseClips(analysis, spoken, options);
}

/**
 * Whether `seconds` is somewhere a clip may begin or end for this analysis and preferred length:
 * inside a silence, the pad from one of its edges (its middle when it is shorter than two pads).
 */
function isBoundaryPoint(analysis: SourceAnalysis, preferredSeconds: number, seconds: number): boolean {
  const insideSilences = analysis.silences.flatMap(({ startSeconds, endSeconds }) => {
    const pad = Math.min(SILENCE_EDGE_PAD_SECONDS, (endSeconds - startSeconds) / 2);
    return [round3(startSeconds + pad), round3(endSeconds - pad)];
  });
  const content = [0, round3(analysis.durationSeconds), ...analysis.sceneCuts.map(round3), ...insideSilences];
  return content.includes(seconds) || Number.isInteger(seconds / preferredSeconds);
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

  it('starts and ends every clip on 0, the end, a cut, just inside a silence or on a fallback grid point', () => {
    fc.assert(
      fc.property(cases, (input) => {
        const { lengths, clips } = run(input);
        const { preferredSeconds } = CLIP_LENGTHS[lengths];
        for (const clip of clips) {
          expect(isBoundaryPoint(input.analysis, preferredSeconds, clip.startSeconds)).toBe(true);
          expect(isBoundaryPoint(input.analysis, preferredSeconds, clip.endSeconds)).toBe(true);
        }
      }),
    );
  });

  it("breaks every score down into the style's weights and signals in [0, 1] that recompute it within 0.002", () => {
    fc.assert(
      fc.property(cases, (input) => {
        const { clips } = run(input);
        const weights = signalWeights(input.options.clipStyle, input.options.platforms);
        for (const { score, breakdown } of clips) {
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

  it('gives every clip one to three reasons, each from a signal at least REASON_MIN_SIGNAL strong when any is', () => {
    fc.assert(
      fc.property(cases, (input) => {
        for (const { breakdown, reasons } of run(input).clips) {
          const strong = Object.values(breakdown).filter(
            ({ value, weight }) => value >= REASON_MIN_SIGNAL && weight > 0,
          );
          expect(reasons.length).toBe(Math.max(1, Math.min(MAX_REASONS, strong.length)));
          expect(new Set(reasons).size).toBe(reasons.length);
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

  it('explains the loud, busy stretch by its movement, loudness and sudden start, strongest contribution first', () => {
    const { clips } = chooseClips(sourceWithLoudStretch(), null, { ...OPTIONS, clipStyle: 'highlights' });
    expect(clips[0]!.breakdown).toMatchObject({
      energy: { value: 1, weight: 0.25 },
      motion: { weight: 0.3 },
      rhythm: { weight: 0.25 },
    });
    expect(clips[0]!.reasons).toEqual([
      'Much more movement on screen than the rest of the source.',
      'Among the loudest, liveliest parts of the source.',
      'Opens with a sharp rise in sound in its first 3 seconds: a strong hook.',
    ]);
  });

  it('says so when no signal stands out, and words speech by whether there is a transcript', () => {
    const weak = (value: number) => ({ value, weight: 1 / 6 });
    const flat: ScoreBreakdown = {
      energy: weak(0.2),
      hook: weak(0),
      speech: weak(0.4),
      rhythm: weak(0),
      motion: weak(0.1),
      lengthFit: weak(0.3),
    };
    const context = { transcribed: false, preferredSeconds: 40 };
    expect(clipReasons(flat, context)).toEqual([
      'No single signal stands out: chosen as the best remaining part of the source overall.',
    ]);
    const spoken = { ...flat, speech: weak(0.9), lengthFit: weak(0.6) };
    expect(clipReasons(spoken, context)).toEqual([
      'Sound all the way through, with hardly a pause.',
      'Close to the ideal length of 40 seconds for its preset.',
    ]);
    expect(clipReasons(spoken, { ...context, transcribed: true })[0]).toBe('Brisk, continuous speech.');
    expect(clipReasons({ ...spoken, speech: { value: 0.9, weight: 0 } }, context)).toEqual([
      'Close to the ideal length of 40 seconds for its preset.',
    ]);
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

describe('clip titles', () => {
  const words = (startSeconds: number, text: string) =>
    text.split(' ').map((word, index) => ({
      text: word,
      startSeconds: startSeconds + index * 0.5,
      endSeconds: startSeconds + index * 0.5 + 0.4,
    }));
  /** Two 30 s clips, [0, 30] and [30, 60], split at the cut. */
  const twoShots: SourceAnalysis = { ...steadySource(60), sceneCuts: [30] };
  const titlesOf = (transcript: Transcript | null) =>
    chooseClips(twoShots, transcript, { ...OPTIONS, preset: 'under_30', maxClips: 2 })
      .clips.sort((a, b) => a.startSeconds - b.startSeconds)
      .map((clip) => clip.title);

  it('are the first sentence begun inside each clip', () => {
    const transcript: Transcript = {
      language: 'en',
      words: [
        ...words(1, 'Welcome back, everyone. Today we cut videos.'),
        ...words(28.5, 'And this sentence began in the first clip. Here is the second one!'),
      ],
    };
    expect(titlesOf(transcript)).toEqual(['Welcome back, everyone.', 'began in the first clip.']);
  });

  it('stop at the end of the clip when the sentence runs on', () => {
    expect(titlesOf({ language: 'en', words: words(27, 'One two three four five six seven') })).toEqual([
      'One two three four five six',
      'seven',
    ]);
  });

  it(`are cut at a word boundary with an ellipsis past ${TITLE_MAX_CHARACTERS} characters`, () => {
    const sentence =
      'This is a very long opening sentence that keeps going well past the limit a title may have in the list.';
    const [title] = titlesOf({ language: 'en', words: words(1, sentence) });
    expect(title!.length).toBeLessThanOrEqual(TITLE_MAX_CHARACTERS);
    expect(title!.endsWith('…')).toBe(true);
    expect(sentence.startsWith(`${title!.slice(0, -1)} `)).toBe(true);
  });

  it('keep the first word of a clip that starts after a pause, though the word rose above the silence threshold late', () => {
    // The pause measured [29.5, 30.6]: "So" began at 30.45, its soft start still under -40 dB.
    const paused: SourceAnalysis = { ...steadySource(60), silences: [{ startSeconds: 29.5, endSeconds: 30.6 }] };
    const transcript: Transcript = {
      language: 'en',
      words: [...words(24, 'That was the first part.'), ...words(30.45, 'So here is the second part.')],
    };
    const clips = chooseClips(paused, transcript, { ...OPTIONS, preset: 'under_30', maxClips: 2 }).clips.sort(
      (a, b) => a.startSeconds - b.startSeconds,
    );
    expect(clips.map((clip) => [clip.startSeconds, clip.endSeconds])).toEqual([
      [0, 29.7],
      [30.4, 60],
    ]);
    expect(clips.map((clip) => clip.title)).toEqual(['That was the first part.', 'So here is the second part.']);
  });

  it('are null without a transcript or without a word in the clip', () => {
    expect(titlesOf(null)).toEqual([null, null]);
    expect(titlesOf({ language: 'en', words: words(40, 'Only the second clip speaks.') })).toEqual([
      null,
      'Only the second clip speaks.',
    ]);
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

  it('weighs the hook more for short-video feeds and speech more for LinkedIn and X', () => {
    const plain = signalWeights('balanced', []);
    expect(signalWeights('balanced', ['tiktok']).hook).toBeGreaterThan(plain.hook);
    expect(signalWeights('balanced', ['tiktok', 'instagram_reels', 'youtube_shorts'])).toEqual(
      signalWeights('balanced', ['tiktok']),
    );
    expect(signalWeights('balanced', ['linkedin']).speech).toBeGreaterThan(plain.speech);
    expect(signalWeights('podcast', ['x']).speech).toBeGreaterThan(signalWeights('podcast', []).speech);
  });

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
