import fc from 'fast-check';
import {
  DEFAULT_VIDEO_CREDITS_PER_SECOND,
  videoCreditRates,
  videoCreditRatesIn,
  videoJobPrice,
} from '#domain/video-jobs/video-pricing';

describe('the price of a video job', () => {
  it.each([
    [5, undefined, 10],
    [10, undefined, 20],
    [15, undefined, 30],
    [5, 'asset_1', 15],
    [10, 'asset_1', 30],
    [15, 'asset_1', 45],
  ])('is %i s times the default rate of its mode (source %s): %i credits', (duration, source, price) => {
    expect(
      videoJobPrice({ duration_seconds: duration, source_asset_id: source }, DEFAULT_VIDEO_CREDITS_PER_SECOND),
    ).toBe(price);
  });

  it('follows the rates an operator sets', () => {
    expect(videoJobPrice({ duration_seconds: 10 }, { text_to_video: 12, image_to_video: 15 })).toBe(120);
    expect(
      videoJobPrice({ duration_seconds: 10, source_asset_id: 'asset_1' }, { text_to_video: 12, image_to_video: 15 }),
    ).toBe(150);
  });

  it('accepts only whole credits from 1 to 1,000 for exactly the two modes', () => {
    expect(videoCreditRatesIn({ text_to_video: 12, image_to_video: 15 })).toEqual({
      text_to_video: 12,
      image_to_video: 15,
    });
    fc.assert(
      fc.property(fc.anything(), (value) => {
        const rates = videoCreditRatesIn(value);
        expect(
          rates === undefined ||
            Object.values(rates).every((rate) => Number.isInteger(rate) && rate >= 1 && rate <= 1000),
        ).toBe(true);
      }),
    );
    for (const bad of [
      { text_to_video: 0, image_to_video: 3 },
      { text_to_video: 2.5, image_to_video: 3 },
      { text_to_video: 2 },
      { text_to_video: 2, image_to_video: 3, extra: 1 },
      [2, 3],
      null,
    ]) {
      expect(videoCreditRatesIn(bad)).toBeUndefined();
    }
  });

  it('reads the rates of the VIDEO_CREDITS_PER_SECOND setting, the defaults when it is unset', () => {
    jest.isolateModules(() => {
      const { videoCreditRates: fresh } = jest.requireActual<typeof import('#domain/video-jobs/video-pricing')>(
        '#domain/video-jobs/video-pricing',
      );
      process.env.VIDEO_CREDITS_PER_SECOND = '{"text_to_video":12,"image_to_video":15}';
      try {
        expect(fresh()).toEqual({ text_to_video: 12, image_to_video: 15 });
      } finally {
        delete process.env.VIDEO_CREDITS_PER_SECOND;
      }
    });
    expect(videoCreditRates()).toEqual(DEFAULT_VIDEO_CREDITS_PER_SECOND);
  });
});
