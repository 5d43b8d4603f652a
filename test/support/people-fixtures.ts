import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import ffmpeg from '@ffmpeg-installer/ffmpeg';
import { localCaptionFontFiles } from '../../local/caption-fonts';

/**
 * Sources that look like what users split, made with ffmpeg from a real photograph: Eileen Collins,
 * NASA astronaut (test/fixtures/people/astronaut.png, from scikit-image's sample data; NASA, public
 * domain). The picture of her is cut to head and shoulders and set into a room, as a presenter
 * filmed from the waist up.
 *
 * - `presenter`: beside a whiteboard with a chart's title and figures on it, drifting left and right
 *   by 150 pixels as presenters do.
 * - `walking`: the photograph crossing a grey ramp from one side to the other and back; the ramp's
 *   brightness at a clip's left edge says where the crop stood.
 * - `turnsAway`: the presenter, whose face is hidden (as by a hood seen from behind) from 8 to 12 s.
 * - `twoPeople`: an interview: two people at either side of a table, far apart.
 * - `slides`: a slide deck, no one on screen.
 *
 * All 1280x720 at 25 fps with speech-like sound, 20 s.
 */

export type PeopleFixture = 'presenter' | 'walking' | 'turnsAway' | 'twoPeople' | 'slides';

export const FIXTURE_SIZE = { width: 1280, height: 720 };
export const FIXTURE_SECONDS = 20;
/** A fixture takes under 15 s to make on a loaded 2-core machine: ten times that is a stall. */
const FIXTURE_TIMEOUT_MS = 150_000;
export const PHOTO_PATH = join(__dirname, '..', 'fixtures', 'people', 'astronaut.png');
/** The part of the 512x512 photograph that is her head and shoulders, and the height it is shown at. */
const PERSON_CROP = '380:512:50:0';
export const PERSON_HEIGHT = 470;
const PERSON_WIDTH = 2 * Math.round((PERSON_HEIGHT * 380) / 512 / 2);
/** The walking fixture's ramp: brightness = x * 0.16 + 20 across the 1280-pixel width. */
export const RAMP_LUMA = 'X*0.16+20';

const WALL = 'color=c=0xd9d4c7';
/** What hides the face in `turnsAway` (a dark green hood), as RGB: a colour the photograph does not hold, so the tests can find it. */
export const HIDDEN_FACE_COLOUR = [0x1e, 0x5a, 0x1e] as const;
const { width: W, height: H } = FIXTURE_SIZE;

function whiteboard(font: string): string {
  const text = (words: string, y: number, size: number, colour: string) =>
    `drawtext=fontfile='${font}':text='${words}':x=100:y=${y}:fontsize=${size}:fontcolor=${colour}`;
  return [
    'drawbox=x=60:y=80:w=640:h=440:color=white:t=fill',
    'drawbox=x=60:y=80:w=640:h=440:color=0x4a4a4a:t=8',
    text('Release pipeline', 110, 44, '0x1a3a8a'),
    text('Cache hits  72 to 91 pct', 200, 32, '0x222222'),
    text('Build p95  14 to 6 min', 260, 32, '0xaa2222'),
    ...[330, 370, 410, 450].map((y, index) => `drawbox=x=100:y=${y}:w=${420 - index * 70}:h=18:color=0x2c3e50:t=fill`),
  ].join(',');
}

function slides(font: string, seconds = FIXTURE_SECONDS): string {
  const line = (words: string, y: number, size: number) =>
    `drawtext=fontfile='${font}':text='${words}':x=120:y=${y}:fontsize=${size}:fontcolor=0x1f2933`;
  return [
    `${WALL.replace('0xd9d4c7', 'white')}:s=${W}x${H}:r=25:d=${seconds}`,
    'drawbox=x=0:y=0:w=iw:h=90:color=0x1a3a8a:t=fill',
    `drawtext=fontfile='${font}':text='Q3 engineering review':x=120:y=24:fontsize=40:fontcolor=white`,
    line('Three changes to the build', 170, 48),
    line('1. Shared remote cache for every build', 280, 34),
    line('2. Tests split across eight runners', 340, 34),
    line('3. Flaky tests quarantined within a day', 400, 34),
    `drawtext=fontfile='${font}':text='Slide %{eif\\:1+floor(t/7)\\:d}':x=1100:y=650:fontsize=24:fontcolor=0x607080`,
  ].join(',');
}

/** The filter graph drawing the fixture's picture into [v] from the photograph (input 0). */
function pictureGraph(fixture: PeopleFixture, font: string): string {
  const person = `[0:v]crop=${PERSON_CROP},scale=${PERSON_WIDTH}:${PERSON_HEIGHT},setsar=1`;
  const room = `${WALL}:s=${W}x${H}:r=25:d=${FIXTURE_SECONDS},${whiteboard(font)}`;
  const standing = `y=${H - PERSON_HEIGHT}`;
  switch (fixture) {
    case 'presenter':
      return `${room}[room];${person}[person];[room][person]overlay=x='760+75*sin(2*PI*t/10)':${standing}:shortest=1[v]`;
    case 'turnsAway':
      // Her face and hair hidden, as by a hood seen from behind.
      return (
        `${room}[room];${person},drawbox=x=60:y=20:w=190:h=215:color=0x${HIDDEN_FACE_COLOUR.map((c) => c.toString(16).padStart(2, '0')).join('')}:t=fill:enable='between(t,8,12)'[person];` +
        `[room][person]overlay=x='760+75*sin(2*PI*t/10)':${standing}:shortest=1[v]`
      );
    case 'walking':
      return (
        `color=c=gray:s=${W}x2:r=25:d=${FIXTURE_SECONDS},geq=lum='${RAMP_LUMA}':cb=128:cr=128,scale=${W}:${H}[ramp];` +
        `${person}[person];` +
        `[ramp][person]overlay=x='(W-w)*(0.5-0.5*cos(2*PI*t/${FIXTURE_SECONDS}))':${standing}:shortest=1[v]`
      );
    case 'twoPeople':
      return (
        `${WALL}:s=${W}x${H}:r=25:d=${FIXTURE_SECONDS},drawbox=x=0:y=${H - 120}:w=iw:h=120:color=0x6b4f3a:t=fill[room];` +
        `${person},split=2[left][mirrored];[mirrored]hflip,hue=h=25[right];` +
        `[room][left]overlay=x=20:${standing}:shortest=1[one];[one][right]overlay=x=${W - PERSON_WIDTH - 20}:${standing}[v]`
      );
    case 'slides':
      // The photograph is read and dropped: an input nothing reads stalls ffmpeg.
      return `[0:v]nullsink;${slides(font)}[v]`;
  }
}

/** Speech-like sound: a voice's pitch, in phrases with pauses between them. */
const SPEECH = "aevalsrc='0.4*sin(2*PI*(180+40*sin(2*PI*3*t))*t)*(0.5+0.5*sin(2*PI*4*t))*gt(mod(t\\,5)\\,0.6)':s=44100";

/** The fixture as an MP4 file's bytes. */
export function makePeopleFixture(fixture: PeopleFixture): Buffer {
  const directory = mkdtempSync(join(tmpdir(), `people-${fixture}-`));
  try {
    const file = join(directory, 'source.mp4');
    const font = localCaptionFontFiles().fontsDirectory + '/Montserrat_700Bold.ttf';
    execFileSync(
      ffmpeg.path,
      [
        ...['-hide_banner', '-loglevel', 'error', '-y'],
        ...['-loop', '1', '-framerate', '25', '-t', String(FIXTURE_SECONDS), '-i', PHOTO_PATH],
        ...['-f', 'lavfi', '-i', `${SPEECH}:d=${FIXTURE_SECONDS}`],
        ...[
          '-filter_complex',
          pictureGraph(fixture, font),
          '-map',
          '[v]',
          '-map',
          '1:a',
          '-t',
          String(FIXTURE_SECONDS),
        ],
        ...['-c:v', 'libx264', '-preset', 'veryfast', '-crf', '20', '-pix_fmt', 'yuv420p'],
        ...['-c:a', 'aac', '-movflags', '+faststart', file],
      ],
      // A graph that stalls (an input nothing reads) fails the test instead of running on unseen.
      { timeout: FIXTURE_TIMEOUT_MS, killSignal: 'SIGKILL' },
    );
    return readFileSync(file);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

/**
 * One minute of a talk as a camera films it: the presenter beside the whiteboard for 40 s (with a
 * camera's light grain), a slide of the deck shown whole for 12 s (a clean screen capture, still),
 * the presenter again for 8 s; speech throughout.
 */
const TALK_MINUTE_SECONDS = 60;
const TALK_SLIDE = { fromSeconds: 40, toSeconds: 52 };
/** A camera's grain in good light: faint, new in every frame. */
const CAMERA_GRAIN = 'noise=alls=4:allf=t';

/**
 * A talk of whole minutes at `width`x`height` and 25 fps, H.264 (x264 veryfast at `videoKbps`, the
 * rate a camera's or a conference recording's file has) and AAC: one minute (above) encoded once,
 * drawn at 1280x720 and scaled to the size asked, then repeated without re-encoding, the index at
 * the front; the minute and the list of its repeats are written beside `path`, and removed. With
 * `ffmpegPath`, that ffmpeg makes it (the npm build's otherwise).
 */
export async function makeTalkSource(
  path: string,
  options: { seconds: number; width: number; height: number; videoKbps: number; ffmpegPath?: string },
): Promise<{ path: string; seconds: number; sizeBytes: number }> {
  const { seconds, width, height, videoKbps, ffmpegPath = ffmpeg.path } = options;
  if (seconds % TALK_MINUTE_SECONDS !== 0) throw new Error(`A talk lasts whole minutes; ${seconds} s does not`);
  const run = promisify(execFile);
  const font = localCaptionFontFiles().fontsDirectory + '/Montserrat_700Bold.ttf';
  const minute = `${path}.minute.mp4`;
  const list = `${path}.minutes.txt`;
  const d = TALK_MINUTE_SECONDS;
  const person = `[0:v]crop=${PERSON_CROP},scale=${PERSON_WIDTH}:${PERSON_HEIGHT},setsar=1[person]`;
  const room = `${WALL}:s=${W}x${H}:r=25:d=${d},${whiteboard(font)}[room]`;
  const graph = [
    person,
    room,
    `[room][person]overlay=x='760+75*sin(2*PI*t/10)':y=${H - PERSON_HEIGHT}:shortest=1,${CAMERA_GRAIN}[camera]`,
    `${slides(font, d)}[slide]`,
    `[camera][slide]overlay=enable='between(t,${TALK_SLIDE.fromSeconds},${TALK_SLIDE.toSeconds})',` +
      `scale=${width}:${height},format=yuv420p[v]`,
  ].join(';');
  try {
    await run(ffmpegPath, [
      ...['-hide_banner', '-loglevel', 'error', '-y'],
      ...['-loop', '1', '-framerate', '25', '-t', String(d), '-i', PHOTO_PATH],
      ...['-f', 'lavfi', '-i', `${SPEECH}:d=${d}`],
      ...['-filter_complex', graph, '-map', '[v]', '-map', '1:a', '-t', String(d)],
      ...['-c:v', 'libx264', '-preset', 'veryfast', '-b:v', `${videoKbps}k`],
      ...['-maxrate', `${Math.round(videoKbps * 1.5)}k`, '-bufsize', `${2 * videoKbps}k`],
      ...['-c:a', 'aac', '-b:a', '96k', minute],
    ]);
    await writeFile(list, `file '${minute}'\n`.repeat(seconds / d));
    await run(ffmpegPath, [
      ...['-hide_banner', '-loglevel', 'error', '-y', '-f', 'concat', '-safe', '0', '-i', list],
      ...['-c', 'copy', '-movflags', '+faststart', path],
    ]);
    return { path, seconds, sizeBytes: (await stat(path)).size };
  } finally {
    await Promise.all([rm(minute, { force: true }), rm(list, { force: true })]);
  }
}
