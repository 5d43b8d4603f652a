/** How much of a job's work was delivered when it was stopped: a split job's clips. */
export interface DeliveredClips {
  completed: number;
  /** The clips chosen: none before a split job's choice, none ever for a video job. */
  total: number;
}

/**
 * What a job stopped before its end (cancelled, or expired at its deadline) gets back. Nothing of
 * a video job is delivered before it completes, so all of its charge. A split job keeps its
 * completed clips (its clips route still signs them) and pays their even share of the charge,
 * rounded down, so the refund of the others is rounded up: in the customer's favour. Before any
 * clip is chosen, all of it.
 */
export function stoppedJobRefund(charged: number, clips: DeliveredClips): number {
  if (clips.total <= 0) return charged;
  const completed = Math.min(Math.max(clips.completed, 0), clips.total);
  return charged - Math.floor((charged * completed) / clips.total);
}
