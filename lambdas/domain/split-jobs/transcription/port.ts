/**
 * The transcription port: what the split job workflow needs from a speech-to-text service. In AWS
 * the adapter is Amazon Transcribe (amazon-transcribe.ts); locally it is PocketSphinx when the
 * machine has it (pocketsphinx.ts), else none (no-transcription.ts), so clips have no captions and
 * no transcript-based titles.
 */

/** What a customer is told of any failed transcription; why it failed goes to the log only. */
export const TRANSCRIPTION_FAILED_MESSAGE = 'The speech in the source video could not be transcribed.';

/** One spoken word (or a punctuation mark attached to the word before it), times in source seconds. */
export interface TranscriptWord {
  text: string;
  startSeconds: number;
  endSeconds: number;
}

export interface Transcript {
  /** BCP 47 tag of the language spoken (as detected, or as asked), when known. */
  language: string | null;
  /** In spoken order; punctuation is part of the word it follows (`"world."`). */
  words: TranscriptWord[];
}

export interface TranscriptionRequest {
  /** Names the transcription at the provider: the same job id always names the same one. */
  jobId: string;
  /** The source video in the media bucket; `contentType` is its MIME type, which decides whether the provider can read it. */
  source: { bucket: string; key: string; contentType: string };
  /** BCP 47 tag from the request; identified by the provider when absent. */
  language?: string;
  /** Where the provider may write its output (a scratch object of the job). */
  output: { bucket: string; key: string };
  /**
   * Whether the transcription is still wanted (its job has not ended). A provider whose work runs
   * on the caller's machine asks it before starting and while running, and stops when it answers
   * false; a managed service cannot stop a job once started (Amazon Transcribe refuses to delete
   * one in progress), so its adapter does not ask.
   */
  stillWanted?: () => Promise<boolean>;
}

export type TranscriptionStart = { state: 'started'; transcriptionId: string } | { state: 'unavailable' };

export type TranscriptionStatus =
  { state: 'in_progress' } | { state: 'completed'; transcript: Transcript } | { state: 'failed'; message: string };

export interface TranscriptionProvider {
  readonly kind: string;
  /**
   * How often, in seconds, the workflow asks about a started transcription, when the provider
   * knows its own pace better than the workflow's default (split-steps.ts).
   */
  readonly pollSeconds?: number;
  /** Starts (or finds, for the same job) the transcription; `unavailable` when there is none to run. */
  start(request: TranscriptionRequest): Promise<TranscriptionStart>;
  poll(transcriptionId: string): Promise<TranscriptionStatus>;
}
