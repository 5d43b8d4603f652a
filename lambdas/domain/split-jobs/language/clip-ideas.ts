import {
  HOOK_LINE_MAX_CHARACTERS,
  REASON_MAX_CHARACTERS,
  TITLE_MAX_CHARACTERS,
  type ClipIdea,
  type ClipIdeasRequest,
  type TimedSentence,
} from './port';

/**
 * The structured answer a language model gives for clip ideas, and its strict reading. The answer
 * is one JSON object, `{"clips": [...]}`, each clip a range of sentence indices with a hook line,
 * a title, a reason and a score (CLIP_IDEAS_SCHEMA, the tool's input schema). Reading it is pure:
 * no model, no clock, so that every rule is tested on its own (test/unit/bedrock-language.test.ts).
 *
 * The answer as a whole is refused (`invalid`) when it is not an object holding exactly `clips`,
 * an array; then nothing of it is used. One clip breaking a rule is dropped with its reason, and the
 * others are kept; an answer none of whose clips is kept is refused too, so that clips are chosen by
 * the signals rather than from nothing. The rules of one clip:
 * - exactly the six fields, each of its type: no field missing, none added;
 * - `first_sentence` and `last_sentence` integers naming sentences of the request, first ≤ last,
 *   every sentence between them in the request (a window's sentences are consecutive);
 * - the range lasts, from its first sentence's start to its last sentence's end, between the
 *   request's shortest and longest clip, give or take LENGTH_TOLERANCE_SECONDS: a clip is cut at
 *   sentence boundaries, which seldom fall on the exact second;
 * - `hook_line`, `title` and `reason`, trimmed, are not empty, hold no control character (a line
 *   break included) and are at most HOOK_LINE_MAX_CHARACTERS, TITLE_MAX_CHARACTERS and
 *   REASON_MAX_CHARACTERS characters (Unicode code points);
 * - the title ends on a whole word: not on a hyphen, a dash or an ellipsis, the marks of a cut;
 * - `score` an integer from 0 to 100.
 * A range proposed twice keeps its higher-scored idea. Past `maxIdeas`, the lower-scored ideas are
 * dropped. Ideas may overlap: choosing among overlapping clips is clip selection's.
 */

/** How far a proposed clip may fall outside the request's lengths, in seconds. */
export const LENGTH_TOLERANCE_SECONDS = 2;

/** The name of the tool the model is made to call, whose input is the answer. */
export const CLIP_IDEAS_TOOL_NAME = 'propose_clips';

const FIELDS = ['first_sentence', 'last_sentence', 'hook_line', 'title', 'reason', 'score'] as const;

/** A JSON schema (draft 2020-12 subset that Bedrock's tool specifications take) of the answer. */
export function clipIdeasSchema(sentences: readonly TimedSentence[], maxIdeas: number): Record<string, unknown> {
  const indices = sentences.map((sentence) => sentence.index);
  const index = { type: 'integer', minimum: Math.min(...indices), maximum: Math.max(...indices) };
  return {
    type: 'object',
    properties: {
      clips: {
        type: 'array',
        maxItems: maxIdeas,
        items: {
          type: 'object',
          properties: {
            first_sentence: { ...index, description: 'Index of the clip’s first sentence.' },
            last_sentence: { ...index, description: 'Index of the clip’s last sentence (inclusive).' },
            hook_line: {
              type: 'string',
              minLength: 1,
              maxLength: HOOK_LINE_MAX_CHARACTERS,
              description: 'The words of the clip’s opening that make a viewer stay, quoted.',
            },
            title: {
              type: 'string',
              minLength: 1,
              maxLength: TITLE_MAX_CHARACTERS,
              description: `A headline of at most ${TITLE_MAX_CHARACTERS} characters, ending on a whole word.`,
            },
            reason: {
              type: 'string',
              minLength: 1,
              maxLength: REASON_MAX_CHARACTERS,
              description: 'One sentence: what in this clip is worth watching.',
            },
            score: {
              type: 'integer',
              minimum: 0,
              maximum: 100,
              description: 'How likely the clip is to hold a viewer, by what is said, from 0 to 100.',
            },
          },
          required: [...FIELDS],
          additionalProperties: false,
        },
      },
    },
    required: ['clips'],
    additionalProperties: false,
  };
}

export interface DroppedIdea {
  /** Its place in the answer's `clips`. */
  position: number;
  reason: string;
}

export type ClipIdeasReading =
  { valid: true; ideas: ClipIdea[]; dropped: DroppedIdea[] } | { valid: false; reason: string; dropped: DroppedIdea[] };

/** C0 and C1 controls, and the line and paragraph separators: nothing a one-line text holds. */
const isControl = (character: string) => {
  const code = character.codePointAt(0)!;
  return code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029;
};
/** What a title cut short ends on. */
const CUT_TITLE = /(?:[-‐‑‒–—…]|\.\.)$/;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const characters = (text: string) => Array.from(text).length;

/** The trimmed text, or why it is not one the field may hold. */
function textOf(value: unknown, field: string, max: number): string | { problem: string } {
  if (typeof value !== 'string') return { problem: `${field} is not a string` };
  const text = value.trim();
  if (text.length === 0) return { problem: `${field} is empty` };
  if (Array.from(text).some(isControl)) return { problem: `${field} holds a control character` };
  if (characters(text) > max) return { problem: `${field} is longer than ${max} characters` };
  return text;
}

/** One clip of the answer as an idea, or why it is dropped. */
function ideaOf(
  raw: unknown,
  byIndex: ReadonlyMap<number, TimedSentence>,
  lengths: ClipIdeasRequest['lengths'],
): ClipIdea | { problem: string } {
  if (!isPlainObject(raw)) return { problem: 'not an object' };
  const keys = Object.keys(raw);
  const missing = FIELDS.filter((field) => !keys.includes(field));
  if (missing.length > 0) return { problem: `missing ${missing.join(', ')}` };
  const extra = keys.filter((key) => !(FIELDS as readonly string[]).includes(key));
  if (extra.length > 0) return { problem: `unexpected ${extra.join(', ')}` };

  const { first_sentence: first, last_sentence: last, score } = raw;
  if (!Number.isSafeInteger(first) || !Number.isSafeInteger(last)) {
    return { problem: 'sentence indices are not integers' };
  }
  const [firstIndex, lastIndex] = [first as number, last as number];
  if (firstIndex > lastIndex) return { problem: `first sentence ${firstIndex} is after last sentence ${lastIndex}` };
  for (let index = firstIndex; index <= lastIndex; index += 1) {
    if (!byIndex.has(index)) return { problem: `sentence ${index} is not in the transcript given` };
  }
  const seconds = byIndex.get(lastIndex)!.endSeconds - byIndex.get(firstIndex)!.startSeconds;
  if (
    seconds < lengths.minSeconds - LENGTH_TOLERANCE_SECONDS ||
    seconds > lengths.maxSeconds + LENGTH_TOLERANCE_SECONDS
  ) {
    return {
      problem: `lasts ${seconds.toFixed(1)} s, outside ${lengths.minSeconds}–${lengths.maxSeconds} s`,
    };
  }

  const hookLine = textOf(raw.hook_line, 'hook_line', HOOK_LINE_MAX_CHARACTERS);
  if (typeof hookLine !== 'string') return hookLine;
  const title = textOf(raw.title, 'title', TITLE_MAX_CHARACTERS);
  if (typeof title !== 'string') return title;
  if (CUT_TITLE.test(title)) return { problem: 'title ends mid-word' };
  const reason = textOf(raw.reason, 'reason', REASON_MAX_CHARACTERS);
  if (typeof reason !== 'string') return reason;

  if (!Number.isSafeInteger(score) || (score as number) < 0 || (score as number) > 100) {
    return { problem: 'score is not an integer from 0 to 100' };
  }
  return { firstSentence: firstIndex, lastSentence: lastIndex, hookLine, title, reason, score: score as number };
}

/**
 * The ideas of a model's answer (the tool's input, already parsed from JSON), read strictly: see
 * the rules above. Never throws, whatever `raw` is.
 */
export function parseClipIdeas(
  raw: unknown,
  sentences: readonly TimedSentence[],
  lengths: ClipIdeasRequest['lengths'],
  maxIdeas: number,
): ClipIdeasReading {
  if (!isPlainObject(raw)) return { valid: false, reason: 'the answer is not a JSON object', dropped: [] };
  const keys = Object.keys(raw);
  if (keys.length !== 1 || keys[0] !== 'clips' || !Array.isArray(raw.clips)) {
    return { valid: false, reason: 'the answer is not {"clips": [...]}', dropped: [] };
  }
  const clips: unknown[] = raw.clips;
  if (clips.length === 0) return { valid: false, reason: 'the answer proposes no clip', dropped: [] };

  const byIndex = new Map(sentences.map((sentence) => [sentence.index, sentence]));
  const dropped: DroppedIdea[] = [];
  const kept = new Map<string, { idea: ClipIdea; position: number }>();
  clips.forEach((clip, position) => {
    const idea = ideaOf(clip, byIndex, lengths);
    if ('problem' in idea) {
      dropped.push({ position, reason: idea.problem });
      return;
    }
    const range = `${idea.firstSentence}-${idea.lastSentence}`;
    const earlier = kept.get(range);
    if (earlier && earlier.idea.score >= idea.score) {
      dropped.push({ position, reason: `repeats the range ${range}` });
      return;
    }
    if (earlier) dropped.push({ position: earlier.position, reason: `repeats the range ${range}` });
    kept.set(range, { idea, position });
  });

  const ranked = [...kept.values()].sort((a, b) => b.idea.score - a.idea.score || a.position - b.position);
  for (const { position } of ranked.slice(Math.max(0, maxIdeas))) {
    dropped.push({ position, reason: `past the ${maxIdeas} ideas asked for` });
  }
  const ideas = ranked.slice(0, Math.max(0, maxIdeas)).map(({ idea }) => idea);
  dropped.sort((a, b) => a.position - b.position);
  if (ideas.length === 0) {
    const first = dropped[0]?.reason ?? 'none kept';
    return { valid: false, reason: `none of its ${clips.length} clips is valid (the first: ${first})`, dropped };
  }
  return { valid: true, ideas, dropped };
}
