import type { Transcript, TranscriptWord } from '#domain/split-jobs/transcription/port';

/** A word of a transcript, spoken from `startSeconds` to `endSeconds` of the source. */
export const word = (text: string, startSeconds: number, endSeconds: number): TranscriptWord => ({
  text,
  startSeconds,
  endSeconds,
});

/** An English transcript of these words. */
export const transcriptOf = (...words: TranscriptWord[]): Transcript => ({ language: 'en', words });
