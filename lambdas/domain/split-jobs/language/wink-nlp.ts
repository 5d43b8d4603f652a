import type { ItemEntity, ItemToken, WinkMethods } from 'wink-nlp';
import {
  CUE_STRENGTH,
  EXTRA_CUE_BONUS,
  hookCues,
  openingCueReason,
  openingStrength,
  quoted,
  type HookCue,
} from '../opening-cues';
import { cutAtWord, endsDangling } from '../sentences';
import {
  HOOK_LINE_MAX_CHARACTERS,
  REASON_MAX_CHARACTERS,
  TITLE_MAX_CHARACTERS,
  type ClipIdea,
  type ClipIdeasAnswer,
  type ClipIdeasRequest,
  type ClipStyle,
  type LanguageModel,
  type TimedSentence,
} from './port';

/**
 * The local language model: wink-nlp with its English model (both MIT, the model inside its npm
 * package, nothing downloaded). It reads each sentence for what a hook is made of (the shared cues
 * of opening-cues.ts, with wink's number entities), what the clip is about (its nouns, weighed
 * against the whole talk), whether it holds one thought (never ending on a dangling "and", "because", "in fact";
 * scored down when it runs on past an "Anyway…")
 * and how near it is to the preferred length; it proposes the best ranges that do not overlap,
 * each titled by its key sentence. Deterministic: the same sentences give the same ideas.
 */

/** The versions are pinned in package.json; a test holds this name to them. */
export const WINK_MODEL_ID = 'wink-nlp 2.4.0 (wink-eng-lite-web-model 1.8.1)';

export type IdeaMeasure = 'hook' | 'focus' | 'complete' | 'lengthFit';

/** What each clip style values in a clip's words; each row sums to 1. */
export const WINK_STYLE_WEIGHTS: Readonly<Record<ClipStyle, Readonly<Record<IdeaMeasure, number>>>> = {
  viral_hooks: { hook: 0.5, focus: 0.15, complete: 0.2, lengthFit: 0.15 },
  educational: { hook: 0.25, focus: 0.4, complete: 0.2, lengthFit: 0.15 },
  podcast: { hook: 0.3, focus: 0.3, complete: 0.25, lengthFit: 0.15 },
  highlights: { hook: 0.4, focus: 0.2, complete: 0.2, lengthFit: 0.2 },
  balanced: { hook: 0.35, focus: 0.25, complete: 0.2, lengthFit: 0.2 },
};

/** Words that open on what came before ("And…", "Also…"): a clip starting there starts mid-thought. */
const BACK_REFERENCE_OPENERS = new Set(['and', 'also', 'which', 'because', 'or', 'plus']);
/**
 * Openers that turn to another subject ("Anyway…", "Moving on…") or close the talk ("Thank you
 * for…", "That is all of what…"): a clip holding one after its first sentence runs past the end
 * of its thought.
 */
const TOPIC_SHIFT =
  /^(?:anyway|anyhow|moving on|by the way|speaking of|on another note|okay so|ok so|alright|all right|next up|thank you|thanks for|see you|that'?s (?:all|it) for|that is (?:all|most) of what)\b/i;
/**
 * A question, a promise or a contrast opens a thought of its own: a clip holding one after its
 * first sentence runs into the next thought (and takes its hook from the clip that would open there).
 */
const PIVOT_CUES = new Set<HookCue | 'none'>(['question', 'promise', 'contrast']);
/** What `complete` is for a clip that runs past a change of subject. */
export const RUNS_PAST_ITS_THOUGHT = 0.3;
// Dates and times ("the same day", "now") are not the striking figures a hook is made of.
const NUMBER_ENTITIES = new Set(['CARDINAL', 'PERCENT', 'MONEY', 'DURATION', 'QUANTITY']);
const CONTENT_POS = new Set(['NOUN', 'PROPN']);

interface ReadSentence {
  sentence: TimedSentence;
  /** The lemmas of its nouns, the words a clip is about. */
  terms: string[];
  hook: number;
  hookCue: { cue: HookCue; phrase: string } | undefined;
  dangling: boolean;
  opensMidThought: boolean;
  /** Whether it turns to another subject ("Anyway…") or opens a thought of its own (a question, a promise, a contrast). */
  shiftsTopic: boolean;
}

/** "Releases" and "release" are one subject: a plural's "s" taken off ("process" and "bus" kept). */
const singular = (noun: string) => (/[^su]s$/.test(noun) && noun.length > 3 ? noun.slice(0, -1) : noun);

let nlp: Promise<WinkMethods> | undefined;

/**
 * wink-nlp with its model, read once per process (about 150 ms), on first use: the functions'
 * bundles leave the packages out, so nothing may load them before a local stack asks.
 */
function reader(): Promise<WinkMethods> {
  nlp ??= Promise.all([import('wink-nlp'), import('wink-eng-lite-web-model')]).then(
    ([{ default: winkNLP }, { default: model }]) => winkNLP(model),
  );
  return nlp;
}

function readSentence(words: WinkMethods, sentence: TimedSentence): ReadSentence {
  const { its } = words;
  const doc = words.readDoc(sentence.text);
  const terms: string[] = [];
  let firstWord: string | undefined;
  doc.tokens().each((token: ItemToken) => {
    if (token.out(its.type) !== 'word') return;
    const normal = String(token.out(its.normal));
    firstWord ??= normal;
    if (CONTENT_POS.has(String(token.out(its.pos))) && !token.out(its.stopWordFlag) && normal.length >= 3) {
      terms.push(singular(normal));
    }
  });
  const cues = hookCues(sentence.text);
  let numberPhrase: string | undefined;
  doc.entities().each((entity: ItemEntity) => {
    const detail = entity.out(its.detail);
    if (typeof detail === 'object' && NUMBER_ENTITIES.has(detail.type)) numberPhrase ??= detail.value;
  });
  let hook = openingStrength(sentence.text);
  if (numberPhrase && !cues.some((cue) => cue.cue === 'number')) {
    cues.push({ cue: 'number', phrase: numberPhrase });
    cues.sort((a, b) => CUE_STRENGTH[b.cue] - CUE_STRENGTH[a.cue]);
    hook = Math.min(1, CUE_STRENGTH[cues[0]!.cue] + EXTRA_CUE_BONUS * (cues.length - 1));
  }
  return {
    sentence,
    terms,
    hook,
    hookCue: cues[0],
    dangling: endsDangling(sentence.text),
    opensMidThought: firstWord !== undefined && BACK_REFERENCE_OPENERS.has(firstWord),
    shiftsTopic: TOPIC_SHIFT.test(sentence.text.trim()) || PIVOT_CUES.has(cues[0]?.cue ?? 'none'),
  };
}

const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** The clip's key sentence made a headline: its opening when that hooks and fits, else the sentence most about its subject. */
function titleOf(clip: readonly ReadSentence[], keyTerm: string | undefined): string {
  const opening = clip[0]!;
  const hooked = opening.hookCue !== undefined && opening.sentence.text.length <= TITLE_MAX_CHARACTERS;
  const key =
    hooked || !keyTerm ? opening : (clip.find((read) => read.terms.includes(keyTerm) && !read.dangling) ?? opening);
  return capitalized(cutAtWord(key.sentence.text, TITLE_MAX_CHARACTERS));
}

function reasonOf(clip: readonly ReadSentence[], keyTerm: string | undefined, keyCount: number): string {
  const opening = clip[0]!;
  const focus =
    keyTerm && keyCount >= 2 ? `stays on “${keyTerm}” in ${keyCount} of its ${clip.length} sentences` : undefined;
  if (opening.hookCue) {
    const cueReason = openingCueReason(opening.sentence.text, opening.hookCue);
    return cutAtWord(`${cueReason}${focus ? `, and ${focus}` : ''}.`, REASON_MAX_CHARACTERS);
  }
  if (focus)
    return cutAtWord(`${capitalized(focus)}, from ${quoted(opening.sentence.text, 100)}.`, REASON_MAX_CHARACTERS);
  return cutAtWord(`A complete thought from ${quoted(opening.sentence.text, 120)}.`, REASON_MAX_CHARACTERS);
}

export class WinkNlpLanguageModel implements LanguageModel {
  readonly kind = 'wink-nlp';
  readonly modelId = WINK_MODEL_ID;

  async proposeClips(request: ClipIdeasRequest): Promise<ClipIdeasAnswer> {
    if (request.language && !/^en\b/i.test(request.language)) {
      return {
        state: 'failed',
        cause: 'unavailable',
        detail: `The local language model reads English only, not ${request.language}.`,
      };
    }
    const started = performance.now();
    const words = await reader();
    const read = request.sentences.map((sentence) => readSentence(words, sentence));
    const weights = WINK_STYLE_WEIGHTS[request.clipStyle];
    const { minSeconds, maxSeconds, preferredSeconds } = request.lengths;
    const tolerance = Math.max(preferredSeconds - minSeconds, maxSeconds - preferredSeconds);
    const sentencesWith = new Map<string, number>();
    for (const sentence of read)
      for (const term of new Set(sentence.terms)) sentencesWith.set(term, (sentencesWith.get(term) ?? 0) + 1);

    const scored: ClipIdea[] = [];
    for (let first = 0; first < read.length; first += 1) {
      if (read[first]!.opensMidThought) continue;
      const counts = new Map<string, number>();
      let shifted = false;
      for (let last = first; last < read.length; last += 1) {
        shifted ||= last > first && read[last]!.shiftsTopic;
        const seconds = read[last]!.sentence.endSeconds - read[first]!.sentence.startSeconds;
        if (seconds > maxSeconds) break;
        for (const term of new Set(read[last]!.terms)) counts.set(term, (counts.get(term) ?? 0) + 1);
        if (seconds < minSeconds || read[last]!.dangling) continue;
        const clip = read.slice(first, last + 1);
        // The clip's subject: the noun in most of its sentences, rarer in the talk as a whole breaking ties.
        let keyTerm: string | undefined;
        let keyCount = 0;
        for (const [term, count] of counts) {
          const better =
            count > keyCount ||
            (count === keyCount && keyTerm !== undefined && sentencesWith.get(term)! < sentencesWith.get(keyTerm)!);
          if (better) [keyTerm, keyCount] = [term, count];
        }
        const measures: Record<IdeaMeasure, number> = {
          hook: read[first]!.hook,
          focus: clip.length > 1 ? Math.min(1, (keyCount - 1) / (clip.length - 1)) : 0,
          complete: shifted ? RUNS_PAST_ITS_THOUGHT : 1,
          lengthFit: Math.max(0, 1 - Math.abs(seconds - preferredSeconds) / tolerance),
        };
        const score = Object.entries(weights).reduce(
          (sum, [measure, weight]) => sum + weight * measures[measure as IdeaMeasure],
          0,
        );
        scored.push({
          firstSentence: read[first]!.sentence.index,
          lastSentence: read[last]!.sentence.index,
          hookLine: cutAtWord(read[first]!.sentence.text, HOOK_LINE_MAX_CHARACTERS),
          title: titleOf(clip, keyTerm),
          reason: reasonOf(clip, keyTerm, keyCount),
          score: Math.round(score * 100),
        });
      }
    }

    const ideas: ClipIdea[] = [];
    // A stable sort: among equal scores the earlier range stays first.
    for (const idea of scored.sort((a, b) => b.score - a.score)) {
      if (ideas.length >= request.maxIdeas) break;
      const overlaps = ideas.some(
        (taken) => idea.firstSentence <= taken.lastSentence && taken.firstSentence <= idea.lastSentence,
      );
      if (!overlaps) ideas.push(idea);
    }
    return {
      state: 'answered',
      ideas,
      usage: { inputTokens: 0, outputTokens: 0, seconds: (performance.now() - started) / 1000 },
    };
  }
}
