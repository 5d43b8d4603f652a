import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ffmpeg from '@ffmpeg-installer/ffmpeg';
import ffprobe from '@ffprobe-installer/ffprobe';
import { greyFramesOf } from '../../support/frames';

/** Real media files made with the same ffmpeg the local renderer uses. */
export function makeMedia(
  kind: 'mp4' | 'png' | 'sound-only-mp4',
  options: { width?: number; height?: number; seconds?: number } = {},
): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'media-'));
  try {
    const file = join(dir, `sample.${kind === 'png' ? 'png' : 'mp4'}`);
    const size = `${options.width ?? 64}x${options.height ?? 64}`;
    const args =
      kind === 'sound-only-mp4'
        ? ['-f', 'lavfi', '-i', `sine=frequency=440:duration=${options.seconds ?? 1}`, '-c:a', 'aac']
        : kind === 'mp4'
          ? [
              '-f',
              'lavfi',
              '-i',
              `testsrc=size=${size}:rate=10:duration=${options.seconds ?? 1}`,
              '-pix_fmt',
              'yuv420p',
              '-movflags',
              '+faststart',
            ]
          : ['-f', 'lavfi', '-i', `testsrc=size=${size}:rate=1:duration=1`, '-frames:v', '1'];
    execFileSync(ffmpeg.path, ['-hide_banner', '-loglevel', 'error', '-y', ...args, file]);
    return readFileSync(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The chunks a large file is made and sent in. */
const LARGE_MEDIA_CHUNK_BYTES = 10 * 1024 * 1024;
const BLOCK_BYTES = 4096;

/** What confirmation's format check reads: an MP4 `ftyp` box, the PNG signature. */
const HEADERS = {
  mp4: Buffer.from([0, 0, 0, 0x18, ...Buffer.from('ftypisom'), 0, 0, 2, 0, ...Buffer.from('isommp41')]),
  png: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
};

/**
 * A file of `sizeBytes` too large to make with ffmpeg in a test: the header of its format, then
 * zeros with every 4 KiB block numbered, so bytes copied to another offset do not compare equal.
 * Yielded in chunks of LARGE_MEDIA_CHUNK_BYTES, never whole in memory.
 */
export function* largeMediaChunks(kind: 'mp4' | 'png', sizeBytes: number): Generator<Buffer> {
  for (let offset = 0; offset < sizeBytes; offset += LARGE_MEDIA_CHUNK_BYTES) {
    const chunk = Buffer.alloc(Math.min(LARGE_MEDIA_CHUNK_BYTES, sizeBytes - offset));
    for (let block = 0; block + 4 <= chunk.length; block += BLOCK_BYTES) {
      chunk.writeUInt32BE((offset + block) / BLOCK_BYTES, block);
    }
    if (offset === 0) HEADERS[kind].copy(chunk, 0, 0, Math.min(HEADERS[kind].length, chunk.length));
    yield chunk;
  }
}

/** A scene of one colour, from `startSeconds` to the next scene's start. */
export interface SplitSourceScene {
  colour: string;
  startSeconds: number;
}

export interface SplitSourcePlan {
  durationSeconds: number;
  width: number;
  height: number;
  /** Scenes in order, the first starting at 0: each change of colour is a scene cut. */
  scenes: readonly SplitSourceScene[];
  /** A 440 Hz tone throughout, except in these silences; none at all when `audio` is false. */
  silences: readonly { startSeconds: number; endSeconds: number }[];
  audio?: boolean;
  /**
   * Coarse moving grain over every scene, which encodes to several Mbit/s: clips of a few seconds
   * make files of tens of MB, as a camera's footage does.
   */
  grain?: boolean;
}

/** 20 s with one scene cut and a steady tone: a split job of it makes clips in seconds. */
export const SHORT_SPLIT_SOURCE: SplitSourcePlan = {
  durationSeconds: 20,
  width: 320,
  height: 180,
  scenes: [
    { colour: 'red', startSeconds: 0 },
    { colour: 'blue', startSeconds: 9 },
  ],
  silences: [],
};

/** Grain of 4x4-pixel blocks: drawn at a quarter of the size, then scaled up without smoothing. */
const GRAIN_SCALE = 4;

/** A video with scene cuts and silences at known times, for split jobs to find. */
export function makeSplitSource(plan: SplitSourcePlan): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'split-source-'));
  try {
    const file = join(dir, 'source.mp4');
    const size = `${plan.width}x${plan.height}`;
    const inputs = plan.scenes.flatMap((scene, index) => {
      const end = plan.scenes[index + 1]?.startSeconds ?? plan.durationSeconds;
      const duration = end - scene.startSeconds;
      const source = plan.grain
        ? `color=c=${scene.colour}:s=${plan.width / GRAIN_SCALE}x${plan.height / GRAIN_SCALE}:r=25:d=${duration},` +
          `noise=alls=40:allf=t,scale=${size.replace('x', ':')}:flags=neighbor`
        : `color=c=${scene.colour}:s=${size}:r=25:d=${duration}`;
      return ['-f', 'lavfi', '-i', source];
    });
    const silent =
      plan.silences.map((range) => `between(t,${range.startSeconds},${range.endSeconds})`).join('+') || '0';
    const audio =
      plan.audio === false
        ? []
        : ['-f', 'lavfi', '-i', `aevalsrc='if(${silent},0,0.5*sin(2*PI*440*t))':s=44100:d=${plan.durationSeconds}`];
    const concat = `${plan.scenes.map((_, index) => `[${index}:v]`).join('')}concat=n=${plan.scenes.length}:v=1:a=0[v]`;
    execFileSync(ffmpeg.path, [
      '-hide_banner',
      '-loglevel',
      'error',
      '-y',
      ...inputs,
      ...audio,
      '-filter_complex',
      concat,
      '-map',
      '[v]',
      ...(plan.audio === false ? [] : ['-map', `${plan.scenes.length}:a`, '-c:a', 'aac']),
      '-c:v',
      'libx264',
      '-preset',
      'ultrafast',
      ...(plan.grain ? ['-crf', '30'] : []),
      '-pix_fmt',
      'yuv420p',
      '-movflags',
      '+faststart',
      file,
    ]);
    return readFileSync(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * An audio podcast as it is posted as a video: one still picture (the show's artwork) at one frame a
 * second, with sound throughout: phrases of a few seconds between short pauses, quieter in the first
 * half (an introduction) than in the second (the discussion).
 */
export function makePodcastSource(plan: { durationSeconds: number; width: number; height: number }): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'podcast-source-'));
  try {
    const file = join(dir, 'podcast.mp4');
    const half = plan.durationSeconds / 2;
    const voice = `(0.08+0.3*gte(t,${half}))*(0.6+0.4*sin(2*PI*3*t))*sin(2*PI*(180+40*sin(2*PI*0.5*t))*t)`;
    execFileSync(ffmpeg.path, [
      ...['-hide_banner', '-loglevel', 'error', '-y'],
      ...['-f', 'lavfi', '-i', `smptehdbars=size=${plan.width}x${plan.height}:rate=1:duration=${plan.durationSeconds}`],
      ...['-f', 'lavfi', '-i', `aevalsrc='if(lt(mod(t,7),0.6),0,${voice})':s=44100:d=${plan.durationSeconds}`],
      ...['-c:v', 'libx264', '-preset', 'ultrafast', '-tune', 'stillimage', '-pix_fmt', 'yuv420p'],
      ...['-c:a', 'aac', '-movflags', '+faststart', file],
    ]);
    return readFileSync(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface ProbedMedia {
  streams: { codec_type: string; codec_name: string; width?: number; height?: number }[];
  format: { duration?: string; format_name: string };
}

/** What ffprobe finds in a file the API served: its streams and container. */
export function probeMedia(bytes: Buffer): ProbedMedia {
  const dir = mkdtempSync(join(tmpdir(), 'probe-'));
  try {
    const file = join(dir, 'file');
    writeFileSync(file, bytes);
    const output = execFileSync(ffprobe.path, [
      ...['-v', 'error', '-of', 'json'],
      ...['-show_entries', 'stream=codec_type,codec_name,width,height:format=duration,format_name'],
      file,
    ]);
    return JSON.parse(output.toString()) as ProbedMedia;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** An image as users upload them for image-to-video, made by ffmpeg from a lavfi picture. */
export function makeImage(name: string, source: string, encoderOptions: readonly string[] = []): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'image-'));
  try {
    const file = join(dir, name);
    execFileSync(ffmpeg.path, [
      '-v',
      'error',
      '-y',
      '-f',
      'lavfi',
      '-i',
      source,
      ...encoderOptions,
      '-frames:v',
      '1',
      file,
    ]);
    return readFileSync(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Every frame of a video as a small grey picture, in order, to compare frames with. */
export function greyFrames(bytes: Buffer): Buffer[] {
  const dir = mkdtempSync(join(tmpdir(), 'frames-'));
  try {
    const file = join(dir, 'video.mp4');
    writeFileSync(file, bytes);
    return greyFramesOf(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A sentence of a speech source and when it is spoken, in source seconds. */
export interface SpokenSentence {
  text: string;
  startSeconds: number;
  endSeconds: number;
}

export interface SpeechSource {
  bytes: Buffer;
  durationSeconds: number;
  sentences: SpokenSentence[];
}

/** Lower case, without punctuation: how a spoken word and a captioned or titled one are compared. */
export const wordsOf = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9'\s]/g, ' ')
    .split(/\s+/)
    .filter(Boolean);

/** Debian's flite, whose `rms` voice PocketSphinx's English model hears almost word for word. */
const SPEECH_SYNTHESIZER = 'flite';

/** How long a WAV file plays: its data chunk over its byte rate. */
function wavSeconds(wav: Buffer): number {
  const data = wav.indexOf('data', 12, 'ascii');
  if (data < 0) throw new Error('The synthesized speech is not a WAV file');
  return wav.readUInt32LE(data + 4) / wav.readUInt32LE(28);
}

/**
 * A talk: each sentence spoken by a speech synthesizer after `pauseSeconds` of silence (and the
 * same silence at the end), over a picture whose colour changes every `sentencesPerScene`
 * sentences, as the pause before them starts. Answers when each sentence is spoken.
 */
export function makeSpeechSource(plan: {
  sentences: readonly string[];
  pauseSeconds: number;
  sentencesPerScene: number;
  width: number;
  height: number;
}): SpeechSource {
  const dir = mkdtempSync(join(tmpdir(), 'speech-source-'));
  try {
    const spoken: SpokenSentence[] = [];
    const audioInputs: string[] = [];
    const sceneStarts: number[] = [];
    let at = 0;
    plan.sentences.forEach((text, index) => {
      const wav = join(dir, `sentence-${index}.wav`);
      try {
        execFileSync(SPEECH_SYNTHESIZER, ['-voice', 'rms', '-t', text, '-o', wav]);
      } catch (error) {
        throw new Error(
          `${SPEECH_SYNTHESIZER} could not speak the test's sentences: install Debian's flite (apt-get install flite)`,
          { cause: error },
        );
      }
      if (index % plan.sentencesPerScene === 0) sceneStarts.push(at);
      const seconds = wavSeconds(readFileSync(wav));
      at += plan.pauseSeconds;
      spoken.push({ text, startSeconds: at, endSeconds: at + seconds });
      at += seconds;
      audioInputs.push('-f', 'lavfi', '-t', String(plan.pauseSeconds), '-i', 'anullsrc=r=16000:cl=mono', '-i', wav);
    });
    audioInputs.push('-f', 'lavfi', '-t', String(plan.pauseSeconds), '-i', 'anullsrc=r=16000:cl=mono');
    const durationSeconds = at + plan.pauseSeconds;
    const colours = ['navy', 'darkgreen', 'maroon', 'indigo', 'teal', 'olive'];
    const videoInputs = sceneStarts.flatMap((start, index) => {
      const end = sceneStarts[index + 1] ?? durationSeconds;
      return [
        '-f',
        'lavfi',
        '-i',
        `color=c=${colours[index % colours.length]}:s=${plan.width}x${plan.height}:r=25:d=${end - start}`,
      ];
    });
    const audioCount = audioInputs.filter((arg) => arg === '-i').length;
    const audioLabels = Array.from({ length: audioCount }, (_, index) => `[${index}:a]aresample=16000[a${index}]`);
    const videoLabels = sceneStarts.map((_, index) => `[${audioCount + index}:v]`).join('');
    const filter = [
      ...audioLabels,
      `${audioLabels.map((_, index) => `[a${index}]`).join('')}concat=n=${audioCount}:v=0:a=1[a]`,
      `${videoLabels}concat=n=${sceneStarts.length}:v=1:a=0[v]`,
    ].join(';');
    const file = join(dir, 'source.mp4');
    execFileSync(ffmpeg.path, [
      ...['-hide_banner', '-loglevel', 'error', '-y', ...audioInputs, ...videoInputs],
      ...['-filter_complex', filter, '-map', '[v]', '-map', '[a]'],
      ...['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-movflags', '+faststart'],
      file,
    ]);
    return { bytes: readFileSync(file), durationSeconds, sentences: spoken };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Every frame of a video, scaled to `width` × `height`, as rgb24. */
export function decodeFrames(bytes: Buffer, width: number, height: number): Buffer[] {
  const dir = mkdtempSync(join(tmpdir(), 'frames-'));
  try {
    const file = join(dir, 'video.mp4');
    writeFileSync(file, bytes);
    const rgb = execFileSync(
      ffmpeg.path,
      ['-hide_banner', '-loglevel', 'error', '-i', file, '-vf', `scale=${width}:${height}`, '-f', 'rawvideo'].concat([
        '-pix_fmt',
        'rgb24',
        '-',
      ]),
      { maxBuffer: 1 << 30 },
    );
    const frameBytes = width * height * 3;
    return Array.from({ length: Math.floor(rgb.length / frameBytes) }, (_, index) =>
      rgb.subarray(index * frameBytes, (index + 1) * frameBytes),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
