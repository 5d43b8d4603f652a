import type { Clip } from '#contract/types';
import { waitForSplitJob } from './support/jobs';
import { makeSpeechSource, type SpeechSource, type SpokenSentence, wordsOf } from './support/media';
import { call, createOrganization, uploadSplitSource } from './support/stack';

/**
 * Clips chosen for what is said, on the local stack: a talk spoken by a speech synthesizer from a
 * script whose sentence times are known, with three planted hooks (a question, a striking number,
 * a contrast) among plain sentences and filler, heard by the local recognizer and read by the
 * local language model.
 */

const FILLER = [
  'Hello and welcome to this short talk about our team.',
  'Let me start with some background on the project.',
  'We have been working on it for a while now.',
];
const QUESTION = [
  'Why did our releases take two whole weeks?',
  'Every build ran on its own machine.',
  'Each one started from nothing.',
  'So a small change waited for hours.',
];
const MORE_FILLER = ['Anyway that was how things were.', 'We talked about it at lunch a few times.'];
const NUMBER = [
  'We cut our build time by seventy three percent.',
  'A build that took forty minutes now takes eleven.',
  'The cache does most of the work.',
  'Teams ship the same day now.',
];
const OTHER_FILLER = ['There were some other things going on as well.', 'The office moved to a new floor.'];
const CONTRAST = [
  'But the real problem was never the compiler.',
  'It was the review queue.',
  'Changes waited days for a second pair of eyes.',
  'Now every review is done within a day.',
];
const CLOSING = ['That is most of what I wanted to say.', 'Thank you for listening to this talk.'];
const SCRIPT = [...FILLER, ...QUESTION, ...MORE_FILLER, ...NUMBER, ...OTHER_FILLER, ...CONTRAST, ...CLOSING];
const HOOKS = [QUESTION[0]!, NUMBER[0]!, CONTRAST[0]!];

/** How far before a sentence's start a clip may start, and after a sentence's end it may end. */
const START_TOLERANCE_SECONDS = 0.3;
const END_TOLERANCE_SECONDS = 0.5;

/** The script's sentences spoken inside a clip. */
const sentencesIn = (sentences: readonly SpokenSentence[], clip: Clip) =>
  sentences.filter(
    (sentence) =>
      sentence.startSeconds >= clip.start_time_seconds - START_TOLERANCE_SECONDS &&
      sentence.endSeconds <= clip.end_time_seconds + END_TOLERANCE_SECONDS,
  );

describe('clips chosen for what is said, on a local stack that hears and reads speech', () => {
  let source: SpeechSource;
  let clips: Clip[];

  beforeAll(async () => {
    source = makeSpeechSource({
      sentences: SCRIPT,
      pauseSeconds: 0.8,
      sentencesPerScene: SCRIPT.length,
      width: 320,
      height: 180,
    });
    const org = await createOrganization({ credits: 100 });
    const assetId = await uploadSplitSource(org, source.bytes, 'build-times.mp4');
    const created = await call<{ id: string }>('POST', '/split-jobs', {
      key: org.key,
      body: { source_asset_id: assetId, clip_length_preset: 'under_30', language: 'en', max_clips: 5 },
    });
    if (created.status !== 201) throw new Error(`The split job was refused: ${JSON.stringify(created.body)}`);
    const { job } = await waitForSplitJob(org.key, created.body.id, 150_000);
    if (job.status !== 'completed') throw new Error(`The split job ended ${job.status}`);
    const listed = await call<{ clips: Clip[] }>('GET', `/split-jobs/${created.body.id}/clips`, { key: org.key });
    clips = listed.body.clips;
  }, 240_000);

  it('ranks with the local language model', () => {
    expect(clips.length).toBeGreaterThanOrEqual(3);
    for (const clip of clips) {
      expect(clip.ranking).toEqual({
        source: 'language_and_signals',
        language_model: expect.stringMatching(/^wink-nlp /),
        fallback_reason: null,
      });
    }
  });

  it('starts every clip just before a sentence starts and ends it just after one ends', () => {
    for (const clip of clips) {
      const opening = source.sentences.find(
        (sentence) =>
          sentence.startSeconds - clip.start_time_seconds >= 0 &&
          sentence.startSeconds - clip.start_time_seconds <= START_TOLERANCE_SECONDS,
      );
      const closing = source.sentences.find(
        (sentence) =>
          clip.end_time_seconds - sentence.endSeconds >= 0 &&
          clip.end_time_seconds - sentence.endSeconds <= END_TOLERANCE_SECONDS,
      );
      expect({ clip: [clip.start_time_seconds, clip.end_time_seconds], opening, closing }).toEqual({
        clip: [clip.start_time_seconds, clip.end_time_seconds],
        opening: expect.objectContaining({ text: expect.any(String) }),
        closing: expect.objectContaining({ text: expect.any(String) }),
      });
    }
  });

  it('titles every clip from a sentence start, in at most 60 characters, never ending mid-word', () => {
    for (const clip of clips) {
      const title = clip.title!;
      expect(title.length).toBeLessThanOrEqual(60);
      const heard = wordsOf(title.replace(/…$/, ''));
      const spoken = sentencesIn(source.sentences, clip);
      // The recognizer may mishear a word: the title's first words match the start of one of the clip's sentences.
      const fromSentenceStart = spoken.some((sentence) => {
        const said = wordsOf(sentence.text).slice(0, 3);
        return heard.slice(0, 3).filter((word, index) => said[index] === word).length >= 2;
      });
      expect({ title, fromSentenceStart }).toEqual({ title, fromSentenceStart: true });
      // Cut titles end on a whole word and an ellipsis; the others are a whole sentence.
      expect(title).toMatch(/(?:[A-Za-z0-9']…|[.?!])$/);
    }
  });

  it('ranks first the clips that open on the planted hooks', () => {
    const openings = clips
      .slice(0, HOOKS.length)
      .map(
        (clip) =>
          source.sentences.find(
            (sentence) =>
              sentence.startSeconds >= clip.start_time_seconds &&
              sentence.startSeconds - clip.start_time_seconds <= START_TOLERANCE_SECONDS,
          )?.text,
      );
    expect(new Set(openings)).toEqual(new Set(HOOKS));
  });

  it('spreads the hook values: no two-thirds of the clips share one', () => {
    const counts = new Map<number, number>();
    for (const clip of clips) {
      const hook = clip.score_breakdown!.hook.value;
      counts.set(hook, (counts.get(hook) ?? 0) + 1);
    }
    expect(Math.max(...counts.values())).toBeLessThan((2 / 3) * clips.length);
  });

  it('gives reasons that quote the clip’s own words or state its own figures', () => {
    for (const clip of clips) {
      const spokenWords = new Set(sentencesIn(source.sentences, clip).flatMap((sentence) => wordsOf(sentence.text)));
      for (const reason of clip.reasons) {
        const quotes = [...reason.matchAll(/“([^”]+)”/g)].map(([, quote]) => wordsOf(quote!));
        const quotesTheClip = quotes.some(
          (quote) => quote.filter((word) => spokenWords.has(word)).length >= quote.length / 2,
        );
        expect({ reason, namesItsClip: quotesTheClip || /\d/.test(reason) }).toEqual({ reason, namesItsClip: true });
      }
    }
  });
});
