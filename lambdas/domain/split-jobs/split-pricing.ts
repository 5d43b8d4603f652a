/**
 * A split job's price, charged at creation from the source's duration as its header gives it:
 * SPLIT_CREDITS_PER_MINUTE for every started minute of source. Analysis, transcription and
 * rendering all grow with the source, not with the number of clips asked for. What comes back when
 * the job completes: the price of the minutes the header claimed but the file does not hold (a
 * truncated upload), then the failed clips' even share of what remains.
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

/**
 * What a completed split job gives back: the charge beyond the price of what the source decoded
 * to (`decodedSeconds`, absent when the whole source decoded), then the failed clips' share of
 * the rest.
 */
export function completedJobRefund(
  charged: number,
  decodedSeconds: number | undefined,
  failedClips: number,
  totalClips: number,
): number {
  const decodedPrice = decodedSeconds === undefined ? charged : Math.min(charged, splitJobPrice(decodedSeconds));
  return charged - decodedPrice + failedClipsRefund(decodedPrice, failedClips, totalClips);
}
