import { inspect } from 'node:util';
import fc from 'fast-check';
import {
  assertRanToEnd,
  MediaToolError,
  MediaToolTimeout,
  MediaToolUnavailable,
  networkInputOptions,
  runMediaTool,
  type MediaToolRun,
} from '#platform/media-tools';
import { TransientFailure } from '#platform/task-failures';

const URL = 'https://media.s3.us-west-2.amazonaws.com/assets/7/a?X-Amz-Signature=0123456789abcdef';

const run = (overrides: Partial<MediaToolRun>): MediaToolRun => ({
  exitCode: 1,
  stdout: '',
  stderrTail: '',
  timedOut: false,
  readInterrupted: false,
  ...overrides,
});

describe('a media tool that cannot be started', () => {
  it('rejects with MediaToolUnavailable, which carries none of the arguments however it is logged', async () => {
    const error = await runMediaTool('/opt/bin/no-ffmpeg-here', ['-i', URL, '-f', 'null', '-'], {
      timeoutMs: 5_000,
    }).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(MediaToolUnavailable);
    expect((error as Error).message).toBe('no-ffmpeg-here could not be started (ENOENT)');
    // What Lambda's runtime writes for an uncaught error: every own property, nested causes too.
    expect(inspect(error, { depth: 10, showHidden: true })).not.toContain('X-Amz-Signature');
    expect(JSON.stringify(error, Object.getOwnPropertyNames(error))).not.toContain('X-Amz-Signature');
  });
});

describe('how a run that did not reach its end fails', () => {
  it('is MediaToolTimeout when it ran out of time', () => {
    expect(() => assertRanToEnd(run({ exitCode: null, timedOut: true }), 'Rendering', URL, 10)).toThrow(
      MediaToolTimeout,
    );
  });

  it.each([
    ['S3 answered 5xx', `[error] ${URL}: Server returned 5XX Server Error reply`],
    [
      'it refused the connection',
      '[error] Connection to tcp://media.s3.us-west-2.amazonaws.com:443 failed: Connection refused',
    ],
    ['it reset the connection', `[error] ${URL}: Connection reset by peer`],
  ])('is TransientFailure, without the URL, when the input could not be reached: %s', (_, line) => {
    let failure: unknown;
    try {
      assertRanToEnd(run({ stderrTail: line }), 'Rendering', URL, 10);
    } catch (error) {
      failure = error;
    }
    expect(failure).toBeInstanceOf(TransientFailure);
    expect((failure as Error).message).not.toContain('X-Amz-Signature');
  });

  it('is TransientFailure when its connection dropped and was not regained, whatever it then said', () => {
    const stderrTail = `[error] ${URL}: Invalid data found when processing input`;
    expect(() => assertRanToEnd(run({ stderrTail, readInterrupted: true }), 'Rendering', URL, 10)).toThrow(
      TransientFailure,
    );
  });

  it('is MediaToolError, with the last error line and not the warnings after it, when the input does not decode', () => {
    const stderrTail = [
      '[h264 @ 0x1] [error] Invalid NAL unit size (9137 > 4518).',
      `[error] ${URL}: Invalid data found when processing input`,
      '[warning] Past duration 0.99 too large',
    ].join('\n');
    expect(() => assertRanToEnd(run({ stderrTail }), 'Rendering', URL, 10)).toThrow(
      new MediaToolError(
        'ffmpeg',
        'Rendering failed (exit code 1): <source>: Invalid data found when processing input',
      ),
    );
  });
});

describe('reading an input over the network', () => {
  it('reconnects only for http(s) inputs', () => {
    expect(networkInputOptions(URL)).toEqual([
      '-reconnect',
      '1',
      '-reconnect_streamed',
      '1',
      '-reconnect_delay_max',
      '4',
    ]);
    fc.assert(
      fc.property(fc.stringMatching(/^\/[a-z0-9/._-]{0,40}$/), (path) => {
        expect(networkInputOptions(path)).toEqual([]);
      }),
    );
  });
});

describe('a media tool whose work is no longer wanted', () => {
  it('is killed when its signal is aborted, and the run rejects with the reason', async () => {
    const controller = new AbortController();
    const reason = new Error('its job ended');
    const started = Date.now();
    const running = runMediaTool('/bin/sleep', ['30'], { timeoutMs: 60_000, signal: controller.signal });
    setTimeout(() => controller.abort(reason), 100);

    await expect(running).rejects.toBe(reason);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('is not started when its signal was aborted before', async () => {
    const reason = new Error('its job ended');
    await expect(
      runMediaTool('/no/such/tool', [], { timeoutMs: 1_000, signal: AbortSignal.abort(reason) }),
    ).rejects.toBe(reason);
  });
});
