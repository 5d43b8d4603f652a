/** What the local event sources share: how a task module is invoked, and how its answer is read. */

export type TaskHandler = (event: unknown) => Promise<unknown>;

/** The credentials of the local stack: the S3 emulator checks signatures against them, the others take any. */
export const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

/** How long a poller waits after its emulator failed a read before it reads again. */
export const ERROR_DELAY_MS = 1000;

/** Loads the `handler` of a module under lambdas/tasks by its name (the task's `handler`). */
export type LoadTaskHandler = (moduleName: string) => Promise<TaskHandler>;

/** The event and the answer each go through JSON, as they do between Lambda and a function. */
export async function invokeTask(load: LoadTaskHandler, moduleName: string, event: unknown): Promise<unknown> {
  const handler = await load(moduleName);
  const result = await handler(JSON.parse(JSON.stringify(event)));
  return result === undefined ? undefined : JSON.parse(JSON.stringify(result));
}

/**
 * Reads a partial batch response as Lambda does (ReportBatchItemFailures): the identifiers of the
 * failed items, `[]` for a complete success (no answer, no or an empty `batchItemFailures`), or
 * `'all'` when the answer does not make sense: an item failure without an identifier, or with one
 * that names no item of the batch.
 */
export function failedItems(response: unknown, batchIdentifiers: readonly string[]): string[] | 'all' {
  if (response === undefined || response === null) return [];
  if (typeof response !== 'object' || Array.isArray(response)) return 'all';
  const failures = (response as { batchItemFailures?: unknown }).batchItemFailures;
  if (failures === undefined || failures === null) return [];
  if (!Array.isArray(failures)) return 'all';
  const known = new Set(batchIdentifiers);
  const identifiers: string[] = [];
  for (const failure of failures) {
    const identifier = (failure as { itemIdentifier?: unknown } | null)?.itemIdentifier;
    if (typeof identifier !== 'string' || !known.has(identifier)) return 'all';
    identifiers.push(identifier);
  }
  return identifiers;
}

/** Waits `ms`, or less if `signal` aborts first; never rejects. */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/** Resolves when `work` settles, or after `graceMs`, whichever comes first; answers whether it settled. */
export async function settledWithin(work: Promise<unknown>, graceMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), graceMs);
  });
  try {
    return await Promise.race([
      work.then(
        () => true,
        () => true,
      ),
      timedOut,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export const describeError = (error: unknown) =>
  error instanceof Error ? `${error.name}: ${error.message}` : String(error);
