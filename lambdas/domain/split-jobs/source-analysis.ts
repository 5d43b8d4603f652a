/**
 * What one decoding pass learns about a source video (analysis.ts measures it, clip-selection.ts
 * chooses clips from it). Signals are sampled on a fixed grid of ANALYSIS_WINDOW_SECONDS.
 */

export const ANALYSIS_WINDOW_SECONDS = 0.5;

/** Loudness below this (dBFS, RMS over a window) counts as silence; digital silence reads as the floor. */
export const SILENCE_THRESHOLD_DB = -40;
export const LOUDNESS_FLOOR_DB = -90;

export interface TimeRange {
  startSeconds: number;
  endSeconds: number;
}

/** The analysis of one time range of the source ([startSeconds, endSeconds)). */
export interface SegmentAnalysis extends TimeRange {
  /**
   * RMS loudness in dBFS per window, window i covering startSeconds + i × ANALYSIS_WINDOW_SECONDS;
   * LOUDNESS_FLOOR_DB for silence or no audio stream.
   */
  loudnessDb: number[];
  /** Mean frame-to-frame change per window, 0 (still) to 1 (every pixel changed). */
  motion: number[];
  /** Source times (seconds) of scene cuts. */
  sceneCuts: number[];
  /** Silences of at least the minimum length, in source seconds. */
  silences: TimeRange[];
  /** Whether the source has an audio stream at all. */
  hasAudio: boolean;
  /**
   * Source time up to which its picture or its sound decoded: endSeconds for a segment decoded
   * whole, earlier where the file stops (a truncated upload whose header still claims the whole
   * length) or where the picture pauses (a still in a screen recording) with no sound to span
   * it; startSeconds when nothing decoded.
   */
  decodedEndSeconds: number;
}

/** The whole source: segments merged in order, up to where it stops decoding. */
export interface SourceAnalysis {
  /** What the source really holds: the decoded length, whatever its header claims. */
  durationSeconds: number;
  loudnessDb: number[];
  motion: number[];
  sceneCuts: number[];
  silences: TimeRange[];
  hasAudio: boolean;
}
