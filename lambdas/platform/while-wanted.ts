/**
 * Long work that stops as soon as no one wants it any more: `stillWanted` is asked every
 * `intervalMs` while the work runs (never two at once, never after), and the signal handed to the
 * work is aborted with `reason()` the first time it answers false.
 */
export async function whileWanted<T>(
  stillWanted: () => Promise<boolean>,
  reason: () => Error,
  work: (signal: AbortSignal) => Promise<T>,
  intervalMs: number,
): Promise<T> {
  const controller = new AbortController();
  let asking = false;
  const timer = setInterval(() => {
    if (asking || controller.signal.aborted) return;
    asking = true;
    void stillWanted()
      .then((wanted) => {
        if (!wanted) controller.abort(reason());
      })
      .finally(() => {
        asking = false;
      });
  }, intervalMs);
  try {
    return await work(controller.signal);
  } finally {
    clearInterval(timer);
  }
}
