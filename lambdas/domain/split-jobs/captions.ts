import type { CreateSplitJobRequest } from '#contract/types';
import type { TimeRange } from './source-analysis';
import type { Transcript } from './transcription/port';

/**
 * A clip's captions as cues: the transcript's words spoken during the clip, grouped and timed
 * once per caption style, with times relative to the clip's start. Two renderings read the same
 * cues: the WebVTT file below, and the ASS document drawn into the picture
 * (burnt-in-captions.ts). The WebVTT file expresses the styles with WebVTT's own features (cue
 * size, position, `<b>`, inline timestamps), so that the viewer's player or the platform draws
 * them, they stay searchable and a customer can edit them.
 *
 * Cue rules for every style: a cue ends at the end of a sentence and before a pause of a second or
 * more; cues never overlap; a cue stays on screen at least half a second when the next cue and the
 * clip's end leave room. Styles:
 * - `clean`: up to two lines of up to 42 characters, at the player's default place (bottom).
 * - `bold_center`: up to three words on one line, bold, in the middle of the frame.
 * - `karaoke`: cues as `clean`, with a timestamp before each word after the first, so that players
 *   that support them show words as spoken.
 * - `platform_native`: up to four words on one line, at 70% of the height, above the captions,
 *   buttons and account names that TikTok, Reels and Shorts draw over the bottom of the video.
 */

export type CaptionStyle = NonNullable<CreateSplitJobRequest['caption_style']>;
/** A style that shows captions. */
export type VisibleCaptionStyle = Exclude<CaptionStyle, 'none'>;

/** What a line of captions can hold and still be read at a glance (the common broadcast limit). */
export const LINE_CHARACTERS = 42;
/** A silence this long ends a cue, so that text is not left on screen while nobody speaks. */
const PAUSE_MS = 1000;
/** Shorter cues (a single quick word) stay up this long, unless the next cue starts sooner. */
const MIN_CUE_MS = 500;

/** How a style groups words into cues: the same for every rendering. */
interface CueGrouping {
  maxWords: number;
  maxLines: number;
}

const CUE_GROUPINGS: Readonly<Record<VisibleCaptionStyle, CueGrouping>> = {
  clean: { maxWords: Infinity, maxLines: 2 },
  karaoke: { maxWords: Infinity, maxLines: 2 },
  bold_center: { maxWords: 3, maxLines: 1 },
  platform_native: { maxWords: 4, maxLines: 1 },
};

/** How the WebVTT file shows a style's cues. */
interface WebVttLook {
  /** Cue settings, after the cue's times. */
  settings: string;
  bold: boolean;
  wordTimestamps: boolean;
}

const WEBVTT_LOOKS: Readonly<Record<VisibleCaptionStyle, WebVttLook>> = {
  clean: { settings: '', bold: false, wordTimestamps: false },
  karaoke: { settings: '', bold: false, wordTimestamps: true },
  bold_center: { settings: 'line:50% position:50% align:center', bold: true, wordTimestamps: false },
  platform_native: { settings: 'line:70%', bold: false, wordTimestamps: false },
};

/** A word of the clip, its times in milliseconds from the clip's start (cues end within the clip). */
export interface ClipWord {
  text: string;
  startMs: number;
  endMs: number;
}

/** Words shown together, from `startMs` to `endMs` of the clip, as lines of at most LINE_CHARACTERS. */
export interface CaptionCue {
  startMs: number;
  endMs: number;
  lines: ClipWord[][];
}

/** The one model of a clip's captions, which every rendering reads: its cues, grouped for the style. */
export interface ClipCaptionCues {
  style: VisibleCaptionStyle;
  cues: CaptionCue[];
}

/**
 * The words spoken during the clip (or, lasting no time, said at a moment of it), in spoken order,
 * those already spoken as the clip starts starting with it. Whitespace inside a word is folded: a line break would end the cue early.
 */
function clipWords(transcript: Transcript, clip: TimeRange, clipMs: number): ClipWord[] {
  const words: ClipWord[] = [];
  for (const word of transcript.words) {
    const text = word.text.replace(/\s+/g, ' ').trim();
    const startMs = Math.round((word.startSeconds - clip.startSeconds) * 1000);
    const endMs = Math.max(startMs, Math.round((word.endSeconds - clip.startSeconds) * 1000));
    if (text && startMs < clipMs && (endMs > 0 || startMs === 0)) {
      words.push({ text, startMs: Math.max(0, startMs), endMs });
    }
  }
  return words.sort((a, b) => a.startMs - b.startMs);
}

/** Fills lines greedily, breaking between words; a word longer than a line has a line of its own. */
function wrap<T extends { text: string }>(words: readonly T[]): T[][] {
  const lines: T[][] = [];
  let lineLength = 0;
  for (const word of words) {
    const line = lines.at(-1);
    if (line && lineLength + 1 + word.text.length <= LINE_CHARACTERS) {
      line.push(word);
      lineLength += 1 + word.text.length;
    } else {
      lines.push([word]);
      lineLength = word.text.length;
    }
  }
  return lines;
}

const endsSentence = (text: string) => /[.!?…]["'”’»)\]]*$/u.test(text);

function groupIntoCues(words: readonly ClipWord[], grouping: CueGrouping): ClipWord[][] {
  const groups: ClipWord[][] = [];
  let group: ClipWord[] = [];
  for (const word of words) {
    const previous = group.at(-1);
    const startsCue =
      previous !== undefined &&
      (endsSentence(previous.text) ||
        word.startMs - previous.endMs >= PAUSE_MS ||
        group.length >= grouping.maxWords ||
        wrap([...group, word]).length > grouping.maxLines);
    if (startsCue) {
      groups.push(group);
      group = [];
    }
    group.push(word);
  }
  if (group.length > 0) groups.push(group);
  return groups;
}

/**
 * Times each group of words. Groups that start at the same millisecond (words the transcript says
 * were spoken at once) become one cue: separate cues could not both be shown.
 */
function timeCues(groups: readonly ClipWord[][], clipMs: number): CaptionCue[] {
  const merged: ClipWord[][] = [];
  for (const group of groups) {
    const last = merged.at(-1);
    if (last && last[0]?.startMs === group[0]?.startMs) last.push(...group);
    else merged.push([...group]);
  }
  return merged.map((words, index) => {
    const startMs = words[0]?.startMs ?? 0;
    const nextStartMs = merged[index + 1]?.[0]?.startMs ?? clipMs;
    const spokenEndMs = Math.max(...words.map((word) => word.endMs));
    const endMs = Math.min(Math.max(spokenEndMs, startMs + MIN_CUE_MS), nextStartMs);
    return { startMs, endMs, lines: wrap(words) };
  });
}

/** `HH:MM:SS.mmm`, as both cue times and inline timestamps are written. */
function timestamp(ms: number): string {
  const pad = (value: number, digits: number) => String(value).padStart(digits, '0');
  return `${pad(Math.floor(ms / 3_600_000), 2)}:${pad(Math.floor(ms / 60_000) % 60, 2)}:${pad(Math.floor(ms / 1000) % 60, 2)}.${pad(ms % 1000, 3)}`;
}

const escapeText = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * The cue's text. A word's inline timestamp must fall strictly after the previous one and before
 * the cue's end; a word that would break that (spoken at the same moment as the one before) is
 * highlighted with it instead.
 */
function cuePayload(cue: CaptionCue, look: WebVttLook): string {
  let lastMarkMs = cue.startMs;
  const render = (word: ClipWord) => {
    const text = escapeText(word.text);
    if (!look.wordTimestamps || word.startMs <= lastMarkMs || word.startMs >= cue.endMs) return text;
    lastMarkMs = word.startMs;
    return `<${timestamp(word.startMs)}>${text}`;
  };
  const text = cue.lines.map((line) => line.map(render).join(' ')).join('\n');
  return look.bold ? `<b>${text}</b>` : text;
}

/**
 * The cues of the clip's captions in the style, or null when the style is `none`, there is no
 * transcript, or nothing is said.
 */
export function clipCaptionCues(
  transcript: Transcript | null,
  clip: TimeRange,
  style: CaptionStyle,
): ClipCaptionCues | null {
  if (style === 'none' || transcript === null) return null;
  const clipMs = Math.round((clip.endSeconds - clip.startSeconds) * 1000);
  if (clipMs <= 0) return null;
  const words = clipWords(transcript, clip, clipMs);
  if (words.length === 0) return null;
  return { style, cues: timeCues(groupIntoCues(words, CUE_GROUPINGS[style]), clipMs) };
}

/** The captions as a WebVTT file. */
export function webVttCaptions({ style, cues }: ClipCaptionCues): string {
  const look = WEBVTT_LOOKS[style];
  const blocks = cues.map((cue) => {
    const timing = `${timestamp(cue.startMs)} --> ${timestamp(cue.endMs)}`;
    return `${look.settings ? `${timing} ${look.settings}` : timing}\n${cuePayload(cue, look)}`;
  });
  return `${['WEBVTT', ...blocks].join('\n\n')}\n`;
}

/** The clip's WebVTT captions, or null when the style is `none`, there is no transcript, or nothing is said. */
export function clipCaptions(transcript: Transcript | null, clip: TimeRange, style: CaptionStyle): string | null {
  const captions = clipCaptionCues(transcript, clip, style);
  return captions && webVttCaptions(captions);
}
