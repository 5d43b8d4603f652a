import type { Clip } from '#contract/types';
import { MAX_PAN_SPEED } from '#domain/framing/subject-path';
import { waitForJob } from './support/jobs';
import { decodeFrames, makeSubjectSource, type SubjectSourcePlan } from './support/media';
import { call, createOrganization, type TestOrganization, uploadSplitSource } from './support/stack';

/**
 * Subject framing on the local stack: a 16:9 source whose subject (a skin-toned ellipse) walks
 * across a grey ramp is split into 9:16 clips, and the clips' frames are read back. The ramp's
 * brightness at the left edge of a clip's frame tells where the crop window stood in the source.
 */

const WIDTH = 640;
const HEIGHT = 360;
const SECONDS = 24;
/** The subject walks from 12% to 88% of the width and back. */
const WALKING: SubjectSourcePlan = {
  width: WIDTH,
  height: HEIGHT,
  durationSeconds: SECONDS,
  subjectCentres: [`0.12+0.76*(0.5-0.5*cos(2*PI*t/${SECONDS}))`],
};
/** A cut halfway: the ramp turns round, and the subject stands at the left, then at the right. */
const CUT_HALFWAY: SubjectSourcePlan = {
  ...WALKING,
  subjectCentres: [`if(lt(t,${SECONDS / 2}),0.2,0.8)`],
  rampLuma: `if(lt(T,${SECONDS / 2}),X*0.8+20,224-X*0.8)`,
};
/** Two people far apart: no 9:16 window holds both. */
const TWO_APART: SubjectSourcePlan = { ...WALKING, subjectCentres: ['0.15', '0.85'] };

/** Clip frames are read at this size: a ninth of a 720x1280 clip's width and height... */
const FRAME_WIDTH = 90;
const FRAME_HEIGHT = 160;
/** ...and the ramp is read over this strip at the left edge, above the subject (which fills 32% to 68% of the height). */
const STRIP = { columns: 4, rows: 24 };
/** The 9:16 window of a 640x360 source. */
const WINDOW_WIDTH = 202;
/** How far the measured crop position may stray from the true one: the ramp rises 1 level per 3 source pixels, after two scalings and an encode. */
const MEASURE_TOLERANCE_PX = 4;

async function splitClips(
  org: TestOrganization,
  sourceId: string,
  options: { framing?: string; clip_length_preset?: string } = {},
): Promise<Clip[]> {
  const created = await call<{ id: string }>('POST', '/split-jobs', {
    key: org.key,
    body: { source_asset_id: sourceId, clip_length_preset: 'under_30', max_clips: 1, ...options },
  });
  expect(created.status).toBe(201);
  const { job } = await waitForJob<{ status: string; progress: number; stage: string | null }>(
    org.key,
    created.body.id,
    120_000,
  );
  expect(job.status).toBe('completed');
  const clips = await call<{ clips: Clip[] }>('GET', `/split-jobs/${created.body.id}/clips`, { key: org.key });
  return clips.body.clips;
}

async function clipFrames(clip: Clip): Promise<Buffer[]> {
  const response = await fetch(clip.download_url!);
  expect(response.status).toBe(200);
  return decodeFrames(Buffer.from(await response.arrayBuffer()), FRAME_WIDTH, FRAME_HEIGHT);
}

const stripMean = (frame: Buffer, width: number, columns: number, rows: number) => {
  let total = 0;
  for (let y = 0; y < rows; y += 1) for (let x = 0; x < columns; x += 1) total += frame[(y * width + x) * 3]!;
  return total / (columns * rows);
};

/**
 * The source's strip brightness for each crop position: the same strip of the source's own
 * frame, scaled as the clip is (the window to the clip's frame size).
 */
function rampLookup(sourceFrame: Buffer): (brightness: number) => number {
  const sourceColumns = Math.round((STRIP.columns * WINDOW_WIDTH) / FRAME_WIDTH);
  const sourceRows = Math.round((STRIP.rows * HEIGHT) / FRAME_HEIGHT);
  const means = Array.from({ length: WIDTH - WINDOW_WIDTH + 1 }, (_, x) => {
    let total = 0;
    for (let y = 0; y < sourceRows; y += 1)
      for (let dx = 0; dx < sourceColumns; dx += 1) total += sourceFrame[(y * WIDTH + x + dx) * 3]!;
    return total / (sourceRows * sourceColumns);
  });
  return (brightness) => {
    let best = 0;
    means.forEach((mean, x) => {
      if (Math.abs(mean - brightness) < Math.abs(means[best]! - brightness)) best = x;
    });
    return best;
  };
}

/** The subject's pixels in a clip frame: skin-toned, where the ramp is grey. */
function subjectColumns(frame: Buffer): { count: number; left: number; right: number } {
  let count = 0;
  let left = FRAME_WIDTH;
  let right = -1;
  for (let y = 0; y < FRAME_HEIGHT; y += 1) {
    for (let x = 0; x < FRAME_WIDTH; x += 1) {
      const p = (y * FRAME_WIDTH + x) * 3;
      if (frame[p]! - frame[p + 2]! > 40) {
        count += 1;
        left = Math.min(left, x);
        right = Math.max(right, x);
      }
    }
  }
  return { count, left, right };
}

/** The share of frames that show the whole subject, clear of the frame's sides. */
function shareWithSubjectInside(frames: readonly Buffer[]): number {
  const subjects = frames.map(subjectColumns);
  const fullArea = Math.max(...subjects.map((subject) => subject.count));
  const inside = subjects.filter(
    (subject) => subject.count >= 0.9 * fullArea && subject.left > 0 && subject.right < FRAME_WIDTH - 1,
  );
  return inside.length / frames.length;
}

describe('subject framing', () => {
  let org: TestOrganization;
  let walkingSource: Buffer;
  let walkingId: string;

  beforeAll(async () => {
    org = await createOrganization({ credits: 100 });
    walkingSource = makeSubjectSource(WALKING);
    walkingId = await uploadSplitSource(org, walkingSource, 'walk.mp4');
  });

  it('follows a walking subject: inside the crop on at least 95% of frames, the crop moving by bounded steps', async () => {
    const [clip] = await splitClips(org, walkingId);
    expect(clip?.framing).toBe('subject');
    const frames = await clipFrames(clip!);
    expect(frames.length).toBeGreaterThan(25 * 10);

    const [sourceFrame] = decodeFrames(walkingSource, WIDTH, HEIGHT);
    const cropAt = rampLookup(sourceFrame!);
    const positions = frames.map((frame) => cropAt(stripMean(frame, FRAME_WIDTH, STRIP.columns, STRIP.rows)));
    const steps = positions.slice(1).map((position, index) => Math.abs(position - positions[index]!));
    // The source is 25 fps: each clip frame is 1/25 s after the one before.
    const maxStep = (MAX_PAN_SPEED * WIDTH) / 25;
    expect(Math.max(...steps)).toBeLessThanOrEqual(maxStep + 2 * MEASURE_TOLERANCE_PX);
    // The window travelled: it followed the subject rather than standing still.
    expect(Math.max(...positions) - Math.min(...positions)).toBeGreaterThan(WIDTH / 4);

    expect(shareWithSubjectInside(frames)).toBeGreaterThanOrEqual(0.95);
  }, 180_000);

  it("frames each shot on its own: at a scene cut the window moves to the new shot's subject at once", async () => {
    const cutId = await uploadSplitSource(org, makeSubjectSource(CUT_HALFWAY), 'walk.mp4');
    // A clip of the whole source, across the cut: under_60 clips are at least 25 s long.
    const [clip] = await splitClips(org, cutId, { clip_length_preset: 'under_60' });
    expect(clip).toMatchObject({ framing: 'subject', start_time_seconds: 0, end_time_seconds: SECONDS });
    // Panning from one subject to the other would lose the subject for about 2.4 s, a tenth of the clip.
    expect(shareWithSubjectInside(await clipFrames(clip!))).toBeGreaterThanOrEqual(0.95);
  }, 180_000);

  it('fits the whole picture when asked to, and when no window holds a single subject', async () => {
    const [asked] = await splitClips(org, walkingId, { framing: 'fit' });
    expect(asked?.framing).toBe('fit');
    const apart = await uploadSplitSource(org, makeSubjectSource(TWO_APART), 'walk.mp4');
    const [auto] = await splitClips(org, apart);
    expect(auto?.framing).toBe('fit');
    // Both people are in the fitted clip.
    const middle = (await clipFrames(auto!))[50]!;
    const halves = [0, FRAME_WIDTH / 2].map((from) => {
      let count = 0;
      for (let y = 0; y < FRAME_HEIGHT; y += 1)
        for (let x = from; x < from + FRAME_WIDTH / 2; x += 1) {
          const p = (y * FRAME_WIDTH + x) * 3;
          if (middle[p]! - middle[p + 2]! > 40) count += 1;
        }
      return count;
    });
    expect(halves.every((count) => count > 0)).toBe(true);
  }, 180_000);

  it('follows the most salient window when subject framing is asked for, even between two people', async () => {
    const apart = await uploadSplitSource(org, makeSubjectSource(TWO_APART), 'walk.mp4');
    const [clip] = await splitClips(org, apart, { framing: 'subject' });
    expect(clip?.framing).toBe('subject');
  }, 180_000);
});
