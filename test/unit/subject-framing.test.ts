import fc from 'fast-check';
import { cropCommands, stackedFramingFilterGraph, subjectFramingFilterGraph } from '#domain/framing/framing';
import type { Detection, PeopleInFrame } from '#domain/framing/people-detection';
import { planClipFraming, type FramingPlan, type FramingRequest } from '#domain/framing/people-framing';
import { MAX_PAN_SPEED, PATH_FRAME_RATE, planWindowPath, type MovingCrop } from '#domain/framing/subject-path';
import { subjectCropWindow, subjectSampleSize } from '#domain/framing/subject-window';
import { clipFraming, subjectFramesToSample, type SegmentPeople } from '#domain/split-jobs/subject-frames';
import { deferred } from './support/deferred';

const SOURCE = { width: 1280, height: 720 };
/** The widest 9:16 window of a 1280x720 source. */
const WINDOW = 404;
const TRAVEL = SOURCE.width - WINDOW;

/** A face of a presenter filmed from the waist up (a sixth of the height), centred at `centreX` (a share of the width). */
function face(centreX: number, score = 0.9, top = 0.35): Detection {
  const width = 0.07;
  return { x: centreX - width / 2, y: top, width, height: 0.16, score };
}

const people = (...faces: Detection[]): PeopleInFrame => ({ faces, bodies: [] });
const nobody = (): PeopleInFrame => ({ faces: [], bodies: [] });

function framing(samples: PeopleInFrame[], options: Partial<FramingRequest> = {}): FramingPlan {
  return planClipFraming({
    mode: 'auto',
    aspectRatio: '9:16',
    source: SOURCE,
    samples,
    samplesPerSecond: 1,
    durationSeconds: samples.length,
    shotStarts: [],
    ...options,
  });
}

/** The plan's crop, where it follows someone; a test of another framing fails here. */
function followed(plan: FramingPlan): MovingCrop {
  if (plan.framing !== 'subject') throw new Error(`framed ${plan.framing}: ${plan.reason}`);
  return plan.crop;
}

/** Where the crop stands at `frame`, in source pixels: left, top, right, bottom. */
function cropAt(crop: MovingCrop, frame: number) {
  const left = crop.xs[frame]! * crop.travelX;
  const top = crop.ys[frame]! * crop.travelY;
  return { left, top, right: left + crop.width, bottom: top + crop.height };
}

/** Whether the face's head and shoulders (3 face widths across, hair above, chest below) are inside the crop at `frame`. */
function keepsHeadAndShoulders(crop: MovingCrop, frame: number, detection: Detection): boolean {
  const at = cropAt(crop, frame);
  const centre = (detection.x + detection.width / 2) * SOURCE.width;
  const halfShoulders = 1.5 * detection.width * SOURCE.width;
  const top = (detection.y - 0.35 * detection.height) * SOURCE.height;
  const chin = (detection.y + detection.height) * SOURCE.height;
  return at.left <= centre - halfShoulders && at.right >= centre + halfShoulders && at.top <= top && at.bottom >= chin;
}

const largestStep = (positions: readonly number[], travel: number) =>
  Math.max(0, ...positions.slice(1).map((position, index) => Math.abs(position - positions[index]!) * travel));

describe('the window path', () => {
  const path = (aims: (number | undefined)[], shotStarts: number[] = []) =>
    planWindowPath({
      aims,
      samplesPerSecond: 1,
      windowLength: WINDOW,
      frameLength: SOURCE.width,
      durationSeconds: aims.length,
      shotStarts,
    }).map((share) => share * TRAVEL);

  it('holds still while the aim stays put, and gives one position per frame at the frame-rate cap', () => {
    const positions = path(Array.from({ length: 6 }, () => 300));
    expect(positions).toHaveLength(6 * PATH_FRAME_RATE);
    expect(new Set(positions)).toEqual(new Set([300]));
  });

  it('ignores small drifts, follows a walk, and ignores an aim seen in one sample only', () => {
    expect(new Set(path([300, 330, 290, 320, 300, 310]))).toEqual(new Set([300]));
    const walked = path([100, 100, 100, 600, 600, 600, 600, 600]);
    expect(walked[0]).toBeCloseTo(100, 5);
    expect(walked.at(-1)).toBeCloseTo(600, 5);
    expect(new Set(path([300, 300, 800, 300, 300]))).toEqual(new Set([300]));
  });

  it('keeps the nearest aim before the first and after the last, and goes straight between two across a gap', () => {
    expect(new Set(path([undefined, 500, 500, undefined, undefined, undefined]))).toEqual(new Set([500]));
    const across = path([200, 200, undefined, undefined, undefined, 600, 600, 600]);
    // Without the gap's straight line the window would hold at 200 until the aim came back.
    expect(across[3 * PATH_FRAME_RATE]).toBeGreaterThan(300);
    expect(across[3 * PATH_FRAME_RATE]).toBeLessThan(500);
  });

  it('places the window at once at a scene cut, and pans within a shot only', () => {
    const aims = Array.from({ length: 10 }, (_, index) => (index < 5 ? 100 : 700));
    const cut = path(aims, [5]);
    const cutFrame = 5 * PATH_FRAME_RATE;
    expect(new Set(cut.slice(0, cutFrame))).toEqual(new Set([100]));
    expect(new Set(cut.slice(cutFrame))).toEqual(new Set([700]));
    const panned = path(aims);
    expect(largestStep(panned, 1)).toBeLessThanOrEqual((MAX_PAN_SPEED * SOURCE.width) / PATH_FRAME_RATE + 1e-9);
  });

  it('stays in the frame and never moves faster than the pan speed inside a shot, whatever it is aimed at', () => {
    fc.assert(
      fc.property(
        fc.array(fc.option(fc.integer({ min: -400, max: 1600 }), { nil: undefined }), { minLength: 1, maxLength: 40 }),
        fc.uniqueArray(fc.integer({ min: 1, max: 39 }), { maxLength: 3 }),
        (aims, cutSamples) => {
          const shotStarts = cutSamples.sort((a, b) => a - b).map((sample) => sample + 0.1);
          const positions = path(aims, shotStarts);
          expect(positions.filter((position) => position < -1e-9 || position > TRAVEL + 1e-9)).toEqual([]);
          const cutFrames = shotStarts.map((start) => Math.round(start * PATH_FRAME_RATE));
          const shots = [0, ...cutFrames, positions.length].map((frame, index, frames) =>
            positions.slice(frame, frames[index + 1]),
          );
          const maxStep = (MAX_PAN_SPEED * SOURCE.width) / PATH_FRAME_RATE;
          expect(Math.max(...shots.map((shot) => largestStep(shot, 1)))).toBeLessThanOrEqual(maxStep + 1e-9);
        },
      ),
    );
  });
});

describe('framing by people', () => {
  it('follows one presenter drifting beside a whiteboard, head and shoulders whole, eyes near the upper third', () => {
    const centres = Array.from({ length: 20 }, (_, index) => 0.72 + 0.06 * Math.sin((2 * Math.PI * index) / 10));
    const plan = framing(centres.map((centre) => people(face(centre), face(0.2, 0.4))));
    expect(plan.framing).toBe('subject');
    if (plan.framing !== 'subject') return;
    expect(plan.reason).toBe('One person in 100% of the clip: the frame follows them.');
    centres.forEach((centre, second) => {
      expect(keepsHeadAndShoulders(plan.crop, second * PATH_FRAME_RATE, face(centre))).toBe(true);
    });
    const eyes = (0.35 + 0.3 * 0.16) * SOURCE.height;
    const at = cropAt(plan.crop, 0);
    expect((eyes - at.top) / plan.crop.height).toBeGreaterThan(0.25);
    expect((eyes - at.top) / plan.crop.height).toBeLessThan(0.4);
  });

  it('frames a small, distant head closer, but never enlarges the picture past the limit', () => {
    const small = { ...face(0.5), width: 0.03, height: 0.06, y: 0.2 };
    const plan = framing(Array.from({ length: 10 }, () => people(small)));
    if (plan.framing !== 'subject') throw new Error(`framed ${plan.framing}`);
    expect(plan.crop.height).toBeLessThan(SOURCE.height);
    expect(plan.crop.height).toBeGreaterThanOrEqual(0.65 * SOURCE.height - 2);
    expect(plan.crop.width / plan.crop.height).toBeCloseTo(9 / 16, 1);
  });

  it('holds a person who turns away for a few seconds, and follows a body where the face is not seen', () => {
    const samples = Array.from({ length: 20 }, (_, second) =>
      second >= 8 && second < 12 ? nobody() : people(face(0.75)),
    );
    const held = framing(samples);
    if (held.framing !== 'subject') throw new Error(`framed ${held.framing}`);
    for (let second = 0; second < 20; second += 1) {
      expect(keepsHeadAndShoulders(held.crop, second * PATH_FRAME_RATE, face(0.75))).toBe(true);
    }
    const fromBehind = framing(
      Array.from({ length: 10 }, () => ({
        faces: [],
        bodies: [{ x: 0.15, y: 0.3, width: 0.2, height: 0.7, score: 0.6 }],
      })),
    );
    const at = cropAt(followed(fromBehind), 0);
    expect(at.left).toBeLessThanOrEqual(0.15 * SOURCE.width + 1);
    expect(at.right).toBeGreaterThanOrEqual(0.35 * SOURCE.width - 1);
  });

  it('stacks two people far apart, the left one on top, and holds two side by side in one window', () => {
    const interview = framing(Array.from({ length: 12 }, () => people(face(0.85), face(0.12))));
    expect(interview.framing).toBe('stacked');
    if (interview.framing !== 'stacked') return;
    expect(interview.reason).toBe(
      'Two people far apart in 100% of the clip: one in each half of the frame, the left one on top.',
    );
    const [upper, lower] = interview.crops.map((crop) => cropAt(crop, 0));
    expect(upper!.left).toBeLessThan(0.12 * SOURCE.width);
    expect(upper!.right).toBeGreaterThan(0.12 * SOURCE.width);
    expect(lower!.left).toBeLessThan(0.85 * SOURCE.width);
    expect(lower!.right).toBeGreaterThan(0.85 * SOURCE.width);
    expect(interview.crops[0].width / interview.crops[0].height).toBeCloseTo(720 / 640, 1);

    const sideBySide = framing(Array.from({ length: 12 }, () => people(face(0.47), face(0.53))));
    expect(sideBySide.reason).toBe('Two people side by side in 100% of the clip: the frame holds both.');
    expect(keepsHeadAndShoulders(followed(sideBySide), 0, face(0.47))).toBe(true);
    expect(keepsHeadAndShoulders(followed(sideBySide), 0, face(0.53))).toBe(true);
  });

  it('fits slides, text a face detector half-believes, a person seen in a third of the clip, and a crowd', () => {
    expect(framing(Array.from({ length: 10 }, nobody))).toEqual({
      framing: 'fit',
      reason: 'No person in the clip (a slide, a screen or a wide shot): the whole picture is shown.',
    });
    expect(framing(Array.from({ length: 10 }, () => people(face(0.2, 0.4), face(0.3, 0.35)))).framing).toBe('fit');
    const briefly = Array.from({ length: 15 }, (_, second) => (second < 5 ? people(face(0.5)) : nobody()));
    expect(framing(briefly).reason).toBe(
      'A person in only 33% of the clip (slides, a screen or a wide shot the rest): the whole picture is shown.',
    );
    expect(framing(briefly, { mode: 'subject' }).framing).toBe('subject');
    const panel = Array.from({ length: 10 }, () => people(face(0.1), face(0.5), face(0.9)));
    expect(framing(panel).reason).toBe('3 people across the picture in 100% of the clip: the whole picture is shown.');
  });

  it('follows the most present person when subject framing is asked for, even between two far apart', () => {
    const samples = Array.from({ length: 10 }, (_, second) => people(face(0.85), ...(second < 7 ? [face(0.12)] : [])));
    const plan = framing(samples, { mode: 'subject' });
    if (plan.framing !== 'subject') throw new Error(`framed ${plan.framing}`);
    expect(keepsHeadAndShoulders(plan.crop, 0, face(0.85))).toBe(true);
  });

  it('does not crop a source of the target shape, and stacks only where the halves are wide', () => {
    expect(framing([people(face(0.5))], { aspectRatio: '16:9' })).toEqual({
      framing: 'fit',
      reason: "The source already has the clip's shape.",
    });
    const portrait = framing(
      Array.from({ length: 6 }, () => people({ ...face(0.2), width: 0.1 }, { ...face(0.8), width: 0.1 })),
      { aspectRatio: '16:9', source: { width: 720, height: 1280 } },
    );
    expect(portrait.framing).not.toBe('stacked');
  });

  it('frames every clip within the source and within the pan speed, whoever is in it', () => {
    const detection = fc.record({
      x: fc.double({ min: -0.1, max: 1, noNaN: true }),
      y: fc.double({ min: -0.1, max: 0.9, noNaN: true }),
      width: fc.double({ min: 0.01, max: 0.5, noNaN: true }),
      height: fc.double({ min: 0.01, max: 0.6, noNaN: true }),
      score: fc.double({ min: 0, max: 1, noNaN: true }),
    });
    const frame = fc.record({
      faces: fc.array(detection, { maxLength: 4 }),
      bodies: fc.array(detection, { maxLength: 1 }),
    });
    fc.assert(
      fc.property(
        fc.array(frame, { minLength: 1, maxLength: 30 }),
        fc.constantFrom<FramingRequest['mode']>('auto', 'subject', 'stacked'),
        fc.constantFrom<FramingRequest['aspectRatio']>('9:16', '1:1'),
        (samples, mode, aspectRatio) => {
          const plan = framing(samples, { mode, aspectRatio });
          expect(plan.reason.length).toBeGreaterThan(10);
          const crops = plan.framing === 'subject' ? [plan.crop] : plan.framing === 'stacked' ? plan.crops : [];
          for (const crop of crops) {
            expect(crop.width).toBeLessThanOrEqual(SOURCE.width);
            expect(crop.height).toBeLessThanOrEqual(SOURCE.height);
            expect([...crop.xs, ...crop.ys].filter((share) => share < 0 || share > 1)).toEqual([]);
            const maxStep = (MAX_PAN_SPEED * SOURCE.width) / PATH_FRAME_RATE;
            expect(largestStep(crop.xs, crop.travelX)).toBeLessThanOrEqual(maxStep + 1e-6);
          }
        },
      ),
    );
  });
});

describe('the crop window and its commands', () => {
  it('slides along the width of a landscape source, and along the height of a portrait one', () => {
    expect(subjectCropWindow('9:16', SOURCE)).toEqual({ axis: 'x', width: 404, height: 720 });
    expect(subjectCropWindow('1:1', { width: 1920, height: 1080 })).toEqual({ axis: 'x', width: 1080, height: 1080 });
    expect(subjectCropWindow('16:9', { width: 720, height: 1280 })).toEqual({ axis: 'y', width: 720, height: 404 });
  });

  it('is not needed for a source of the target shape, nor sampled for a job that fits', () => {
    expect(subjectCropWindow('16:9', { width: 1920, height: 1080 })).toBeNull();
    const landscape = { width: 1920, height: 1080 };
    expect(subjectFramesToSample({ framing: 'fit', aspect_ratio: '9:16' }, landscape)).toBeUndefined();
    expect(subjectFramesToSample({ framing: 'auto', aspect_ratio: '16:9' }, landscape)).toBeUndefined();
    expect(subjectFramesToSample({ framing: 'stacked', aspect_ratio: '9:16' }, landscape)).toEqual({
      width: 256,
      height: 144,
    });
    expect(subjectSampleSize({ width: 1080, height: 1920 })).toEqual({ width: 144, height: 256 });
  });

  it('moves each named crop by sendcmd commands at the times its even offsets change', () => {
    const crop: MovingCrop = {
      width: 316,
      height: 562,
      travelX: 964,
      travelY: 158,
      xs: [0, 0, 0.5, 0.5, 1],
      ys: [1, 1, 1, 0, 0],
    };
    expect(cropCommands('subject', crop)).toBe(
      [
        '0.000 crop@subject x 0;',
        '0.000 crop@subject y 158;',
        '0.067 crop@subject x 482;',
        '0.100 crop@subject y 0;',
        '0.133 crop@subject x 964;',
      ].join('\n') + '\n',
    );
    expect(subjectFramingFilterGraph('9:16', crop, '/tmp/a:b/path.txt', 'null')).toBe(
      '[0:v]null,sendcmd=f=/tmp/a\\\\:b/path.txt,crop@subject=w=316:h=562:x=0:y=0,scale=720:1280,setsar=1,format=yuv420p[v]',
    );
    expect(stackedFramingFilterGraph('9:16', [crop, crop], ['/a.txt', '/b.txt'], 'null')).toBe(
      [
        '[0:v]null,split=2[first][second]',
        '[first]sendcmd=f=/a.txt,crop@upper=w=316:h=562:x=0:y=0,scale=720:640,setsar=1[upper]',
        '[second]sendcmd=f=/b.txt,crop@lower=w=316:h=562:x=0:y=0,scale=720:640,setsar=1[lower]',
        '[upper][lower]vstack=inputs=2,format=yuv420p[v]',
      ].join(';'),
    );
  });
});

describe("a clip's framing from the people its segments found", () => {
  const stored = (centre: number): SegmentPeople['frames'][number] => {
    const { x, y, width, height, score } = face(centre);
    return { faces: [[x, y, width, height, score]], bodies: [] };
  };

  /** The framing of 298–303 s, across the seam of two analysis segments of 300 s. */
  const framingAcrossSegments = (peopleOf: (index: number) => Promise<SegmentPeople>) =>
    clipFraming({
      framing: 'auto',
      aspectRatio: '9:16',
      source: SOURCE,
      segments: [
        { startSeconds: 0, endSeconds: 300 },
        { startSeconds: 300, endSeconds: 600 },
      ],
      clip: { startSeconds: 298, endSeconds: 303 },
      sceneCuts: [],
      peopleOf,
    });

  it('reads the people of each segment the clip spans, side by side, and frames the clip by them', async () => {
    const reads = deferred();
    const asked: number[] = [];
    const framed = framingAcrossSegments(async (index) => {
      asked.push(index);
      await reads.promise;
      return { frames: Array.from({ length: 300 }, () => stored(0.7)) };
    });
    await new Promise(setImmediate);
    expect(asked).toEqual([0, 1]);
    reads.resolve();
    const plan = await framed;
    if (plan.framing !== 'subject') throw new Error(`framed ${plan.framing}`);
    expect(plan.crop.xs).toHaveLength(5 * PATH_FRAME_RATE);
    expect(keepsHeadAndShoulders(plan.crop, 0, face(0.7))).toBe(true);
  });

  it('keeps no sample after a segment whose source ended early', async () => {
    const plan = await framingAcrossSegments(async (index) => ({
      frames: Array.from({ length: index === 0 ? 299 : 300 }, () => stored(index === 0 ? 0.2 : 0.8)),
    }));
    if (plan.framing !== 'subject') throw new Error(`framed ${plan.framing}`);
    expect(keepsHeadAndShoulders(plan.crop, 0, face(0.2))).toBe(true);
  });

  it('fits without reading anything when the job asked for it', async () => {
    const plan = await clipFraming({
      framing: 'fit',
      aspectRatio: '9:16',
      source: SOURCE,
      segments: [{ startSeconds: 0, endSeconds: 300 }],
      clip: { startSeconds: 0, endSeconds: 5 },
      sceneCuts: [],
      peopleOf: () => Promise.reject(new Error('read')),
    });
    expect(plan).toEqual({ framing: 'fit', reason: 'The whole picture is shown, as the job asked.' });
  });
});
