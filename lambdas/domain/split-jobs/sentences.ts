import type { TimedSentence } from './language/port';
import type { Transcript } from './transcription/port';

/**
 * A transcript's sentences, the units clips are cut from when there is a transcript: a clip starts
 * where a sentence starts and ends where one ends, so that it holds whole thoughts. Amazon
 * Transcribe punctuates what it hears; the local recognizer's adapter ends a sentence at a pause
 * (pocketsphinx-output.ts). Either way a word ending in `.`, `?` or `!` (a closing quote or
 * bracket after it allowed) ends a sentence, as does the last word.
 */

const SENTENCE_END = /[.!?…]["'”’)\]]*$/;

/**
 * Words that leave a thought open: a conjunction, an article, a possessive, "of" or "to" at the end
 * of a sentence is a speaker pausing mid-thought, not a place to end a clip. Prepositions that
 * English does end sentences on ("what we worked on") are not among them.
 */
const DANGLING_ENDINGS = new Set([
  'and',
  'or',
  'but',
  'because',
  'since',
  'if',
  'although',
  'though',
  'whereas',
  'the',
  'a',
  'an',
  'of',
  'to',
  'than',
  'our',
  'my',
  'your',
  'their',
  'fact',
  'example',
  'instance',
]);

/** "In fact", "for example", "and then": openers of what follows, never the end of a thought. */
const DANGLING_PHRASES = /\b(?:in fact|for example|for instance|and then|such as|as well as)[,.!?]*$/i;

export interface Sentence extends TimedSentence {
  /** Whether the sentence leaves its thought open (ends on "and", "because", "in fact"…). */
  dangling: boolean;
}

const bareWord = (text: string) =>
  text
    .toLowerCase()
    .replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '')
    .trim();

/** Whether a sentence's text ends where no thought ends. */
export function endsDangling(text: string): boolean {
  const trimmed = text.trim();
  if (DANGLING_PHRASES.test(trimmed)) return true;
  if (/[?!]["'”’)\]]*$/.test(trimmed)) return false;
  const last = trimmed.split(/\s+/).at(-1) ?? '';
  return /,["'”’)\]]*$/.test(last) || DANGLING_ENDINGS.has(bareWord(last));
}

/** The transcript's sentences in spoken order, each timed from its first word's start to its last word's end. */
export function transcriptSentences(transcript: Transcript): Sentence[] {
  const sentences: Sentence[] = [];
  let words: Transcript['words'] = [];
  const close = () => {
    const first = words[0];
    const last = words.at(-1);
    if (!first || !last) return;
    const text = words.map((word) => word.text.trim()).join(' ');
    sentences.push({
      index: sentences.length,
      text,
      startSeconds: first.startSeconds,
      endSeconds: Math.max(first.startSeconds, last.endSeconds),
      dangling: endsDangling(text),
    });
    words = [];
  };
  for (const word of transcript.words) {
    if (!word.text.trim()) continue;
    words.push(word);
    if (SENTENCE_END.test(word.text.trim())) close();
  }
  close();
  return sentences;
}

/** Text cut to `limit` characters on a word boundary, with an ellipsis when cut. */
export function cutAtWord(text: string, limit: number): string {
  const clean = text.replace(/\s+/g, ' ').trim();
  if (clean.length <= limit) return clean;
  const room = clean.slice(0, limit - 1);
  const boundary = room.lastIndexOf(' ');
  const cut = (boundary > 0 ? room.slice(0, boundary) : room).replace(/[\s,;:–—-]+$/, '');
  return `${cut}…`;
}
