/**
 * Failures between a workflow's steps: which errors a step may try again, and what a Catch hands
 * the next state about the error it caught.
 */

/**
 * Thrown by a step whose work was cut short by a passing condition (a storage call that timed
 * out, a reset connection, a 5xx): the state machine retries the step on this name before it
 * gives up on the item (state-machines/*.asl.json).
 */
export class TransientFailure extends Error {
  constructor(message: string, options?: { cause: unknown }) {
    super(message, options);
    this.name = 'TransientFailure';
  }
}

/** Node's names for a connection that failed on the way, not for a request that was refused. */
const NETWORK_ERROR_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'EAI_AGAIN', 'ENOTFOUND']);
/** The SDK's names for a call that timed out or met a busy service. */
const TRANSIENT_ERROR_NAMES = new Set([
  'TimeoutError',
  'RequestTimeout',
  'RequestTimeoutException',
  'SlowDown',
  'InternalError',
  'ServiceUnavailable',
  'ThrottlingException',
]);

/** Whether an AWS SDK or network error may well not happen again on a second try. */
export function isTransient(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const { $metadata, $retryable, code } = error as Error & {
    $metadata?: { httpStatusCode?: number };
    $retryable?: unknown;
    code?: unknown;
  };
  if ($retryable) return true;
  if (TRANSIENT_ERROR_NAMES.has(error.name)) return true;
  if (typeof code === 'string' && NETWORK_ERROR_CODES.has(code)) return true;
  return ($metadata?.httpStatusCode ?? 0) >= 500;
}

/** Runs `work`, turning a transient failure of it into a TransientFailure that says what `work` was. */
export async function retryableOnTransientFailure<T>(what: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!isTransient(error)) throw error;
    const { name, message } = error as Error;
    throw new TransientFailure(`${what} was interrupted (${name}: ${message})`, { cause: error });
  }
}

/** What a Catch puts in the state (`ResultPath`): the error's name, and Lambda's account of it as JSON. */
export interface CaughtFailure {
  Error?: string;
  Cause?: string;
}

/** The longest error message a log line carries of a caught failure. */
const MAX_MESSAGE_LENGTH = 2000;

/** The caught error's name and message, for a log line (the log layer redacts what must not be seen). */
export function describeCaughtFailure(failure: CaughtFailure | undefined): { error: string; error_message?: string } {
  const error = failure?.Error ?? 'unknown';
  if (failure?.Cause === undefined) return { error };
  let message = failure.Cause;
  try {
    const cause = JSON.parse(failure.Cause) as { errorMessage?: unknown };
    if (typeof cause.errorMessage === 'string') message = cause.errorMessage;
  } catch {
    // Not Lambda's JSON (a state machine error such as States.Timeout): the cause is the message.
  }
  return { error, error_message: message.slice(0, MAX_MESSAGE_LENGTH) };
}
