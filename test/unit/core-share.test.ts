import os from 'node:os';
import { coreShare, ffmpegThreadOptions, sharingCores } from '#platform/media-tools';

/** Runs `count` steps side by side, each reading its share once all have started; resolves their shares. */
async function sharesOf(count: number): Promise<(number | undefined)[]> {
  let started = 0;
  let allStarted: () => void = () => undefined;
  const everyoneIn = new Promise<void>((resolve) => (allStarted = resolve));
  return Promise.all(
    Array.from({ length: count }, () =>
      sharingCores(async () => {
        started += 1;
        if (started === count) allStarted();
        await everyoneIn;
        return coreShare();
      }),
    ),
  );
}

describe('sharing the cores among the media steps of one process', () => {
  beforeEach(() => {
    jest.spyOn(os, 'availableParallelism').mockReturnValue(4);
  });

  afterEach(() => {
    jest.restoreAllMocks();
  });

  it("leaves a step alone (a Lambda invocation's) to ffmpeg's own choice of threads", async () => {
    expect(coreShare()).toBeUndefined();
    expect(await sharesOf(1)).toEqual([undefined]);
  });

  it('gives each of the steps running side by side its share of the cores, at least one', async () => {
    expect(await sharesOf(2)).toEqual([2, 2]);
    expect(await sharesOf(3)).toEqual([1, 1, 1]);
    expect(await sharesOf(5)).toEqual([1, 1, 1, 1, 1]);
  });

  it('counts a step only while it runs, whether it succeeds or throws', async () => {
    await expect(sharingCores(async () => Promise.reject(new Error('render failed')))).rejects.toThrow('render failed');
    const shareInside = await sharingCores(async () => coreShare());
    expect(shareInside).toBeUndefined();
    expect(coreShare()).toBeUndefined();
  });

  it("puts ffmpeg's thread options where they apply, and none without a share", () => {
    expect(ffmpegThreadOptions(undefined)).toEqual({ beforeInput: [], beforeOutput: [] });
    expect(ffmpegThreadOptions(2)).toEqual({
      beforeInput: ['-filter_complex_threads', '2', '-threads', '2'],
      beforeOutput: ['-threads', '2'],
    });
  });
});
