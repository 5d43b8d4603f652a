/**
 * A split job's price, fixed at creation from the source's duration: SPLIT_CREDITS_PER_MINUTE for
 * every started minute of source. Analysis, transcription and rendering all grow with the source,
 * not with the number of clips asked for. When some clips fail and others complete, the failed
 * clips' even share of the price comes back.
 */
export const SPLIT_CREDITS_PER_MINUTE = 5;

export function splitJobPrice(sourceDurationSeconds: number): number {
  return Math.max(1, Math.ceil(sourceDurationSeconds / 60)) * SPLIT_CREDITS_PER_MINUTE;
}

/** What a completed split job gives back for its failed clips: their even share, rounded down. */
export function failedClipsRefund(charged: number, failedClips: number, totalClips: number): number {
  if (totalClips <= 0 || failedClips <= 0) return 0;
  return Math.floor((charged * failedClips) / totalClips);
}
