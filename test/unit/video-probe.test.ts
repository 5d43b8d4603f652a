import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import ffmpeg from '@ffmpeg-installer/ffmpeg';
import { probeVideo, verdictFromFfprobe } from '#domain/assets/video-probe';
import { completedJobRefund, failedClipsRefund, splitJobPrice } from '#domain/split-jobs/split-pricing';
import fc from 'fast-check';
import { resolveMediaTool } from '../../local/media-tools';

const h264 = { codec_type: 'video', codec_name: 'h264', width: 1920, height: 1080 };
const aac = { codec_type: 'audio', codec_name: 'aac' };

describe('what ffprobe says about a split source', () => {
  it('reads a video with sound: size, duration to the millisecond, codec', () => {
    expect(verdictFromFfprobe({ streams: [h264, aac], format: { duration: '75.0123456' } })).toEqual({
      kind: 'video',
      probe: { durationSeconds: 75.012, width: 1920, height: 1080, videoCodec: 'h264', hasAudio: true },
    });
  });

  it('reports the displayed size of a video recorded upright', () => {
    const rotated = { ...h264, side_data_list: [{ rotation: -90 }] };
    expect(verdictFromFfprobe({ streams: [rotated], format: { duration: '5' } })).toMatchObject({
      probe: { width: 1080, height: 1920, hasAudio: false },
    });
    const tagged = { ...h264, tags: { rotate: '270' } };
    expect(verdictFromFfprobe({ streams: [tagged], format: { duration: '5' } })).toMatchObject({
      probe: { width: 1080, height: 1920 },
    });
  });

  it('takes the stream duration when the container has none', () => {
    expect(verdictFromFfprobe({ streams: [{ ...h264, duration: '12.5' }], format: {} })).toMatchObject({
      probe: { durationSeconds: 12.5 },
    });
  });

  it('ends where its last stream ends, from the start of the file, over what the container claims', () => {
    const primed = {
      streams: [
        { ...h264, start_time: '0.000000', duration: '20.000000' },
        { ...aac, start_time: '0.000000', duration: '20.000000' },
      ],
      format: { start_time: '0.000000', duration: '20.024000' },
    };
    expect(verdictFromFfprobe(primed)).toMatchObject({ probe: { durationSeconds: 20 } });
    const late = {
      streams: [
        { ...h264, start_time: '1.5', duration: '10' },
        { ...aac, start_time: '1', duration: '10.25' },
      ],
      format: { start_time: '1', duration: '11' },
    };
    expect(verdictFromFfprobe(late)).toMatchObject({ probe: { durationSeconds: 10.5 } });
  });

  it("takes the container's duration when a stream does not say its own, as in Matroska", () => {
    const matroska = {
      streams: [
        { ...h264, start_time: '0.023000', duration: 'N/A' },
        { ...aac, start_time: '0.000000', duration: '20.000000' },
      ],
      format: { start_time: '0.000000', duration: '20.023000' },
    };
    expect(verdictFromFfprobe(matroska)).toMatchObject({ probe: { durationSeconds: 20.023 } });
  });

  it('refuses sound alone, a cover picture, and a video without a duration', () => {
    expect(verdictFromFfprobe({ streams: [aac], format: { duration: '60' } })).toEqual({
      kind: 'not_video',
      reason: 'it has no video stream',
    });
    const cover = {
      codec_type: 'video',
      codec_name: 'mjpeg',
      width: 600,
      height: 600,
      disposition: { attached_pic: 1 },
    };
    expect(verdictFromFfprobe({ streams: [aac, cover], format: { duration: '60' } }).kind).toBe('not_video');
    expect(verdictFromFfprobe({ streams: [h264], format: { duration: 'N/A' } })).toEqual({
      kind: 'not_video',
      reason: 'its duration cannot be read',
    });
  });
});

describe('probing a real file', () => {
  let directory: string;

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'video-probe-test-'));
  });

  afterAll(async () => {
    if (directory) await rm(directory, { recursive: true, force: true });
  });

  it('gives an MP4 whose movie header counts the AAC priming the length it plays, whichever ffprobe reads it', async () => {
    // The npm package's ffmpeg 4.1 writes 2.024 s in the header of 2 s of picture and sound.
    const primed = join(directory, 'primed.mp4');
    await promisify(execFile)(ffmpeg.path, [
      ...['-v', 'error', '-f', 'lavfi', '-i', 'testsrc=size=320x180:rate=25:duration=2'],
      ...['-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=44100:duration=2'],
      ...['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', primed],
    ]);
    const verdict = await probeVideo((await resolveMediaTool('ffprobe')).path, primed, 10_000);
    expect(verdict).toMatchObject({ kind: 'video', probe: { durationSeconds: 2, hasAudio: true } });
  });
});

describe('the price of a split job', () => {
  it('is 5 credits per started minute of source', () => {
    expect(splitJobPrice(0.5)).toBe(5);
    expect(splitJobPrice(60)).toBe(5);
    expect(splitJobPrice(60.001)).toBe(10);
    expect(splitJobPrice(600)).toBe(50);
    expect(splitJobPrice(3 * 3600)).toBe(900);
  });

  it("gives back the failed clips' even share, rounded down, never more than was charged", () => {
    expect(failedClipsRefund(50, 2, 5)).toBe(20);
    expect(failedClipsRefund(10, 1, 3)).toBe(3);
    expect(failedClipsRefund(10, 0, 3)).toBe(0);
    const jobs = fc
      .integer({ min: 1, max: 10 })
      .chain((total) =>
        fc.tuple(fc.integer({ min: 0, max: 10_000 }), fc.integer({ min: 0, max: total }), fc.constant(total)),
      );
    fc.assert(
      fc.property(jobs, ([charged, failed, total]) => {
        const refund = failedClipsRefund(charged, failed, total);
        expect(refund).toBeGreaterThanOrEqual(0);
        expect(refund).toBeLessThanOrEqual(charged);
        expect(failed < total || refund === charged).toBe(true);
      }),
    );
  });

  it("gives back the minutes a truncated source does not hold, then the failed clips' share of the rest", () => {
    expect(completedJobRefund(10, undefined, 0, 3)).toBe(0);
    expect(completedJobRefund(10, 4.7, 0, 1)).toBe(5);
    expect(completedJobRefund(10, 4.7, 1, 2)).toBe(7);
    expect(completedJobRefund(10, 90, 0, 2)).toBe(0);
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10_800 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc
          .integer({ min: 1, max: 10 })
          .chain((total) => fc.tuple(fc.integer({ min: 0, max: total }), fc.constant(total))),
        (claimedSeconds, decodedFraction, [failed, total]) => {
          const charged = splitJobPrice(claimedSeconds);
          const decodedSeconds = claimedSeconds * decodedFraction;
          const refund = completedJobRefund(charged, decodedSeconds, failed, total);
          expect(refund).toBeGreaterThanOrEqual(charged - splitJobPrice(decodedSeconds));
          expect(refund).toBeLessThanOrEqual(charged);
          expect(charged - refund).toBeLessThanOrEqual(splitJobPrice(decodedSeconds));
        },
      ),
    );
  });
});
