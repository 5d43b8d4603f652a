import { S3ServiceException } from '@aws-sdk/client-s3';
import {
  describeCaughtFailure,
  isTransient,
  retryableOnTransientFailure,
  TransientFailure,
} from '#platform/task-failures';

const serviceError = (name: string, status: number) =>
  new S3ServiceException({ name, $fault: status >= 500 ? 'server' : 'client', $metadata: { httpStatusCode: status } });

const networkError = (code: string) => Object.assign(new Error(`connect ${code}`), { code });

describe('transient failures', () => {
  it('are timeouts, busy or failing services and broken connections, not refusals', () => {
    expect(
      [
        serviceError('InternalError', 500),
        serviceError('SlowDown', 503),
        serviceError('Whatever', 502),
        Object.assign(new Error('socket hang up'), { name: 'TimeoutError' }),
        networkError('ECONNRESET'),
        networkError('EPIPE'),
      ].map(isTransient),
    ).toEqual([true, true, true, true, true, true]);
    expect(
      [
        serviceError('AccessDenied', 403),
        serviceError('NoSuchBucket', 404),
        serviceError('EntityTooLarge', 400),
        new Error('plain'),
        'not an error',
      ].map(isTransient),
    ).toEqual([false, false, false, false, false]);
  });

  it('become a TransientFailure naming the work and its cause; other errors pass as they are', async () => {
    const reset = networkError('ECONNRESET');
    const failure = await retryableOnTransientFailure('Storing clip c1', () => Promise.reject(reset)).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(TransientFailure);
    expect(failure).toMatchObject({
      name: 'TransientFailure',
      message: 'Storing clip c1 was interrupted (Error: connect ECONNRESET)',
      cause: reset,
    });

    const refused = serviceError('AccessDenied', 403);
    await expect(retryableOnTransientFailure('Storing clip c1', () => Promise.reject(refused))).rejects.toBe(refused);
    await expect(retryableOnTransientFailure('Storing clip c1', async () => 42)).resolves.toBe(42);
  });
});

describe('a caught failure, described for the log', () => {
  it("reads the error's message out of Lambda's JSON cause", () => {
    const cause = JSON.stringify({
      errorType: 'TransientFailure',
      errorMessage: 'Storing clip c1 was interrupted',
      trace: [],
    });
    expect(describeCaughtFailure({ Error: 'TransientFailure', Cause: cause })).toEqual({
      error: 'TransientFailure',
      error_message: 'Storing clip c1 was interrupted',
    });
  });

  it("keeps a cause that is not Lambda's JSON as the message, cut to 2,000 characters", () => {
    expect(describeCaughtFailure({ Error: 'States.Timeout', Cause: 'x'.repeat(3000) })).toEqual({
      error: 'States.Timeout',
      error_message: 'x'.repeat(2000),
    });
    expect(describeCaughtFailure({ Error: 'States.Timeout' })).toEqual({ error: 'States.Timeout' });
    expect(describeCaughtFailure(undefined)).toEqual({ error: 'unknown' });
  });
});
