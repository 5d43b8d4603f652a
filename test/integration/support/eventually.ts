/**
 * Reads until `done` holds or `timeoutMs` has passed, and answers the last value read: for what
 * the stack does after it answered (a job's workflow, a delivery the worker records after the
 * receiver replied), so the caller's assertion on the value says what went wrong.
 */
export async function eventually<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  { timeoutMs = 10_000, everyMs = 100 } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, everyMs));
    value = await read();
  }
  return value;
}
