/** How much of a job's work was delivered when it ended without completing: a split job's clips. */
export interface DeliveredClips {
  completed: number;
  /** The clips chosen: none before a split job's choice, none ever for a video job. */
  total: number;
}

/** What a video job, or a split job before its clips are chosen, has delivered when it ends unfinished. */
export const NOTHING_DELIVERED: DeliveredClips = { completed: 0, total: 0 };

/** What a job's clips (none for a video job), as read before it ends, delivered. */
export function deliveredBy(clips: readonly { readonly status: string }[]): DeliveredClips {
  return { completed: clips.filter((clip) => clip.status === 'completed').length, total: clips.length };
}

/**
 * What a job that ends without completing gets back, however it ends: failed (by its own steps, a
 * crash, its execution's failure or the reconciler), expired (its execution's time-out, its
 * deadline) or cancelled. Nothing of a video job is delivered before it completes, so all of its
 * charge. A split job keeps its completed clips (its clips route still signs them) and pays their
 * even share of the charge, rounded down, so the refund of the others is rounded up: in the
 * customer's favour. Before any clip is chosen, all of it.
 */
export function unfinishedJobRefund(charged: number, delivered: DeliveredClips): number {
  if (delivered.total <= 0) return charged;
  const completed = Math.min(Math.max(delivered.completed, 0), delivered.total);
  return charged - Math.floor((charged * completed) / delivered.total);
}
