import { execFileSync } from 'node:child_process';
import ffmpeg from '@ffmpeg-installer/ffmpeg';
import { peopleDetector } from '#domain/framing/people-detection';
import { peopleDetectorFilesIn } from '#platform/people-detector-files';
import { localPeopleDetectorDirectory } from '../../local/people-detector';
import { PHOTO_PATH } from '../support/people-fixtures';

/**
 * The people detector on a real photograph (Eileen Collins, NASA, public domain; see
 * test/support/people-fixtures.ts) set into a 16:9 frame as the analysis samples it (256x144).
 */

const SIZE = { width: 256, height: 144 };

/** The photograph's head and shoulders, 94 pixels high, its left edge at `left`, over a wall; or a slide. */
function frame(scene: { left: number; faceHidden?: boolean } | 'slide'): Uint8Array {
  const graph =
    scene === 'slide'
      ? `color=c=white:s=${SIZE.width}x${SIZE.height},drawbox=x=20:y=30:w=200:h=8:color=0x1f2933:t=fill,drawbox=x=20:y=60:w=150:h=6:color=0x1f2933:t=fill`
      : `color=c=0xd9d4c7:s=${SIZE.width}x${SIZE.height}[wall];[0:v]crop=380:512:50:0,scale=70:94` +
        (scene.faceHidden ? ',drawbox=x=11:y=4:w=36:h=43:color=0x4b3621:t=fill' : '') +
        `[person];[wall][person]overlay=x=${scene.left}:y=${SIZE.height - 94}`;
  return execFileSync(ffmpeg.path, [
    ...['-hide_banner', '-loglevel', 'error', '-i', PHOTO_PATH, '-filter_complex', graph],
    ...['-frames:v', '1', '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'],
  ]);
}

const detector = () => peopleDetector(peopleDetectorFilesIn(localPeopleDetectorDirectory()));

describe('the people detector', () => {
  it("finds a real person's face where she stands, from the files the layer ships", async () => {
    const frames = await (
      await detector()
    ).detect({ rgb: Buffer.concat([frame({ left: 150 }), frame({ left: 30 })]), ...SIZE });
    expect(frames).toHaveLength(2);
    const [right, left] = frames.map((found) => found.faces.filter((face) => face.score >= 0.6));
    expect(right).toHaveLength(1);
    expect(left).toHaveLength(1);
    const centre = (face: { x: number; width: number }) => (face.x + face.width / 2) * SIZE.width;
    expect(Math.abs(centre(right![0]!) - (150 + 35))).toBeLessThan(12);
    expect(Math.abs(centre(left![0]!) - (30 + 35))).toBeLessThan(12);
    expect(right![0]!.height * SIZE.height).toBeGreaterThan(15);
    expect(right![0]!.y * SIZE.height).toBeGreaterThan(SIZE.height - 94);
  });

  it('finds no face in a slide, and none where the face is hidden', async () => {
    const [slide, hidden] = await (
      await detector()
    ).detect({
      rgb: Buffer.concat([frame('slide'), frame({ left: 150, faceHidden: true })]),
      ...SIZE,
    });
    expect(slide!.faces.filter((face) => face.score >= 0.6)).toEqual([]);
    expect(hidden!.faces.filter((face) => face.score >= 0.6)).toEqual([]);
  });

  it('lets the rest of the process run between frames', async () => {
    const found = await detector();
    let timersRun = 0;
    const ticking = setInterval(() => (timersRun += 1), 0);
    try {
      await found.detect({ rgb: Buffer.concat(Array.from({ length: 6 }, () => frame({ left: 150 }))), ...SIZE });
    } finally {
      clearInterval(ticking);
    }
    expect(timersRun).toBeGreaterThanOrEqual(5);
  });

  it('stops between frames once its job has ended', async () => {
    const stopped = new AbortController();
    stopped.abort(new Error('cancelled'));
    await expect((await detector()).detect({ rgb: frame({ left: 150 }), ...SIZE }, stopped.signal)).rejects.toThrow(
      'cancelled',
    );
  });
});
