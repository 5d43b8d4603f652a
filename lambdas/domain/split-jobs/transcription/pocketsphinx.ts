import { mkdtemp, rm, stat } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { GetObjectCommand, PutObjectCommand, S3ServiceException, type S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { log } from '#platform/log';
import { assertRanToEnd, mediaToolPath, runMediaTool } from '#platform/media-tools';
import { parseWordLine, sentencesOf, type RecognizedWord } from './pocketsphinx-output';
import {
  TRANSCRIPTION_FAILED_MESSAGE,
  type Transcript,
  type TranscriptionProvider,
  type TranscriptionRequest,
  type TranscriptionStart,
  type TranscriptionStatus,
} from './port';

/**
 * The local stack's speech recognizer: CMU PocketSphinx (Debian's `pocketsphinx` and
 * `pocketsphinx-en-us`) run on this machine, offline, in English only.
 *
 * - For one long-lived process, the local stack: `start` begins the work in the background and
 *   answers at once; the outcome (the transcript, or a failure) is written to the request's output
 *   object, and `poll` reads it from there. A transcription that ended before the stack restarted
 *   is still found; one that a restart cut short (nothing runs for it here and no output exists)
 *   is started again by the next poll. Lambda keeps no process running between invocations: the
 *   CDK app does not offer this adapter.
 * - `poll` is given only the transcription id, so the id carries the request's locations. The
 *   same job always has the same id, and a job already being transcribed is not started twice.
 * - The audio is taken out with ffmpeg, read through a presigned URL, as 16 kHz mono 16-bit WAV
 *   (the acoustic model's rate) into a temporary directory, then recognized in one streaming pass
 *   whose words are parsed as they are printed: memory stays the recognizer's (about 120 MB)
 *   whatever the length; the disk holds 115 MB per hour of audio until the pass ends.
 * - A request naming a language other than English has no transcription: the model would hear
 *   English words in any speech.
 * - Failures reach customers as one generic message; the reason goes to the log, without the URL.
 */

/** The acoustic model, language model and dictionary the recognizer runs with. */
export interface RecognizerModel {
  acousticModelDir: string;
  languageModel: string;
  dictionary: string;
}

/**
 * Where the recognizer's English model is installed beside it: `<prefix>/bin/pocketsphinx_continuous`
 * has it in `<prefix>/share/pocketsphinx/model/en-us`, as Debian's packages lay them out and as a
 * build from source installs them.
 */
export function englishModelOf(recognizerPath: string): RecognizerModel {
  const modelDir = join(dirname(dirname(recognizerPath)), 'share', 'pocketsphinx', 'model', 'en-us');
  return {
    acousticModelDir: join(modelDir, 'en-us'),
    languageModel: join(modelDir, 'en-us.lm.bin'),
    dictionary: join(modelDir, 'cmudict-en-us.dict'),
  };
}

/** The language the model recognizes, as the transcript states it. */
export const RECOGNIZED_LANGUAGE = 'en-US';

/** The acoustic model's sample rate, and the size of a second of its 16-bit mono audio. */
const SAMPLE_RATE = 16_000;
const AUDIO_BYTES_PER_SECOND = SAMPLE_RATE * 2;

/** Taking the audio out of a 3-hour source reads the whole file but decodes only its sound. */
const EXTRACTION_TIMEOUT_MS = 15 * 60_000;
/**
 * The recognizer runs about six times faster than speech on one core of this kind of machine; it
 * is given as long as the audio lasts (twice that for the shortest), and never more than the hour
 * after which the workflow stops waiting for the transcript.
 */
const MIN_RECOGNITION_TIMEOUT_MS = 2 * 60_000;
const MAX_RECOGNITION_TIMEOUT_MS = 60 * 60_000;
/** The source URL is read from start to end of the extraction, and must not expire before it. */
const SOURCE_URL_TTL_SECONDS = EXTRACTION_TIMEOUT_MS / 1000 + 60;
/** The recognizer answers within seconds of a short source: the workflow asks that often. */
const POLL_SECONDS = 2;

const TRANSCRIPTION_ID_PREFIX = 'pocketsphinx:';

/** What a transcription needs besides the job: the request's locations, carried in its id. */
interface Recognition {
  jobId: string;
  source: { bucket: string; key: string };
  output: { bucket: string; key: string };
}

/** What the output object holds once the work ended. */
type RecognitionOutcome = { state: 'completed'; transcript: Transcript } | { state: 'failed'; reason: string };

/** Runs ffmpeg or the recognizer to its end, as runMediaTool does; tests give a fake one. */
export type ToolRunner = typeof runMediaTool;

export interface PocketsphinxOptions {
  s3: S3Client;
  /** pocketsphinx_continuous; its English model is found beside it (englishModelOf). */
  recognizerPath: string;
  /** Defaults to the FFMPEG_PATH setting, read when a transcription runs. */
  ffmpegPath?: string;
  runTool?: ToolRunner;
  /** Transcriptions beyond this many wait their turn: each keeps a core busy. Half the cores unless told. */
  maxConcurrent?: number;
}

export class Pocketsphinx implements TranscriptionProvider {
  readonly kind = 'pocketsphinx';
  readonly pollSeconds = POLL_SECONDS;
  private readonly s3: S3Client;
  private readonly recognizerPath: string;
  private readonly model: RecognizerModel;
  private readonly ffmpegPath?: string;
  private readonly runTool: ToolRunner;
  private readonly maxConcurrent: number;
  /** The transcriptions of this process that have not ended, waiting or running, by id. */
  private readonly unfinished = new Set<string>();
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(options: PocketsphinxOptions) {
    this.s3 = options.s3;
    this.recognizerPath = options.recognizerPath;
    this.model = englishModelOf(options.recognizerPath);
    this.ffmpegPath = options.ffmpegPath;
    this.runTool = options.runTool ?? runMediaTool;
    this.maxConcurrent = options.maxConcurrent ?? Math.max(1, Math.floor(availableParallelism() / 2));
  }

  async start(request: TranscriptionRequest): Promise<TranscriptionStart> {
    if (!isEnglish(request.language)) {
      log('info', 'The local recognizer knows English only: the source gets no transcription', {
        job_id: request.jobId,
        language: request.language,
      });
      return { state: 'unavailable' };
    }
    const recognition: Recognition = {
      jobId: request.jobId,
      source: { bucket: request.source.bucket, key: request.source.key },
      output: { bucket: request.output.bucket, key: request.output.key },
    };
    const transcriptionId = transcriptionIdOf(recognition);
    if (!this.unfinished.has(transcriptionId)) this.begin(transcriptionId, recognition);
    return { state: 'started', transcriptionId };
  }

  async poll(transcriptionId: string): Promise<TranscriptionStatus> {
    const recognition = recognitionOf(transcriptionId);
    // Asked before the output is read: a transcription ends by writing its output, then leaving this set.
    if (this.unfinished.has(transcriptionId)) return { state: 'in_progress' };
    const outcome = await this.storedOutcome(recognition);
    if (!outcome) {
      log('info', 'A transcription neither runs nor ended (the local stack restarted): started again', {
        job_id: recognition.jobId,
      });
      this.begin(transcriptionId, recognition);
      return { state: 'in_progress' };
    }
    if (outcome.state === 'failed') {
      log('warn', 'The local recognizer failed the transcription', {
        job_id: recognition.jobId,
        failure_reason: outcome.reason,
      });
      return { state: 'failed', message: TRANSCRIPTION_FAILED_MESSAGE };
    }
    return outcome;
  }

  /** The transcription in the background, in its turn: it never throws, and ends with its outcome stored (or logged). */
  private begin(transcriptionId: string, recognition: Recognition): void {
    this.unfinished.add(transcriptionId);
    void (async () => {
      try {
        await this.turn();
        const outcome = await this.recognize(recognition).catch((error: unknown): RecognitionOutcome => ({
          state: 'failed',
          reason: describeFailure(error),
        }));
        await this.s3.send(
          new PutObjectCommand({
            Bucket: recognition.output.bucket,
            Key: recognition.output.key,
            Body: JSON.stringify(outcome),
            ContentType: 'application/json',
          }),
        );
      } catch (error) {
        // Nothing stored: the next poll finds nothing running and starts the transcription again.
        log('error', 'The outcome of a local transcription could not be stored', {
          job_id: recognition.jobId,
          error,
        });
      } finally {
        this.running -= 1;
        this.waiting.shift()?.();
        this.unfinished.delete(transcriptionId);
      }
    })();
  }

  private async turn(): Promise<void> {
    while (this.running >= this.maxConcurrent) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.running += 1;
  }

  private async recognize(recognition: Recognition): Promise<RecognitionOutcome> {
    const directory = await mkdtemp(join(tmpdir(), 'transcription-'));
    try {
      const audioPath = join(directory, 'audio.wav');
      const input = await getSignedUrl(
        this.s3,
        new GetObjectCommand({ Bucket: recognition.source.bucket, Key: recognition.source.key }),
        { expiresIn: SOURCE_URL_TTL_SECONDS },
      );
      const extraction = await this.runTool(
        this.ffmpegPath ?? mediaToolPath('ffmpeg'),
        [
          ...['-nostdin', '-v', 'error', '-i', input, '-vn', '-sn', '-dn'],
          ...['-ac', '1', '-ar', String(SAMPLE_RATE), '-c:a', 'pcm_s16le', '-f', 'wav', '-y', audioPath],
        ],
        { timeoutMs: EXTRACTION_TIMEOUT_MS },
      );
      assertRanToEnd(extraction, 'Taking the audio out of the source', input, EXTRACTION_TIMEOUT_MS);
      const audioSeconds = (await stat(audioPath)).size / AUDIO_BYTES_PER_SECOND;
      const timeoutMs = Math.min(MAX_RECOGNITION_TIMEOUT_MS, Math.max(MIN_RECOGNITION_TIMEOUT_MS, audioSeconds * 1000));
      const words: RecognizedWord[] = [];
      const recognized = await this.runTool(
        this.recognizerPath,
        [
          ...['-infile', audioPath, '-time', 'yes'],
          ...['-hmm', this.model.acousticModelDir, '-lm', this.model.languageModel, '-dict', this.model.dictionary],
        ],
        {
          timeoutMs,
          onStdoutLine: (line) => {
            const word = parseWordLine(line);
            if (word) words.push(word);
          },
        },
      );
      if (recognized.timedOut) throw new Error(`The recognizer timed out after ${timeoutMs} ms`);
      if (recognized.exitCode !== 0) {
        throw new Error(`The recognizer failed (exit code ${recognized.exitCode}): ${recognized.stderrTail}`);
      }
      return { state: 'completed', transcript: { language: RECOGNIZED_LANGUAGE, words: sentencesOf(words) } };
    } finally {
      await rm(directory, { recursive: true, force: true }).catch(() => {});
    }
  }

  private async storedOutcome(recognition: Recognition): Promise<RecognitionOutcome | undefined> {
    try {
      const { Body } = await this.s3.send(
        new GetObjectCommand({ Bucket: recognition.output.bucket, Key: recognition.output.key }),
      );
      if (!Body) throw new Error(`The transcription output ${recognition.output.key} has no body`);
      return JSON.parse(await Body.transformToString('utf8')) as RecognitionOutcome;
    } catch (error) {
      if (error instanceof S3ServiceException && error.name === 'NoSuchKey') return undefined;
      throw error;
    }
  }
}

/** English, or no language named (the model's, taken as asked). */
function isEnglish(language: string | undefined): boolean {
  const tag = language?.trim().toLowerCase() ?? '';
  return tag === '' || tag === 'en' || tag.startsWith('en-');
}

function transcriptionIdOf(recognition: Recognition): string {
  return `${TRANSCRIPTION_ID_PREFIX}${Buffer.from(JSON.stringify(recognition)).toString('base64url')}`;
}

function recognitionOf(transcriptionId: string): Recognition {
  const encoded = transcriptionId.startsWith(TRANSCRIPTION_ID_PREFIX)
    ? transcriptionId.slice(TRANSCRIPTION_ID_PREFIX.length)
    : undefined;
  let recognition: Partial<Recognition> | undefined;
  try {
    recognition = encoded ? (JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8')) as Recognition) : undefined;
  } catch {
    recognition = undefined;
  }
  const isLocation = (value: unknown) =>
    typeof (value as Recognition['output'] | undefined)?.bucket === 'string' &&
    typeof (value as Recognition['output']).key === 'string';
  if (typeof recognition?.jobId !== 'string' || !isLocation(recognition.source) || !isLocation(recognition.output)) {
    throw new Error(`${transcriptionId} is not a transcription of the local recognizer`);
  }
  return recognition as Recognition;
}

/**
 * The failure's message, with any URL taken out. ffmpeg's failures already come without the
 * source's presigned URL (assertRanToEnd); this keeps any other from being stored and logged.
 */
function describeFailure(error: unknown): string {
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return message.replace(/https?:\/\/\S+/g, '<url>');
}
