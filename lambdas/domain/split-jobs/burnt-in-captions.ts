import type { AspectRatio } from '#contract/types';
import { OUTPUT_DIMENSIONS } from '#domain/video-jobs/providers/port';
import { CAPTION_FONTS, type CaptionFont } from '#platform/caption-fonts';
import { LINE_CHARACTERS, type CaptionCue, type ClipCaptionCues, type VisibleCaptionStyle } from './captions';

/**
 * A clip's captions drawn into its picture: the cues of captions.ts (the same words, lines and
 * times as the WebVTT file) as an ASS (Advanced SubStation Alpha) document, which ffmpeg's `ass`
 * filter draws with libass in the fonts of lambdas/platform/caption-fonts.ts. One style per
 * caption style, sized for the clip's output frame (PlayResX/PlayResY are its size, so every
 * number below is a pixel of the clip):
 * - `clean`: white Montserrat Bold with a dark outline and a soft shadow, at the bottom of the
 *   safe area, the cue's lines as the WebVTT file breaks them (up to two).
 * - `karaoke`: as `clean`, each word turning from white to the highlight colour when it is spoken
 *   (`\k`, from the words' times); spoken words stay lit, so the eye follows the line.
 * - `bold_center`: a few words in Montserrat Black, large, with a thick outline and a shadow, in
 *   the middle of the frame (the look of Submagic's or OpusClip's captions).
 * - `platform_native`: white text on a dark box (BorderStyle 3) starting at 70% of the height, as
 *   TikTok draws its own captions, above the platforms' controls.
 *
 * Safe area. On 9:16, TikTok, Reels and Shorts draw the caption, account name, music and progress
 * bar over the bottom fifth of the video and a column of buttons down its right side; nothing is
 * drawn there, and text wraps (WrapStyle 0, libass breaking lines evenly) within the width between
 * the left margin and that column. On 16:9 and 1:1, players' controls cover a strip at the bottom
 * only while shown, and the usual title-safe margins (5%) apply.
 */

/** Margins kept clear of captions, as fractions of the frame's width (left, right) and height (top, bottom). */
interface SafeAreaFractions {
  left: number;
  right: number;
  top: number;
  bottom: number;
}

const SAFE_AREAS: Readonly<Record<AspectRatio, SafeAreaFractions>> = {
  '9:16': { left: 0.06, right: 0.18, top: 0.1, bottom: 0.2 },
  '16:9': { left: 0.05, right: 0.05, top: 0.05, bottom: 0.08 },
  '1:1': { left: 0.05, right: 0.05, top: 0.05, bottom: 0.08 },
};

/** The margins of the frame's safe area in pixels, and the frame's size. */
export interface CaptionFrame {
  width: number;
  height: number;
  marginLeft: number;
  marginRight: number;
  marginTop: number;
  marginBottom: number;
}

export function captionFrame(aspectRatio: AspectRatio): CaptionFrame {
  const { width, height } = OUTPUT_DIMENSIONS[aspectRatio];
  const safe = SAFE_AREAS[aspectRatio];
  return {
    width,
    height,
    marginLeft: Math.round(width * safe.left),
    marginRight: Math.round(width * safe.right),
    marginTop: Math.round(height * safe.top),
    marginBottom: Math.round(height * safe.bottom),
  };
}

/**
 * Montserrat Bold's mean advance per unit of ASS font size over English text (spaces included),
 * as libass lays it out: a line of LINE_CHARACTERS at size S is about 0.37 × 42 × S pixels wide.
 */
const TEXT_ADVANCE_PER_SIZE = 0.37;
/** Where the platform-native box's first line starts, from the top. */
const PLATFORM_NATIVE_TOP = 0.7;

/** ASS colours are &HAABBGGRR, alpha 00 opaque. */
const WHITE = '&H00FFFFFF';
const BLACK = '&H00000000';
const HALF_BLACK = '&H80000000';
/** Black at about 70% opacity: TikTok's caption box. */
const BOX_BLACK = '&H4D000000';
/** A warm yellow (#FFE600) for the word being spoken. */
const HIGHLIGHT = '&H0000E6FF';

/** The numbered alignments of ASS: the numeric keypad (2 bottom centre, 5 middle, 8 top centre). */
type Alignment = 2 | 5 | 8;

interface AssStyle {
  font: CaptionFont;
  size: number;
  /** Drawn after (karaoke: once spoken). */
  primary: string;
  /** Karaoke's colour before a word is spoken. */
  secondary: string;
  outlineColour: string;
  backColour: string;
  /** 1 outline and shadow; 3 an opaque box (the outline colour) behind each line. */
  borderStyle: 1 | 3;
  /** Outline width, or the box's padding. */
  outline: number;
  shadow: number;
  alignment: Alignment;
  /** From the bottom (alignment 2) or the top (alignment 8); unused in the middle. */
  marginV: number;
}

const round1 = (value: number) => Math.round(value * 10) / 10;

function assStyle(style: VisibleCaptionStyle, frame: CaptionFrame): AssStyle {
  const shorterSide = Math.min(frame.width, frame.height);
  const safeWidth = frame.width - frame.marginLeft - frame.marginRight;
  // A full line of the cue fits the safe width, so clean cues keep their two lines; on a wide
  // frame the size stops at 6% of the height, where captions start to cover the picture.
  const textSize = Math.floor(Math.min(safeWidth / (LINE_CHARACTERS * TEXT_ADVANCE_PER_SIZE), shorterSide * 0.06));
  const outlined = {
    primary: WHITE,
    secondary: WHITE,
    outlineColour: BLACK,
    backColour: HALF_BLACK,
    borderStyle: 1,
  } as const;
  switch (style) {
    case 'clean':
    case 'karaoke':
      return {
        ...outlined,
        font: CAPTION_FONTS.text,
        size: textSize,
        ...(style === 'karaoke' ? { primary: HIGHLIGHT } : {}),
        outline: round1(textSize * 0.08),
        shadow: round1(textSize * 0.04),
        alignment: 2,
        marginV: frame.marginBottom,
      };
    case 'bold_center': {
      const size = Math.floor(shorterSide * 0.1);
      return {
        ...outlined,
        font: CAPTION_FONTS.heavy,
        size,
        outline: round1(size * 0.09),
        shadow: round1(size * 0.05),
        alignment: 5,
        marginV: 0,
      };
    }
    case 'platform_native': {
      const size = Math.floor(shorterSide * 0.05);
      return {
        ...outlined,
        font: CAPTION_FONTS.text,
        size,
        outlineColour: BOX_BLACK,
        borderStyle: 3,
        outline: round1(size * 0.3),
        shadow: 0,
        alignment: 8,
        marginV: Math.round(frame.height * PLATFORM_NATIVE_TOP),
      };
    }
  }
}

const STYLE_NAME = 'Caption';

function styleLine(style: AssStyle, frame: CaptionFrame): string {
  return [
    `Style: ${STYLE_NAME}`,
    style.font.family,
    style.size,
    style.primary,
    style.secondary,
    style.outlineColour,
    style.backColour,
    style.font.bold ? -1 : 0,
    // Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle
    ...[0, 0, 0, 100, 100, 0, 0],
    style.borderStyle,
    style.outline,
    style.shadow,
    style.alignment,
    frame.marginLeft,
    frame.marginRight,
    style.marginV,
    // Encoding 1: the default; libass reads the text as UTF-8 whatever it says.
    1,
  ].join(',');
}

const centiseconds = (ms: number) => Math.round(ms / 10);

/** `H:MM:SS.cc`, the event time format of ASS. */
function assTime(cs: number): string {
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${Math.floor(cs / 360_000)}:${pad(Math.floor(cs / 6000) % 60)}:${pad(Math.floor(cs / 100) % 60)}.${pad(cs % 100)}`;
}

/**
 * A word as ASS text. `{` and `}` would open and close an override block and `\` start a tag or a
 * line break: braces are escaped (`\{`, `\}`) and a backslash is followed by a zero-width space,
 * so that it starts nothing. Whitespace is folded, as a line break would split the cue.
 */
export function escapeAssText(text: string): string {
  return text.replace(/\s+/g, ' ').replace(/\\/g, '\\\u200b').replace(/[{}]/g, '\\$&');
}

/**
 * The karaoke text of a cue: before each word, `\k` with how long until the next word starts (the
 * last word: until the cue ends), in centiseconds from the event's rounded start, so that each
 * word lights up at its own spoken time. Words the transcript puts at the same moment (or out of
 * order) light up together.
 */
function karaokeText(cue: CaptionCue): string {
  const startCs = centiseconds(cue.startMs);
  const lengthCs = centiseconds(cue.endMs) - startCs;
  const words = cue.lines.flat();
  const offsets: number[] = [];
  for (const word of words) {
    const spoken = Math.min(lengthCs, Math.max(0, centiseconds(word.startMs) - startCs));
    offsets.push(Math.max(offsets.at(-1) ?? 0, spoken));
  }
  let index = 0;
  return cue.lines
    .map((line) =>
      line
        .map((word) => {
          const duration = (offsets[index + 1] ?? lengthCs) - offsets[index]!;
          index += 1;
          return `{\\k${duration}}${escapeAssText(word.text)}`;
        })
        .join(' '),
    )
    .join('\\N');
}

function cueText(cue: CaptionCue, style: VisibleCaptionStyle): string {
  if (style === 'karaoke') return karaokeText(cue);
  return cue.lines.map((line) => line.map((word) => escapeAssText(word.text)).join(' ')).join('\\N');
}

/** The captions as an ASS document for the output frame of the aspect ratio. */
export function assCaptions({ style, cues }: ClipCaptionCues, aspectRatio: AspectRatio): string {
  const frame = captionFrame(aspectRatio);
  const events = cues.map(
    (cue) =>
      `Dialogue: 0,${assTime(centiseconds(cue.startMs))},${assTime(centiseconds(cue.endMs))},${STYLE_NAME},,0,0,0,,${cueText(cue, style)}`,
  );
  return [
    '[Script Info]',
    'ScriptType: v4.00+',
    `PlayResX: ${frame.width}`,
    `PlayResY: ${frame.height}`,
    // Outline, shadow and box padding are pixels of the frame, like the font sizes.
    'ScaledBorderAndShadow: yes',
    // Lines too wide for the safe width break where libass evens them out.
    'WrapStyle: 0',
    '',
    '[V4+ Styles]',
    'Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding',
    styleLine(assStyle(style, frame), frame),
    '',
    '[Events]',
    'Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text',
    ...events,
    '',
  ].join('\n');
}
