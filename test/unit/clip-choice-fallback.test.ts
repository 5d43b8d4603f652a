import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  BedrockRuntimeClient,
  ConverseCommand,
  ThrottlingException,
  type ConverseCommandOutput,
} from '@aws-sdk/client-bedrock-runtime';
import { mockClient } from 'aws-sdk-client-mock';
import { CLAUDE_HAIKU_5_5 } from '#domain/models/model-registry';
import { chooseClips, CLIP_LENGTHS, type ClipChoiceOptions } from '#domain/split-jobs/clip-selection';
import { BedrockLanguageModel } from '#domain/split-jobs/language/bedrock';
import type { ClipIdeasRequest, TimedSentence } from '#domain/split-jobs/language/port';
import { endsDangling } from '#domain/split-jobs/sentences';
import { ANALYSIS_WINDOW_SECONDS, type SourceAnalysis } from '#domain/split-jobs/source-analysis';

/**
 * The language step's answers, as Bedrock gave them (test/fixtures/bedrock), carried through to
 * the clips: a valid answer ranks its proposals first; every failure still ends in clips, ranked
 * by the signals alone and saying why, with nothing lost.
 */

const FIXTURES = join(__dirname, '..', 'fixtures', 'bedrock');
const recorded = (name: string) =>
  JSON.parse(readFileSync(join(FIXTURES, `${name}.json`), 'utf8')) as ConverseCommandOutput;
const TIMED: TimedSentence[] = (
  JSON.parse(readFileSync(join(FIXTURES, 'transcript.json'), 'utf8')) as { sentences: TimedSentence[] }
).sentences;
const SENTENCES = TIMED.map((sentence) => ({ ...sentence, dangling: endsDangling(sentence.text) }));
const DURATION = Math.ceil(TIMED.at(-1)!.endSeconds + 2);

/** A steady picture and voice, with the pauses between sentences as silences. */
const ANALYSIS: SourceAnalysis = {
  durationSeconds: DURATION,
  loudnessDb: new Array<number>(Math.ceil(DURATION / ANALYSIS_WINDOW_SECONDS)).fill(-22),
  motion: new Array<number>(Math.ceil(DURATION / ANALYSIS_WINDOW_SECONDS)).fill(0.02),
  sceneCuts: [],
  silences: [],
  hasAudio: true,
};
const OPTIONS: ClipChoiceOptions = { preset: 'under_60', clipStyle: 'podcast', platforms: [], maxClips: 4 };
const REQUEST: ClipIdeasRequest = {
  jobId: 'split_job_01JXSLEEP',
  sentences: TIMED,
  language: 'en-US',
  clipStyle: 'podcast',
  lengths: CLIP_LENGTHS.under_60,
  maxIdeas: 12,
};

/** The clips a stack without a language model chooses: every failure must end in these, none lost. */
const SIGNALS_ONLY = chooseClips(ANALYSIS, { sentences: SENTENCES, language: null }, OPTIONS).clips.map(
  ({ startSeconds, endSeconds }) => [startSeconds, endSeconds],
);
const rangesOf = (clips: { startSeconds: number; endSeconds: number }[]) =>
  clips.map(({ startSeconds, endSeconds }) => [startSeconds, endSeconds]);

const bedrockMock = mockClient(BedrockRuntimeClient);
beforeEach(() => bedrockMock.reset());

async function clipsAfter(answerOf: () => void, timeoutMs?: number) {
  answerOf();
  const model = new BedrockLanguageModel({
    bedrock: new BedrockRuntimeClient({ region: 'us-west-2', maxAttempts: 1 }),
    model: CLAUDE_HAIKU_5_5,
    timeoutMs,
  });
  const answer = await model.proposeClips(REQUEST);
  return chooseClips(ANALYSIS, { sentences: SENTENCES, language: { modelId: model.modelId, answer } }, OPTIONS).clips;
}

describe('clips chosen with the Bedrock language step', () => {
  it('rank the fitting proposals of a valid answer first, with their titles', async () => {
    const clips = await clipsAfter(() => bedrockMock.on(ConverseCommand).resolves(recorded('valid')));
    expect(new Set(clips.slice(0, 2).map((clip) => clip.title))).toEqual(
      new Set([
        'Two hours later to bed cost a third of their memory',
        "Why your afternoon coffee ruins tonight's sleep",
      ]),
    );
    expect(clips[0]!.ranking).toEqual({
      source: 'language_and_signals',
      languageModel: CLAUDE_HAIKU_5_5.id,
      fallbackReason: null,
    });
    expect(clips.length).toBeGreaterThanOrEqual(2);
  });

  it.each([
    ['invalid-json-input', "The language model's answer was not valid"],
    ['text-instead-of-tool', "The language model's answer was not valid"],
    ['all-out-of-range', "The language model's answer was not valid"],
    ['max-tokens', "The language model's answer was not valid"],
    ['refusal-content-filtered', 'The language model declined to answer'],
    ['refusal-text', 'The language model declined to answer'],
  ])('still end in clips after a recorded %s answer, and say why', async (fixture, why) => {
    const clips = await clipsAfter(() => bedrockMock.on(ConverseCommand).resolves(recorded(fixture)));
    expect(SIGNALS_ONLY.length).toBeGreaterThanOrEqual(3);
    expect(rangesOf(clips)).toEqual(SIGNALS_ONLY);
    for (const clip of clips) {
      expect(clip.ranking.source).toBe('signals');
      expect(clip.ranking.fallbackReason).toBe(`${why}: ranked by sound and picture alone.`);
      expect(clip.title).not.toBeNull();
    }
  });

  it('still end in clips when Bedrock throttles, and say why', async () => {
    const clips = await clipsAfter(() =>
      bedrockMock.on(ConverseCommand).rejects(new ThrottlingException({ message: 'Too many requests', $metadata: {} })),
    );
    expect(rangesOf(clips)).toEqual(SIGNALS_ONLY);
    expect(clips[0]!.ranking.fallbackReason).toBe(
      'The language model was too busy to answer: ranked by sound and picture alone.',
    );
  });

  it('still end in clips when Bedrock does not answer in time, and say why', async () => {
    const clips = await clipsAfter(
      () => bedrockMock.on(ConverseCommand).callsFake(() => new Promise(() => undefined)),
      50,
    );
    expect(rangesOf(clips)).toEqual(SIGNALS_ONLY);
    expect(clips[0]!.ranking.fallbackReason).toBe(
      'The language model did not answer in time: ranked by sound and picture alone.',
    );
  });
});
