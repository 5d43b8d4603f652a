import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import fc from 'fast-check';
import { cropCommands, subjectFramingFilterGraph } from '#domain/framing/framing';
import { findSubjects, type SubjectSample } from '#domain/framing/subject-detection';
import { MAX_PAN_SPEED, PATH_FRAME_RATE, planSubjectPath } from '#domain/framing/subject-path';
import { subjectCropWindow, subjectSampleSize } from '#domain/framing/subject-window';
import { clipSubjectCrop, subjectFramesToSample } from '#domain/split-jobs/subject-frames';
import { deferred } from './support/deferred';

process.env.AWS_REGION = 'us-east-1';
process.env.MEDIA_BUCKET_NAME = 'media';

const FRAME = { width: 128, height: 72 };
/** A 9:16 window in a 128x72 sample. */
const WINDOW_LENGTH = 40.5;
const TRAVEL = FRAME.width - WINDOW_LENGTH;
const SKIN = [200, 146, 113] as const;
const GREY = [120, 120, 120] as const;

/** An rgb24 frame of grey with a skin-toned block `blockWidth` wide starting at `left` (or none). */
function frameWithSubject(left: number | undefined, blockWidth = 14): Uint8Array {
  const frame = new Uint8Array(FRAME.width * FRAME.height * 3);
  for (let y = 0; y < FRAME.height; y += 1) {
    for (let x = 0; x < FRAME.width; x += 1) {
      const inBlock = left !== undefined && x >= left && x < left + blockWidth && y >= 18 && y < 54;
      frame.set(inBlock ? SKIN : GREY, (y * FRAME.width + x) * 3);
    }
  }
  return frame;
}

/** A sample whose salience is all in a block of columns, smartcrop's best window centred on it. */
function sampleAt(centre: number, spread = 6): SubjectSample {
  const profile = Array.from({ length: FRAME.width }, (_, x) => (Math.abs(x - centre) <= spread ? 10 : 0));
  const bestStart = Math.max(0, Math.min(TRAVEL, centre - WINDOW_LENGTH / 2));
  return { bestStart, profile, meanSalience: 0.1 };
}

/** A sample of a plain, evenly busy frame: a slide, grain. */
const flatSample = (): SubjectSample => ({
  bestStart: 40,
  profile: new Array<number>(FRAME.width).fill(1),
  meanSalience: 0.1,
});

const request = (samples: SubjectSample[], mode: 'auto' | 'subject' = 'auto') => ({
  samples,
  samplesPerSecond: 2,
  windowLength: WINDOW_LENGTH,
  frameLength: FRAME.width,
  durationSeconds: samples.length / 2,
  shotStarts: [] as number[],
  mode,
});

/** The largest move between consecutive positions, in sample pixels. */
const largestStep = (positions: readonly number[]) =>
  Math.max(0, ...positions.slice(1).map((position, index) => Math.abs(position - positions[index]!) * TRAVEL));

const MAX_STEP = (MAX_PAN_SPEED * FRAME.width) / PATH_FRAME_RATE;

describe('the subject path', () => {
  it('holds still while the subject stands still', () => {
    const path = planSubjectPath(request(Array.from({ length: 20 }, () => sampleAt(90))));
    expect(path.framing).toBe('subject');
    if (path.framing !== 'subject') return;
    expect(new Set(path.positions).size).toBe(1);
    expect(path.positions[0]! * TRAVEL).toBeCloseTo(90 - WINDOW_LENGTH / 2, 5);
  });

  it('ignores small drifts around the centre, and follows the subject once it walks away', () => {
    const drifting = Array.from({ length: 20 }, (_, index) => sampleAt(60 + (index % 2 === 0 ? 2 : -2)));
    const still = planSubjectPath(request(drifting));
    expect(still.framing === 'subject' && new Set(still.positions).size).toBe(1);

    const walking = Array.from({ length: 30 }, (_, index) => sampleAt(25 + index * 3));
    const path = planSubjectPath(request(walking));
    expect(path.framing).toBe('subject');
    if (path.framing !== 'subject') return;
    const last = path.positions.at(-1)! * TRAVEL + WINDOW_LENGTH / 2;
    expect(Math.abs(last - (25 + 29 * 3))).toBeLessThan(0.15 * WINDOW_LENGTH + 1);
  });

  it('gives one position per frame of the clip at the frame-rate cap', () => {
    const path = planSubjectPath({ ...request([sampleAt(64), sampleAt(64)]), durationSeconds: 3.5 });
    expect(path.framing === 'subject' && path.positions.length).toBe(3.5 * PATH_FRAME_RATE);
  });

  it('ignores a subject seen in one sample only', () => {
    const samples = Array.from({ length: 30 }, (_, index) => sampleAt(index === 6 ? 110 : 30));
    const path = planSubjectPath(request(samples));
    expect(path.framing === 'subject' && new Set(path.positions).size).toBe(1);
  });

  it('fits the clip under auto when no window holds one subject, and follows anyway when asked', () => {
    const flat = Array.from({ length: 10 }, flatSample);
    expect(planSubjectPath(request(flat)).framing).toBe('fit');
    expect(planSubjectPath(request(flat, 'subject')).framing).toBe('subject');
    const twoApart = Array.from({ length: 10 }, () => {
      const profile = Array.from({ length: FRAME.width }, (_, x) => (x < 10 || x > 117 ? 10 : 0));
      return { bestStart: 0, profile, meanSalience: 0.1 };
    });
    expect(planSubjectPath(request(twoApart)).framing).toBe('fit');
    const plain = Array.from({ length: 10 }, () => ({ ...sampleAt(64), meanSalience: 0.001 }));
    expect(planSubjectPath(request(plain)).framing).toBe('fit');
  });

  it('frames each shot on its own: the window is placed on the new subject at a cut, and pans within a shot only', () => {
    const samples = Array.from({ length: 20 }, (_, index) => sampleAt(index < 10 ? 25 : 105));
    const path = planSubjectPath({ ...request(samples), shotStarts: [5] });
    expect(path.framing).toBe('subject');
    const positions = path.framing === 'subject' ? path.positions.map((position) => position * TRAVEL) : [];
    const cutFrame = 5 * PATH_FRAME_RATE;
    expect(new Set(positions.slice(0, cutFrame)).size).toBe(1);
    expect(new Set(positions.slice(cutFrame)).size).toBe(1);
    expect(positions[cutFrame - 1]).toBeCloseTo(25 - WINDOW_LENGTH / 2, 5);
    expect(positions[cutFrame]).toBeCloseTo(105 - WINDOW_LENGTH / 2, 5);

    const panned = planSubjectPath(request(samples));
    const panning = panned.framing === 'subject' ? panned.positions : [];
    expect(largestStep(panning)).toBeLessThanOrEqual(MAX_STEP + 1e-9);
  });

  it('fits the clip when nothing was sampled', () => {
    expect(planSubjectPath(request([])).framing).toBe('fit');
  });

  it('stays in the frame and never moves faster than the pan speed, whatever the subject does', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.integer({ min: 0, max: FRAME.width - 1 }).map((centre) => sampleAt(centre)),
            fc.constant(flatSample()),
          ),
          {
            minLength: 1,
            maxLength: 60,
          },
        ),
        fc.constantFrom<'auto' | 'subject'>('auto', 'subject'),
        fc.uniqueArray(fc.integer({ min: 1, max: 59 }), { maxLength: 3 }),
        (samples, mode, cutSamples) => {
          const shotStarts = cutSamples.sort((a, b) => a - b).map((sample) => sample / 2 + 0.1);
          const path = planSubjectPath({ ...request(samples, mode), shotStarts });
          const positions = path.framing === 'subject' ? path.positions : [];
          // Only auto may fit; a path stays in the frame, and within the pan speed inside each shot.
          expect(path.framing === 'fit' ? mode : 'followed').not.toBe('subject');
          expect(positions.filter((position) => position < 0 || position > 1)).toEqual([]);
          const cutFrames = shotStarts.map((start) => Math.round(start * PATH_FRAME_RATE));
          const shots = [0, ...cutFrames, positions.length].map((frame, index, frames) =>
            positions.slice(frame, frames[index + 1]),
          );
          expect(Math.max(...shots.map(largestStep))).toBeLessThanOrEqual(MAX_STEP + 1e-9);
        },
      ),
    );
  });
});

describe('finding the subject with smartcrop', () => {
  it('puts the best window on the skin-toned block, wherever it stands', async () => {
    const lefts = [4, 40, 70, 110];
    const rgb = new Uint8Array(lefts.flatMap((left) => [...frameWithSubject(left)]));
    const samples = await findSubjects({ rgb, ...FRAME }, { axis: 'x', width: WINDOW_LENGTH, height: FRAME.height });
    expect(samples).toHaveLength(lefts.length);
    samples.forEach((sample, index) => {
      const blockCentre = lefts[index]! + 7;
      expect(sample.bestStart).toBeLessThanOrEqual(blockCentre - 7);
      expect(sample.bestStart + WINDOW_LENGTH).toBeGreaterThanOrEqual(blockCentre + 7);
      const inBlock = sample.profile.slice(lefts[index]!, lefts[index]! + 14).reduce((a, b) => a + b, 0);
      expect(inBlock / sample.profile.reduce((a, b) => a + b, 0)).toBeGreaterThan(0.8);
    });
  });

  it('looks along the height of a portrait frame cut to a landscape window', async () => {
    const [width, height] = [FRAME.height, FRAME.width];
    const tops = [6, 90];
    const rgb = new Uint8Array(
      tops.flatMap((top) =>
        Array.from({ length: width * height }, (_, pixel) => {
          const [x, y] = [pixel % width, Math.floor(pixel / width)];
          return [...(y >= top && y < top + 24 && x >= 24 && x < 48 ? SKIN : GREY)];
        }).flat(),
      ),
    );
    const samples = await findSubjects({ rgb, width, height }, { axis: 'y', width, height: WINDOW_LENGTH });
    samples.forEach((sample, index) => {
      expect(sample.profile).toHaveLength(height);
      expect(sample.bestStart).toBeLessThanOrEqual(tops[index]!);
      expect(sample.bestStart + WINDOW_LENGTH).toBeGreaterThanOrEqual(tops[index]! + 24);
    });
  });

  it('finds next to no salience in a plain grey frame', async () => {
    const [sample] = await findSubjects(
      { rgb: frameWithSubject(undefined), ...FRAME },
      { axis: 'x', width: WINDOW_LENGTH, height: FRAME.height },
    );
    expect(sample!.meanSalience).toBeLessThan(0.02);
  });
});

describe('the crop window', () => {
  it('slides along the width of a landscape source, and along the height of a portrait one', () => {
    expect(subjectCropWindow('9:16', { width: 1280, height: 720 })).toEqual({
      axis: 'x',
      width: 404,
      height: 720,
      travel: 876,
    });
    expect(subjectCropWindow('1:1', { width: 1920, height: 1080 })).toEqual({
      axis: 'x',
      width: 1080,
      height: 1080,
      travel: 840,
    });
    expect(subjectCropWindow('16:9', { width: 720, height: 1280 })).toEqual({
      axis: 'y',
      width: 720,
      height: 404,
      travel: 876,
    });
  });

  it('is not needed for a source of the target shape, nor sampled for a job that fits', () => {
    expect(subjectCropWindow('16:9', { width: 1920, height: 1080 })).toBeNull();
    const landscape = { width: 1920, height: 1080 };
    expect(subjectFramesToSample({ framing: 'fit', aspect_ratio: '9:16' }, landscape)).toBeUndefined();
    expect(subjectFramesToSample({ framing: 'auto', aspect_ratio: '16:9' }, landscape)).toBeUndefined();
    expect(subjectFramesToSample({ framing: 'auto', aspect_ratio: '9:16' }, landscape)).toEqual({
      width: 128,
      height: 72,
    });
    expect(subjectSampleSize({ width: 1080, height: 1920 })).toEqual({ width: 72, height: 128 });
  });

  it('is moved by sendcmd commands at the times its even offset changes', () => {
    const window = subjectCropWindow('9:16', { width: 1280, height: 720 })!;
    expect(cropCommands(window, [0, 0, 0.5, 0.5, 1])).toBe(
      ['0.000 crop x 0;', '0.067 crop x 438;', '0.133 crop x 876;'].join('\n') + '\n',
    );
    expect(subjectFramingFilterGraph('9:16', window, '/tmp/a:b/path.txt', 'null')).toBe(
      '[0:v]null,sendcmd=f=/tmp/a\\\\:b/path.txt,crop=w=404:h=720:x=0:y=0,scale=720:1280,setsar=1,format=yuv420p[v]',
    );
  });
});

describe("a clip's subject crop", () => {
  const s3 = mockClient(S3Client);
  afterEach(() => s3.reset());
  const frameBytes = FRAME.width * FRAME.height * 3;

  /**
   * Answers each ranged read, once `held` settles, with frames whose subject starts at
   * `subjectLeftIn(key)`, at most `framesIn(key)` of them.
   */
  function storeFrames(
    subjectLeftIn: (key: string) => number,
    framesIn: (key: string) => number = () => Infinity,
    held: Promise<void> = Promise.resolve(),
  ) {
    s3.on(GetObjectCommand).callsFake(async (input: { Key: string; Range: string }) => {
      await held;
      const [first, last] = /bytes=(\d+)-(\d+)/.exec(input.Range)!.slice(1).map(Number);
      const frames = Math.min((last! + 1 - first!) / frameBytes, framesIn(input.Key));
      const frame = [...frameWithSubject(subjectLeftIn(input.Key))];
      const bytes = new Uint8Array(Array.from({ length: frames }, () => frame).flat());
      return { Body: { transformToByteArray: async () => bytes } };
    });
  }

  /** The crop of 298–303 s, across the seam of two analysis segments of 300 s. */
  const cropAcrossSegments = () =>
    clipSubjectCrop({
      framing: 'auto',
      aspectRatio: '9:16',
      source: { width: 1280, height: 720 },
      frameSize: FRAME,
      segments: [
        { startSeconds: 0, endSeconds: 300 },
        { startSeconds: 300, endSeconds: 600 },
      ],
      clip: { startSeconds: 298, endSeconds: 303 },
      sceneCuts: [],
      objectKeyOf: (index) => `work/frames-${index}.rgb`,
    });

  const centreOf = (crop: Awaited<ReturnType<typeof clipSubjectCrop>>, position: number) =>
    (position * crop!.window.travel + crop!.window.width / 2) / 10;

  it('reads only the sampled frames of the clip, from each analysis segment it spans, and follows the subject in them', async () => {
    storeFrames(() => 90);
    const crop = await cropAcrossSegments();
    expect(s3.commandCalls(GetObjectCommand).map((call) => [call.args[0].input.Key, call.args[0].input.Range])).toEqual(
      [
        ['work/frames-0.rgb', `bytes=${596 * frameBytes}-${600 * frameBytes - 1}`],
        ['work/frames-1.rgb', `bytes=0-${6 * frameBytes - 1}`],
      ],
    );
    expect(crop?.window).toEqual(subjectCropWindow('9:16', { width: 1280, height: 720 }));
    expect(crop?.positions).toHaveLength(5 * PATH_FRAME_RATE);
    expect(Math.abs(centreOf(crop, crop!.positions[0]!) - 97)).toBeLessThan(4);
  });

  it('reads the segments side by side, and keeps no frame after a segment whose source ended early', async () => {
    const reads = deferred();
    const inFirstSegment = (key: string) => key.endsWith('-0.rgb');
    storeFrames(
      (key) => (inFirstSegment(key) ? 90 : 10),
      (key) => (inFirstSegment(key) ? 2 : Infinity),
      reads.promise,
    );

    const cropping = cropAcrossSegments();
    await new Promise(setImmediate);
    expect(s3.commandCalls(GetObjectCommand)).toHaveLength(2);
    reads.resolve();
    const crop = await cropping;

    expect(crop?.positions.length).toBeGreaterThan(0);
    for (const position of crop!.positions) expect(Math.abs(centreOf(crop, position) - 97)).toBeLessThan(4);
  });
});
