import type { Clip } from '#contract/types';
import { peopleDetector, type Detection } from '#domain/framing/people-detection';
import { MAX_PAN_SPEED } from '#domain/framing/subject-path';
import { peopleDetectorFilesIn } from '#platform/people-detector-files';
import { localPeopleDetectorDirectory } from '../../local/people-detector';
import { FIXTURE_SIZE, HIDDEN_FACE_COLOUR, makePeopleFixture, type PeopleFixture } from '../support/people-fixtures';
import { waitForJob } from './support/jobs';
import { decodeFrames } from './support/media';
import { call, createOrganization, type TestOrganization, uploadSplitSource } from './support/stack';

/**
 * Framing on the local stack, with sources that look like what users split (test/support/people-fixtures.ts:
 * a real photograph of a person beside a whiteboard, walking, turning away; two people; slides).
 * Each is split into one 9:16 clip under `auto`, and the clip's frames are read back and judged:
 * by the people detector (the person's head whole inside the frame, and large enough), by colour where the face is hidden, and by the ramp behind the walking person (where
 * the crop stood).
 */

/** Clip frames are read at a quarter of the 720x1280 clip, two a second... */
const FRAME = { width: 180, height: 320 };
const JUDGED_PER_SECOND = 2;
/** ...and every frame at a ninth, for the ramp. */
const RAMP_FRAME = { width: 80, height: 142 };
const FACE_SCORE = 0.6;

async function splitClip(org: TestOrganization, sourceId: string, options: { framing?: string } = {}): Promise<Clip> {
  const created = await call<{ id: string }>('POST', '/split-jobs', {
    key: org.key,
    body: { source_asset_id: sourceId, clip_length_preset: 'under_30', max_clips: 1, ...options },
  });
  expect(created.status).toBe(201);
  const { job } = await waitForJob(org.key, created.body.id, 180_000);
  expect(job.status).toBe('completed');
  const clips = await call<{ clips: Clip[] }>('GET', `/split-jobs/${created.body.id}/clips`, { key: org.key });
  expect(clips.body.clips).toHaveLength(1);
  return clips.body.clips[0]!;
}

async function clipBytes(clip: Clip): Promise<Buffer> {
  const response = await fetch(clip.download_url!);
  expect(response.status).toBe(200);
  return Buffer.from(await response.arrayBuffer());
}

/** The clip's frames JUDGED_PER_SECOND a second (the clip is 30 fps at most; the fixtures 25). */
function judgedFrames(bytes: Buffer): Buffer[] {
  const every = decodeFrames(bytes, FRAME.width, FRAME.height);
  return every.filter((_, index) => index % Math.round(25 / JUDGED_PER_SECOND) === 0);
}

/**
 * Whether the head is whole in the frame: the hair above the brows, the chin with a third of a
 * face below it, the face with a quarter of its width either side (a 9:16 window of a medium shot
 * is about three face widths across); and the head at least 12% of the frame's height.
 */
function headInside(face: Detection): boolean {
  const head = { top: face.y - 0.35 * face.height, height: 1.35 * face.height };
  return (
    head.top >= 0 &&
    face.y + 1.33 * face.height <= 1 &&
    face.x - 0.25 * face.width >= 0 &&
    face.x + 1.25 * face.width <= 1 &&
    head.height >= 0.12
  );
}

/** The share of frames that keep a person's head whole, by the detector. */
async function shareKeepingThePerson(frames: readonly Buffer[]): Promise<number> {
  const detector = await peopleDetector(peopleDetectorFilesIn(localPeopleDetectorDirectory()));
  const found = await detector.detect({ rgb: Buffer.concat(frames), ...FRAME });
  const kept = found.filter((frame) => frame.faces.some((face) => face.score >= FACE_SCORE && headInside(face)));
  return kept.length / frames.length;
}

/** The dark hair hiding the face in `turnsAway`: its box in the frame, or null where it is not to be seen. */
function hiddenFaceBox(frame: Buffer) {
  let count = 0;
  const box = { left: FRAME.width, right: -1, top: FRAME.height, bottom: -1 };
  const HAIR = HIDDEN_FACE_COLOUR;
  for (let y = 0; y < FRAME.height; y += 1) {
    for (let x = 0; x < FRAME.width; x += 1) {
      const p = (y * FRAME.width + x) * 3;
      const [r, g, b] = [frame[p]!, frame[p + 1]!, frame[p + 2]!];
      if (Math.abs(r - HAIR[0]) < 14 && Math.abs(g - HAIR[1]) < 14 && Math.abs(b - HAIR[2]) < 14) {
        count += 1;
        box.left = Math.min(box.left, x);
        box.right = Math.max(box.right, x);
        box.top = Math.min(box.top, y);
        box.bottom = Math.max(box.bottom, y);
      }
    }
  }
  return count > 200 ? box : null;
}

describe('framing by people', () => {
  let org: TestOrganization;
  const sources = new Map<PeopleFixture, string>();
  const sourceOf = async (fixture: PeopleFixture) => {
    if (!sources.has(fixture))
      sources.set(fixture, await uploadSplitSource(org, makePeopleFixture(fixture), `${fixture}.mp4`));
    return sources.get(fixture)!;
  };

  beforeAll(async () => {
    org = await createOrganization({ credits: 200 });
  });

  it('follows a presenter beside a whiteboard: her head whole on at least 95% of frames, at least 12% of the height', async () => {
    const clip = await splitClip(org, await sourceOf('presenter'));
    expect(clip.framing).toBe('subject');
    expect(clip.framing_reason).toMatch(/^One person in (9\d|100)% of the clip: the frame follows them\.$/);
    expect(await shareKeepingThePerson(judgedFrames(await clipBytes(clip)))).toBeGreaterThanOrEqual(0.95);
  }, 240_000);

  it('follows a real photograph of a person across the picture, the crop moving by bounded steps', async () => {
    const clip = await splitClip(org, await sourceOf('walking'));
    expect(clip.framing).toBe('subject');
    const bytes = await clipBytes(clip);
    expect(await shareKeepingThePerson(judgedFrames(bytes))).toBeGreaterThanOrEqual(0.95);
    // The ramp behind her: brightness 0.16 x + 20 at source column x, read at the clip's top left.
    const lefts = decodeFrames(bytes, RAMP_FRAME.width, RAMP_FRAME.height).map((frame) => {
      let total = 0;
      for (let y = 0; y < 8; y += 1) for (let x = 0; x < 3; x += 1) total += frame[(y * RAMP_FRAME.width + x) * 3]!;
      return (total / 24 - 20) / 0.16;
    });
    const steps = lefts.slice(1).map((left, index) => Math.abs(left - lefts[index]!));
    // Each clip frame is 1/25 s after the one before; a brightness level is 6.25 source pixels, read after an encode.
    expect(Math.max(...steps)).toBeLessThanOrEqual((MAX_PAN_SPEED * FIXTURE_SIZE.width) / 25 + 3 * 6.25);
    expect(Math.max(...lefts) - Math.min(...lefts)).toBeGreaterThan(FIXTURE_SIZE.width / 3);
  }, 240_000);

  it('keeps a presenter who turns away for a few seconds in the frame', async () => {
    const clip = await splitClip(org, await sourceOf('turnsAway'));
    expect(clip.framing).toBe('subject');
    const frames = judgedFrames(await clipBytes(clip));
    const start = clip.start_time_seconds;
    const turned = frames.filter((_, index) => {
      const seconds = start + index / JUDGED_PER_SECOND;
      return seconds > 8.5 && seconds < 11.5;
    });
    const facing = frames.filter((_, index) => {
      const seconds = start + index / JUDGED_PER_SECOND;
      return seconds < 7.5 || seconds > 12.5;
    });
    expect(await shareKeepingThePerson(facing)).toBeGreaterThanOrEqual(0.95);
    for (const frame of turned) {
      const hair = hiddenFaceBox(frame);
      expect(hair).not.toBeNull();
      expect(hair!.left).toBeGreaterThan(0);
      expect(hair!.right).toBeLessThan(FRAME.width - 1);
    }
  }, 240_000);

  it('stacks two people far apart, one in each half, and says so', async () => {
    const clip = await splitClip(org, await sourceOf('twoPeople'));
    expect(clip.framing).toBe('stacked');
    expect(clip.framing_reason).toMatch(/^Two people far apart in \d+% of the clip: one in each half of the frame/);
    const frames = judgedFrames(await clipBytes(clip));
    const detector = await peopleDetector(peopleDetectorFilesIn(localPeopleDetectorDirectory()));
    const found = await detector.detect({ rgb: Buffer.concat(frames), ...FRAME });
    const withBoth = found.filter((frame) => {
      const faces = frame.faces.filter((face) => face.score >= FACE_SCORE);
      return faces.some((face) => face.y + face.height < 0.5) && faces.some((face) => face.y > 0.5);
    });
    expect(withBoth.length / frames.length).toBeGreaterThanOrEqual(0.95);
  }, 240_000);

  it('fits slides whole, and says why', async () => {
    const slides = await splitClip(org, await sourceOf('slides'));
    expect(slides.framing).toBe('fit');
    expect(slides.framing_reason).toBe(
      'No person in the clip (a slide, a screen or a wide shot): the whole picture is shown.',
    );
  }, 240_000);
});
