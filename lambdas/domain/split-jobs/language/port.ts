import type { CreateSplitJobRequest } from '#contract/types';

/**
 * The language port: what choosing clips needs from a model that reads. Given the transcript cut
 * into timed sentences, it proposes clips as sentence ranges, each with the line that hooks, a
 * headline title, a reason in one sentence and a score. In AWS the adapter is a Bedrock text model
 * (bedrock.ts); locally it is wink-nlp with its English model (wink-nlp.ts); with neither, none
 * (no-language-model.ts), and clips are ranked by their sound and picture alone.
 *
 * An adapter never throws: whatever goes wrong (throttling, a time-out, an answer that is not
 * valid, a refusal) comes back as a `failed` answer naming its cause, and the clips are then
 * chosen by the signals alone, each saying so.
 */

export type ClipStyle = NonNullable<CreateSplitJobRequest['clip_style']>;

/** One sentence of the transcript, in spoken order; `index` is its place in that order. */
export interface TimedSentence {
  index: number;
  text: string;
  startSeconds: number;
  endSeconds: number;
}

export interface ClipIdeasRequest {
  /** Names the request in logs and, where the provider takes one, as its request id. */
  jobId: string;
  sentences: readonly TimedSentence[];
  /** BCP 47 tag of the language spoken (the request's, else the transcript's), when known. */
  language: string | null;
  clipStyle: ClipStyle;
  /** A proposed clip lasts from its first sentence's start to its last sentence's end, within these. */
  lengths: { minSeconds: number; maxSeconds: number; preferredSeconds: number };
  /** The most ideas wanted (the job's clips and room to choose among them). */
  maxIdeas: number;
  /** Aborted when the job can wait no longer for an answer. */
  signal?: AbortSignal;
}

/** Longest headline title a clip may have, in characters. */
export const TITLE_MAX_CHARACTERS = 60;
/** Longest hook line, in characters: a quote of the clip's opening, not its transcript. */
export const HOOK_LINE_MAX_CHARACTERS = 200;
/** Longest reason, in characters: one sentence. */
export const REASON_MAX_CHARACTERS = 240;

export interface ClipIdea {
  /** Index of the clip's first sentence. */
  firstSentence: number;
  /** Index of its last sentence (inclusive, at least firstSentence). */
  lastSentence: number;
  /** The line that makes a viewer stay, quoted from the clip's opening. */
  hookLine: string;
  /** A headline of at most TITLE_MAX_CHARACTERS, ending on a whole word. */
  title: string;
  /** One sentence naming what in this clip is worth watching. */
  reason: string;
  /** 0 to 100: how likely the clip is to hold a viewer, by what is said. */
  score: number;
}

export type LanguageFailureCause = 'throttled' | 'timeout' | 'invalid_answer' | 'refused' | 'unavailable' | 'error';

export interface LanguageUsage {
  inputTokens: number;
  outputTokens: number;
  seconds: number;
}

export type ClipIdeasAnswer =
  | { state: 'answered'; ideas: ClipIdea[]; usage?: LanguageUsage }
  | { state: 'failed'; cause: LanguageFailureCause; detail: string };

export interface LanguageModel {
  readonly kind: 'bedrock' | 'wink-nlp' | 'none';
  /** What the clips name as their `language_model`: a Bedrock model id, or the library and its model's version. */
  readonly modelId: string | null;
  proposeClips(request: ClipIdeasRequest): Promise<ClipIdeasAnswer>;
}
