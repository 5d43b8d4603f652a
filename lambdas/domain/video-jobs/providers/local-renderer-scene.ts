import { createHash } from 'node:crypto';
import type { RenderRequest, VideoStyle } from './port';

/**
 * What the local renderer draws, as ffmpeg arguments. Nothing here is generative: the picture is a
 * moving gradient (or, from a start image, a slow zoom into it) whose palette, motion and framing
 * are seeded from a hash of the prompt, so the same prompt always gives the same video and
 * different prompts visibly differ. The prompt itself is drawn as a caption when a font is available.
 */

/** The frame, rate and length of a render: what the model would deliver for the request. */
export interface RenderShape {
  width: number;
  height: number;
  fps: number;
  durationSeconds: number;
}

export interface SceneInput {
  request: Pick<RenderRequest, 'prompt' | 'style'>;
  /** The frame, rate and length of the video drawn: what the model would deliver. */
  output: RenderShape;
  /** x264 preset: `ultrafast` in tests, something slower (smaller files) for the local stack. */
  preset: string;
  outputPath: string;
  /** A local copy of the image the render starts from (keyframes.ts). */
  imagePath?: string;
  /**
   * The image is the last frame of the render before, which carries the style already: drawing
   * it again would shift the colours at the join.
   */
  continuesChain?: boolean;
  /** The caption file written from `captionText` and the font to draw it with; omitted when drawtext cannot run. */
  caption?: { textFile: string; fontFile: string };
  /** Fault injection: ends the filter graph with a filter that does not exist, so ffmpeg really fails. */
  breakFilterGraph?: boolean;
}

interface Rgb {
  r: number;
  g: number;
  b: number;
}

/** A stream of numbers in [0, 1) derived from the prompt: the only source of variety. */
function seededNumbers(prompt: string): () => number {
  const digest = createHash('sha512').update(prompt).digest();
  let index = 0;
  return () => {
    const value = digest.readUInt16BE(index % 62) / 65536;
    index += 2;
    return value;
  };
}

function hslToRgb(hueDegrees: number, saturation: number, lightness: number): Rgb {
  const chroma = (1 - Math.abs(2 * lightness - 1)) * saturation;
  const h = (((hueDegrees % 360) + 360) % 360) / 60;
  const x = chroma * (1 - Math.abs((h % 2) - 1));
  const [r, g, b] =
    h < 1
      ? [chroma, x, 0]
      : h < 2
        ? [x, chroma, 0]
        : h < 3
          ? [0, chroma, x]
          : h < 4
            ? [0, x, chroma]
            : h < 5
              ? [x, 0, chroma]
              : [chroma, 0, x];
  const m = lightness - chroma / 2;
  return { r: Math.round((r + m) * 255), g: Math.round((g + m) * 255), b: Math.round((b + m) * 255) };
}

/** The style picks the palette's shape (hue spread, saturation, lightness) and the speed of motion. */
const STYLE_LOOKS: Record<
  VideoStyle | 'none',
  { hueOffsets: [number, number, number]; saturation: number; lightness: [number, number, number]; speed: number }
> = {
  realistic: { hueOffsets: [0, 25, 50], saturation: 0.35, lightness: [0.3, 0.45, 0.6], speed: 1 },
  cinematic: { hueOffsets: [0, 180, 200], saturation: 0.6, lightness: [0.2, 0.35, 0.5], speed: 0.8 },
  animated: { hueOffsets: [0, 120, 240], saturation: 0.85, lightness: [0.5, 0.55, 0.6], speed: 2 },
  none: { hueOffsets: [0, 60, 180], saturation: 0.6, lightness: [0.35, 0.5, 0.6], speed: 1.2 },
};

/** Full-resolution finishing per style; each is cheap per frame and keeps files small (no grain). */
function styleFilters(style: VideoStyle | undefined): string[] {
  switch (style) {
    case 'realistic':
      return ['eq=saturation=0.9:contrast=1.05'];
    case 'cinematic':
      return [
        'vignette=angle=PI/4',
        'drawbox=x=0:y=0:w=iw:h=ih*0.06:color=black:t=fill',
        'drawbox=x=0:y=ih*0.94:w=iw:h=ih*0.06:color=black:t=fill',
      ];
    case 'animated':
      // Posterized colour bands read as flat, cel-shaded colour.
      return ['format=rgb24', "lutrgb=r='floor(val/48)*48+24':g='floor(val/48)*48+24':b='floor(val/48)*48+24'"];
    default:
      return [];
  }
}

const fixed = (value: number) => value.toFixed(3);

/**
 * A moving three-colour gradient with a soft light orb, computed by `geq` at a twentieth of the output
 * resolution and scaled up: per-pixel expressions at full size would cost seconds per second of video.
 */
function gradientFilter(prompt: string, style: VideoStyle | undefined, width: number, height: number): string {
  const next = seededNumbers(prompt);
  const look = STYLE_LOOKS[style ?? 'none'];
  const baseHue = next() * 360;
  const [c1, c2, c3] = look.hueOffsets.map((offset, i) =>
    hslToRgb(baseHue + offset, look.saturation, look.lightness[i] ?? 0.5),
  ) as [Rgb, Rgb, Rgb];
  const period = (min: number, max: number) => fixed((min + next() * (max - min)) / look.speed);
  const waveA = `0.5+0.5*sin(2*PI*(X/W*${fixed(0.4 + next())}+Y/H*${fixed(0.3 + next())}+T/${period(4, 9)})+${fixed(next() * 6.28)})`;
  const waveB = `0.5+0.5*sin(2*PI*(X/W*${fixed(0.3 + next())}-Y/H*${fixed(0.4 + next())}+T/${period(5, 10)})+${fixed(next() * 6.28)})`;
  const orbX = `(X-W*(0.5+0.3*sin(2*PI*T/${period(6, 12)}+${fixed(next() * 6.28)})))/min(W,H)`;
  const orbY = `(Y-H*(0.5+0.3*cos(2*PI*T/${period(6, 12)}+${fixed(next() * 6.28)})))/min(W,H)`;
  const orb = `exp(-(pow(${orbX},2)+pow(${orbY},2))/0.03)`;
  // Inline on purpose: geq runs slices in parallel threads that share st()/ld() registers.
  const channel = (a: number, b: number, c: number) =>
    `'clip(${a}+(${b - a})*(${waveA})+(${c - a}-(${b - a})*(${waveA}))*0.6*(${waveB})+80*${orb},0,255)'`;
  return [
    'format=rgb24',
    `geq=r=${channel(c1.r, c2.r, c3.r)}:g=${channel(c1.g, c2.g, c3.g)}:b=${channel(c1.b, c2.b, c3.b)}`,
    `scale=${width}:${height}:flags=bicubic`,
  ].join(',');
}

/**
 * A slow zoom into the image with a drift, starting on the image exactly (frame 0 is the start
 * image, as a model's render from a keyframe is), so that a chain of renders joins without a jump.
 * The image is the render's frame already (keyframes.ts prepares it).
 */
function kenBurnsFilter(prompt: string, width: number, height: number, frames: number, fps: number): string {
  const next = seededNumbers(prompt);
  const driftX = fixed(0.5 + (next() - 0.5) * 0.8);
  const driftY = fixed(0.5 + (next() - 0.5) * 0.8);
  const zoom = `1+0.15*on/${frames}`;
  // zoompan rounds its crop window to whole pixels; working at twice the size hides the jitter.
  const [w2, h2] = [width * 2, height * 2];
  return `[0:v]scale=${w2}:${h2},setsar=1,zoompan=z='${zoom}':x='(iw-iw/zoom)*${driftX}':y='(ih-ih/zoom)*${driftY}':d=${frames}:s=${width}x${height}:fps=${fps}`;
}

function captionLayout(width: number, height: number, withImage: boolean) {
  const fontSize = Math.round(Math.min(width, height) / (withImage ? 26 : 18));
  return {
    fontSize,
    charsPerLine: Math.floor((width * 0.8) / (fontSize * 0.55)),
    maxLines: withImage ? 3 : 7,
  };
}

/** The prompt as caption lines: whitespace collapsed, word-wrapped to the frame, cut with an ellipsis. */
export function captionText(
  request: SceneInput['request'],
  { width, height }: Pick<RenderShape, 'width' | 'height'>,
  withImage: boolean,
): string {
  const { charsPerLine, maxLines } = captionLayout(width, height, withImage);
  const words = request.prompt
    .replace(/\p{Cc}/gu, ' ')
    .split(/\s+/)
    .filter(Boolean);
  const lines: string[] = [];
  let line = '';
  for (const word of words) {
    const piece = word.length > charsPerLine ? `${word.slice(0, charsPerLine - 1)}…` : word;
    if (line && line.length + 1 + piece.length > charsPerLine) {
      lines.push(line);
      line = piece;
    } else {
      line = line ? `${line} ${piece}` : piece;
    }
  }
  if (line) lines.push(line);
  if (lines.length > maxLines) {
    lines.length = maxLines;
    lines[maxLines - 1] = `${(lines[maxLines - 1] ?? '').slice(0, charsPerLine - 1)}…`;
  }
  return lines.join('\n');
}

function captionFilter(
  caption: NonNullable<SceneInput['caption']>,
  width: number,
  height: number,
  withImage: boolean,
  output: Pick<RenderShape, 'durationSeconds' | 'fps'>,
): string {
  const { fontSize } = captionLayout(width, height, withImage);
  // Gone by the last frame: a chained render starts on it, and would carry a ghost of the caption.
  const lastFrameAt = output.durationSeconds - 1 / output.fps;
  const y = withImage ? 'h-text_h-h*0.1' : '(h-text_h)/2+h*0.02*sin(t*0.9)';
  // Fade in over the first 0.6 s and out over the 0.6 s before the last frame.
  const alpha = `'if(lt(t,0.6),t/0.6,if(gt(t,${lastFrameAt - 0.6}),max(0,(${lastFrameAt}-t)/0.6),1))'`;
  return [
    `drawtext=fontfile=${caption.fontFile}:textfile=${caption.textFile}:expansion=none`,
    `fontsize=${fontSize}:fontcolor=white:line_spacing=${Math.round(fontSize / 4)}`,
    `box=1:boxcolor=black@0.35:boxborderw=${Math.round(fontSize / 2)}`,
    `x=(w-text_w)/2:y=${y}:alpha=${alpha}`,
  ].join(':');
}

/** Paths go into the filter graph unquoted, so only plain ones are accepted (temp dirs and system fonts are). */
export function isFilterSafePath(path: string): boolean {
  return /^[\w./-]+$/.test(path);
}

export function ffmpegArgs(input: SceneInput): string[] {
  const { request } = input;
  const { width, height, fps, durationSeconds } = input.output;
  const frames = durationSeconds * fps;
  const withImage = input.imagePath !== undefined;
  const finishing = [
    ...(input.continuesChain ? [] : styleFilters(request.style)),
    ...(input.caption ? [captionFilter(input.caption, width, height, withImage, input.output)] : []),
    ...(input.breakFilterGraph ? ['fault_injected_failure'] : []),
    'format=yuv420p',
  ].join(',');

  const inputAndGraph = input.imagePath
    ? [
        '-i',
        input.imagePath,
        '-filter_complex',
        `${kenBurnsFilter(request.prompt, width, height, frames, fps)},${finishing}[video]`,
        '-map',
        '[video]',
      ]
    : [
        '-f',
        'lavfi',
        '-i',
        `color=c=black:s=${Math.round(width / 20)}x${Math.round(height / 20)}:r=${fps}:d=${durationSeconds}`,
        '-vf',
        `${gradientFilter(request.prompt, request.style, width, height)},${finishing}`,
      ];

  return [
    '-nostdin',
    '-hide_banner',
    '-loglevel',
    'error',
    '-nostats',
    // key=value progress blocks on stdout (out_time=...), about twice a second.
    '-progress',
    'pipe:1',
    ...inputAndGraph,
    '-frames:v',
    String(frames),
    '-r',
    String(fps),
    '-an',
    '-c:v',
    'libx264',
    '-preset',
    input.preset,
    '-crf',
    '28',
    '-pix_fmt',
    'yuv420p',
    // moov atom first, so players can start before the whole file has downloaded.
    '-movflags',
    '+faststart',
    '-y',
    input.outputPath,
  ];
}
