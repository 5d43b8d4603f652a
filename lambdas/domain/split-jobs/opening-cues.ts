import { cutAtWord } from './sentences';

/**
 * What in a clip's opening sentence makes a viewer stay: a question, a number, a contrast, a
 * promise or a strong claim, the cues editors and the clipping tools look for in a hook. Found by
 * patterns of English words, the same in AWS and locally, so that a clip's hook is measured the
 * same wherever it is chosen; a language model reads the words for more (language/port.ts).
 */

export type HookCue = 'question' | 'number' | 'contrast' | 'promise' | 'claim';

export interface CueFound {
  cue: HookCue;
  /** The words of the sentence that carry the cue, as spoken. */
  phrase: string;
}

/** How a reason names each cue. */
const CUE_NAMES: Readonly<Record<HookCue, string>> = {
  question: 'a question',
  number: 'a number',
  contrast: 'a contrast',
  promise: 'a promise',
  claim: 'a strong claim',
};

/** How strongly each cue holds a viewer, 0 to 1: a question or a promise most, a claim least. */
export const CUE_STRENGTH: Readonly<Record<HookCue, number>> = {
  question: 0.9,
  promise: 0.85,
  number: 0.8,
  contrast: 0.75,
  claim: 0.7,
};

/** An opening sentence with none of the cues: it may still hold, by how it is said. */
export const PLAIN_OPENING = 0.3;
/** An opening of filler ("um, so, yeah"): it holds no one. */
export const FILLER_OPENING = 0;
/** Each cue beyond the strongest adds this much, up to 1. */
export const EXTRA_CUE_BONUS = 0.1;

const WH_QUESTION =
  /^(?:so,?\s+|and\s+|but\s+)?(?:why|how|what|who|where|when|which)\s+(?:did|do|does|is|are|was|were|can|could|would|should|will|has|have|if|makes|happens|happened)\b/i;
const YES_NO_QUESTION =
  /^(?:so,?\s+|and\s+|but\s+)?(?:do|does|did|is|are|can|could|would|should|have|has|will|was|were)\s+(?:you|we|they|i|it|he|she|this|that|there|your|our|anyone|anybody)\b/i;
const NUMBER =
  /\b(?:\d[\d,.]*\s*(?:%|percent|x|times|k|million|billion|thousand|hours?|minutes?|seconds?|days?|weeks?|months?|years?|dollars?)?|(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|million|billion|half|twice|double|triple)(?:\s+(?:percent|times|hours?|minutes?|seconds?|days?|weeks?|months?|years?|dollars?|[a-z]+))?)\b/i;
const CONTRAST =
  /^(?:but|however|yet|instead|actually|surprisingly|still)\b|\b(?:it turns out|turns out|the truth is|the problem is|the real (?:problem|reason|question|answer)|here'?s the thing|the opposite|rather than|instead of|not because)\b|\bnot\b[^.?!]*\bbut\b/i;
const PROMISE =
  /\b(?:here'?s how|here is how|i'?ll show|i will show|let me show|you'?ll (?:learn|see|know)|you will (?:learn|see|know)|the secret|how to|by the end|step by step|the one thing|what you need|this is how|here'?s what|here is what|watch this)\b/i;
const CLAIM =
  /\b(?:best|worst|biggest|fastest|slowest|cheapest|hardest|easiest|most|least|never|always|everyone|everybody|nobody|nothing|everything|only|mistake|wrong|myth|changed everything|game changer)\b/i;
const FILLER_WORDS = new Set([
  'um',
  'uh',
  'er',
  'ah',
  'so',
  'yeah',
  'okay',
  'ok',
  'well',
  'like',
  'right',
  'hmm',
  'oh',
]);

const PATTERNS: readonly [HookCue, RegExp][] = [
  ['promise', PROMISE],
  ['number', NUMBER],
  ['contrast', CONTRAST],
  ['claim', CLAIM],
];

/** Whether a sentence asks: it ends in a question mark, or opens as English questions do ("Why did…", "Do you…"). */
export function isQuestion(sentence: string): boolean {
  const text = sentence.trim();
  return /\?["'”’)\]]*$/.test(text) || WH_QUESTION.test(text) || YES_NO_QUESTION.test(text);
}

/** The cues of one sentence, strongest first, each with the words that carry it. */
export function hookCues(sentence: string): CueFound[] {
  const text = sentence.trim();
  const found: CueFound[] = [];
  if (isQuestion(text)) found.push({ cue: 'question', phrase: text });
  for (const [cue, pattern] of PATTERNS) {
    const match = pattern.exec(text);
    if (match) found.push({ cue, phrase: match[0].trim() });
  }
  return found.sort((a, b) => CUE_STRENGTH[b.cue] - CUE_STRENGTH[a.cue]);
}

const wordsOf = (text: string) =>
  text
    .toLowerCase()
    .split(/\s+/)
    .map((word) => word.replace(/^[^\p{L}\p{N}']+|[^\p{L}\p{N}']+$/gu, ''))
    .filter(Boolean);

/** How strongly a sentence's words open a clip, 0 to 1: its strongest cue, a little more for each further cue. */
export function openingStrength(sentence: string): number {
  const words = wordsOf(sentence);
  if (words.length === 0 || words.every((word) => FILLER_WORDS.has(word))) return FILLER_OPENING;
  const cues = hookCues(sentence);
  const strongest = cues[0];
  if (!strongest) return PLAIN_OPENING;
  return Math.min(1, CUE_STRENGTH[strongest.cue] + EXTRA_CUE_BONUS * (cues.length - 1));
}

/** Words quoted in a reason, cut at a word past `limit` characters. */
export const quoted = (text: string, limit: number) => `“${cutAtWord(text, limit)}”`;

/**
 * The opening of a reason naming a sentence's cue and quoting it, without a full stop: "Opens on
 * a question: “Why…?”", or with the words that carry the cue, "Opens on a number: “73 percent” in “…”".
 */
export function openingCueReason(sentence: string, cue: CueFound): string {
  const whole = cue.cue === 'question' || cue.phrase === sentence || cue.phrase.split(/\s+/).length < 2;
  const what = whole ? quoted(sentence, 120) : `${quoted(cue.phrase, 60)} in ${quoted(sentence, 100)}`;
  return `Opens on ${CUE_NAMES[cue.cue]}: ${what}`;
}
