import { verdictFromFfprobe } from '#domain/assets/video-probe';
import { completedJobRefund, failedClipsRefund, splitJobPrice } from '#domain/split-jobs/split-pricing';
import fc from 'fast-check';

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
