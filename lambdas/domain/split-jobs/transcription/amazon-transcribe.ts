/**
 * The Amazon Transcribe adapter: a batch transcription job (StartTranscriptionJob / GetTranscriptionJob)
 * that writes its JSON output into the job's scratch space, read back and turned into words.
 *
 * - The transcription job is named after our job id, so a retried `start` finds the job it already
 *   started (ConflictException) instead of starting a second one.
 * - Transcribe reads MP4 and WebM video, not QuickTime: such a source has no transcription.
 * - The language is the request's when Transcribe knows it, otherwise Transcribe identifies it.
 * - Failures reach customers as one generic message; Transcribe's reason goes to the log only.
 */
import { createHash } from 'node:crypto';
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import {
  GetTranscriptionJobCommand,
  LanguageCode,
  StartTranscriptionJobCommand,
  type MediaFormat,
  type StartTranscriptionJobCommandInput,
  type TranscribeClient,
  type TranscriptionJob,
} from '@aws-sdk/client-transcribe';
import { ProviderBusy } from '#domain/video-jobs/providers/port';
import { log } from '#platform/log';
import { timed } from '#platform/metrics';
import {
  TRANSCRIPTION_FAILED_MESSAGE,
  type Transcript,
  type TranscriptionProvider,
  type TranscriptionRequest,
  type TranscriptionStart,
  type TranscriptionStatus,
  type TranscriptWord,
} from './port';

export const TRANSCRIPT_TOO_LARGE_MESSAGE = 'The transcript of the source video is too large to use.';

/** About 2 million words of Transcribe's verbose JSON: far beyond any source we accept, and a bound on Lambda memory. */
export const MAX_TRANSCRIPT_BYTES = 20 * 1024 * 1024;

/** Transcribe's TranscriptionJobName: these characters only, at most 200 of them. */
const JOB_NAME_PATTERN = /^[0-9A-Za-z._-]{1,200}$/;
const JOB_NAME_HASH_LENGTH = 16;

const MEDIA_FORMATS: Record<string, MediaFormat> = {
  'video/mp4': 'mp4',
  'video/webm': 'webm',
};

/**
 * Every language code the installed SDK's model of StartTranscriptionJob accepts, keyed by lower case
 * because BCP 47 tags are case-insensitive and Transcribe's are not. Taken from the SDK, not copied,
 * so a language Transcribe adds arrives with an SDK update.
 */
export const TRANSCRIBE_LANGUAGE_CODES: ReadonlyMap<string, LanguageCode> = new Map(
  Object.values(LanguageCode).map((code) => [code.toLowerCase(), code]),
);

/** Transcribe only takes a language with its region; a bare language means its most widely spoken variant. */
export const DEFAULT_LOCALES: Readonly<Record<string, LanguageCode>> = {
  en: 'en-US',
  es: 'es-US',
  fr: 'fr-FR',
  de: 'de-DE',
  pt: 'pt-BR',
  it: 'it-IT',
  ja: 'ja-JP',
  ko: 'ko-KR',
  zh: 'zh-CN',
  hi: 'hi-IN',
  ar: 'ar-SA',
  nl: 'nl-NL',
};

/** Transcribe's answers that mean "not now": the step is retried later, not failed. */
const BUSY_ERRORS = new Set(['ThrottlingException', 'LimitExceededException', 'InternalFailureException']);

export interface AmazonTranscribeOptions {
  transcribe: TranscribeClient;
  /** Reads the transcript Transcribe wrote. */
  s3: S3Client;
}

export class AmazonTranscribe implements TranscriptionProvider {
  readonly kind = 'amazon-transcribe';
  private readonly transcribe: TranscribeClient;
  private readonly s3: S3Client;

  constructor(options: AmazonTranscribeOptions) {
    this.transcribe = options.transcribe;
    this.s3 = options.s3;
  }

  async start(request: TranscriptionRequest): Promise<TranscriptionStart> {
    const mediaFormat = MEDIA_FORMATS[mediaType(request.source.contentType)];
    if (!mediaFormat) {
      log('info', 'Amazon Transcribe cannot read the source video format', {
        job_id: request.jobId,
        content_type: request.source.contentType,
      });
      return { state: 'unavailable' };
    }
    const transcriptionJobName = transcriptionJobNameFor(request.jobId);
    try {
      await timed('providerLatency', { Provider: 'amazon-transcribe', Operation: 'start-transcription' }, () =>
        this.transcribe.send(
          new StartTranscriptionJobCommand({
            TranscriptionJobName: transcriptionJobName,
            Media: { MediaFileUri: `s3://${request.source.bucket}/${request.source.key}` },
            MediaFormat: mediaFormat,
            OutputBucketName: request.output.bucket,
            OutputKey: request.output.key,
            ...languageSettings(request.language),
          }),
        ),
      );
    } catch (error) {
      // Job names are unique per account: the name is taken only by this job's own earlier start.
      if (!(error instanceof Error && error.name === 'ConflictException')) throw busyOrAsIs(error);
    }
    return { state: 'started', transcriptionId: transcriptionJobName };
  }

  async poll(transcriptionId: string): Promise<TranscriptionStatus> {
    const { TranscriptionJob: job } = await timed(
      'providerLatency',
      { Provider: 'amazon-transcribe', Operation: 'poll-transcription' },
      () => this.transcribe.send(new GetTranscriptionJobCommand({ TranscriptionJobName: transcriptionId })),
    ).catch((error: unknown) => {
      throw busyOrAsIs(error);
    });
    switch (job?.TranscriptionJobStatus) {
      case 'QUEUED':
      case 'IN_PROGRESS':
        return { state: 'in_progress' };
      case 'FAILED':
        log('warn', 'Amazon Transcribe failed the transcription', {
          transcription_id: transcriptionId,
          failure_reason: job.FailureReason,
        });
        return { state: 'failed', message: TRANSCRIPTION_FAILED_MESSAGE };
      case 'COMPLETED':
        return this.completedTranscript(transcriptionId, job);
      default:
        throw new Error(
          `Transcription job ${transcriptionId} has unexpected status ${String(job?.TranscriptionJobStatus)}`,
        );
    }
  }

  /**
   * Reads the output where Transcribe says it wrote it rather than where we asked: an OutputKey without
   * a file extension is taken as a folder (the file is then `<key>/<job name>.json`), and the poll knows
   * only the job name, not the request.
   */
  private async completedTranscript(transcriptionId: string, job: TranscriptionJob): Promise<TranscriptionStatus> {
    const uri = job.Transcript?.TranscriptFileUri;
    const location = uri ? s3LocationOf(uri) : undefined;
    if (!location) throw new Error(`Transcription job ${transcriptionId} has no readable transcript location: ${uri}`);
    const object = await this.s3.send(
      // One byte past the cap tells a transcript at the cap from one beyond it, without downloading the rest.
      new GetObjectCommand({ Bucket: location.bucket, Key: location.key, Range: `bytes=0-${MAX_TRANSCRIPT_BYTES}` }),
    );
    if (!object.Body) throw new Error(`Transcript s3://${location.bucket}/${location.key} has no body`);
    const bytes = await object.Body.transformToByteArray();
    if (bytes.byteLength > MAX_TRANSCRIPT_BYTES) {
      log('warn', 'The Amazon Transcribe transcript is over the size limit', {
        transcription_id: transcriptionId,
        max_transcript_bytes: MAX_TRANSCRIPT_BYTES,
      });
      return { state: 'failed', message: TRANSCRIPT_TOO_LARGE_MESSAGE };
    }
    const output: unknown = JSON.parse(new TextDecoder().decode(bytes));
    return { state: 'completed', transcript: transcriptFromTranscribeOutput(output, job.LanguageCode ?? null) };
  }
}

/** Our job id when Transcribe accepts it as a name; otherwise its valid characters plus a hash, so names never collide. */
export function transcriptionJobNameFor(jobId: string): string {
  if (JOB_NAME_PATTERN.test(jobId)) return jobId;
  const hash = createHash('sha256').update(jobId).digest('hex').slice(0, JOB_NAME_HASH_LENGTH);
  const readable = jobId.replace(/[^0-9A-Za-z._-]/g, '-').slice(0, 200 - JOB_NAME_HASH_LENGTH - 1);
  return `${readable}-${hash}`;
}

/** Transcribe takes exactly one of LanguageCode and IdentifyLanguage. */
function languageSettings(
  tag: string | undefined,
): Pick<StartTranscriptionJobCommandInput, 'LanguageCode' | 'IdentifyLanguage'> {
  const normalized = tag?.trim().toLowerCase() ?? '';
  const languageCode = DEFAULT_LOCALES[normalized] ?? TRANSCRIBE_LANGUAGE_CODES.get(normalized);
  return languageCode ? { LanguageCode: languageCode } : { IdentifyLanguage: true };
}

/** `video/MP4; codecs="avc1"` is video/mp4. */
function mediaType(contentType: string): string {
  return (contentType.split(';')[0] ?? '').trim().toLowerCase();
}

/**
 * Transcribe reports an output in our bucket as a path-style HTTPS URL
 * (`https://s3.<region>.amazonaws.com/<bucket>/<key>`); its API also allows `s3://` and virtual-hosted URLs.
 */
export function s3LocationOf(uri: string): { bucket: string; key: string } | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return undefined;
  }
  const path = url.pathname.split('/').slice(1).map(decodeURIComponent);
  const virtualHostedBucket = /^(.+)\.s3[.-]/.exec(url.hostname)?.[1];
  const [bucket, ...keyParts] =
    url.protocol === 's3:' ? [url.hostname, ...path] : virtualHostedBucket ? [virtualHostedBucket, ...path] : path;
  const key = keyParts.join('/');
  return bucket && key ? { bucket, key } : undefined;
}

/**
 * Transcribe's output lists `results.items` in spoken order: `pronunciation` items carry times (seconds,
 * as strings) and alternatives with confidences; `punctuation` items carry neither times nor meaning of
 * their own, so they join the word before them.
 */
export function transcriptFromTranscribeOutput(output: unknown, language: string | null): Transcript {
  const items = (output as { results?: { items?: unknown } } | null)?.results?.items;
  if (!Array.isArray(items)) throw new Error('The Amazon Transcribe output has no results.items list');
  const words: TranscriptWord[] = [];
  for (const item of items as (TranscribeItem | null)[]) {
    const text = mostConfidentContent(item?.alternatives);
    if (!text) continue;
    if (item?.type === 'punctuation') {
      const previous = words.at(-1);
      if (previous) previous.text += text;
    } else if (item?.type === 'pronunciation') {
      const startSeconds = Number(item.start_time);
      const endSeconds = Number(item.end_time);
      if (Number.isFinite(startSeconds) && Number.isFinite(endSeconds)) words.push({ text, startSeconds, endSeconds });
    }
  }
  return { language, words };
}

interface TranscribeItem {
  type?: string;
  start_time?: string;
  end_time?: string;
  alternatives?: { confidence?: string; content?: string }[];
}

function mostConfidentContent(alternatives: TranscribeItem['alternatives']): string | undefined {
  let best: { confidence: number; content: string } | undefined;
  for (const { confidence, content } of alternatives ?? []) {
    if (!content) continue;
    const score = Number(confidence) || 0;
    if (!best || score > best.confidence) best = { confidence: score, content };
  }
  return best?.content;
}

function busyOrAsIs(error: unknown): unknown {
  if (error instanceof Error && BUSY_ERRORS.has(error.name)) {
    return new ProviderBusy(`Amazon Transcribe is busy: ${error.name}: ${error.message}`, { cause: error });
  }
  return error;
}
