import { isQuestion } from '../opening-cues';
import { endsDangling } from '../sentences';
import type { TranscriptWord } from './port';

/**
 * What `pocketsphinx_continuous -time yes` prints, turned into transcript words. For each
 * utterance it prints the hypothesis on one line, then one line per segment:
 * `<word> <start> <end> <confidence>`, times in seconds from the start of the audio. Segments
 * include fillers (`<s>`, `</s>`, `<sil>`, `[NOISE]`, `[SPEECH]`, and `++NOISE++` in older
 * models), and a word said with an alternate pronunciation of the dictionary is marked `word(2)`.
 *
 * The recognizer gives no punctuation and no capitals, which captions and titles read: a cue and a
 * title end at the end of a sentence (captions.ts, clip-selection.ts). Here a pause of at least
 * SENTENCE_PAUSE_SECONDS, or the end of the speech, ends a sentence: its last word gets a full
 * stop, and the next word a capital, as does the pronoun "I". A speaker who runs sentences together
 * gets one long sentence, which captions still break at their line limits and titles cut at 80
 * characters; one who pauses mid-sentence gets it split there.
 */

/** A word as the recognizer heard it, before sentences are made. */
export interface RecognizedWord {
  text: string;
  startSeconds: number;
  endSeconds: number;
}

/**
 * The silence after which the recognizer's own voice activity detection ends an utterance (its
 * `-vad_postspeech`, 50 frames of 10 ms): a speaker taking a breath between sentences.
 */
export const SENTENCE_PAUSE_SECONDS = 0.5;

const FILLER = /^(?:<.*>|\[.*\]|\+\+.*\+\+)$/;
const ALTERNATE_PRONUNCIATION = /\(\d+\)$/;
const SECONDS = /^\d+(?:\.\d+)?$/;
const NUMBER = /^[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[-+]?\d+)?$/i;
const PRONOUN_I = /^i(?:'[a-z]+)?$/;

/** The spoken word of one segment line, or undefined for a hypothesis line, a filler, or anything else. */
export function parseWordLine(line: string): RecognizedWord | undefined {
  const fields = line.trim().split(/\s+/);
  if (fields.length !== 4) return undefined;
  const [token, start, end, confidence] = fields as [string, string, string, string];
  if (!SECONDS.test(start) || !SECONDS.test(end) || !NUMBER.test(confidence) || FILLER.test(token)) return undefined;
  const text = token.replace(ALTERNATE_PRONUNCIATION, '');
  const startSeconds = Number(start);
  const endSeconds = Number(end);
  if (!text || endSeconds < startSeconds) return undefined;
  return { text, startSeconds, endSeconds };
}

const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/**
 * A pause this long ends a sentence even after a word that leaves it open: the speaker stopped
 * there, whatever the grammar says.
 */
export const RUN_ON_PAUSE_SECONDS = 1.5;

/**
 * The words in spoken order, in sentences (see above): a pause ends one unless its last word leaves
 * the thought open ("and", "the", "in fact") and the pause is shorter than RUN_ON_PAUSE_SECONDS.
 * Each sentence is capitalized and ends with a question mark when it opens as a question does
 * ("why did…", "do you…"), else a full stop.
 */
export function sentencesOf(words: readonly RecognizedWord[]): TranscriptWord[] {
  const punctuated: TranscriptWord[] = [];
  let sentence: RecognizedWord[] = [];
  const close = () => {
    const text = sentence.map((word) => word.text).join(' ');
    const ending = isQuestion(text) ? '?' : '.';
    sentence.forEach((word, index) => {
      const cased = index === 0 || PRONOUN_I.test(word.text) ? capitalized(word.text) : word.text;
      // Some dictionary words end in a full stop of their own ("p.m."): it ends the sentence as it is.
      const last = index === sentence.length - 1 && !cased.endsWith('.');
      punctuated.push({
        text: last ? `${cased}${ending}` : cased,
        startSeconds: word.startSeconds,
        endSeconds: word.endSeconds,
      });
    });
    sentence = [];
  };
  words.forEach((word, index) => {
    sentence.push(word);
    const next = words[index + 1];
    const pause = next ? next.startSeconds - word.endSeconds : Infinity;
    const open = endsDangling(sentence.map((spoken) => spoken.text).join(' '));
    if (pause >= RUN_ON_PAUSE_SECONDS || (pause >= SENTENCE_PAUSE_SECONDS && !open)) close();
  });
  return punctuated;
}
