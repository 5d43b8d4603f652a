import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { GetObjectCommand, PutObjectCommand, S3ServiceException, type S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { log } from '#platform/log';
import { assertRanToEnd, mediaToolPath, runMediaTool } from '#platform/media-tools';
import { whileWanted } from '#platform/while-wanted';
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
 *   (the acoustic model's rate) into a temporary directory, cut at its quietest moments into as
 *   many parts as the machine has cores (cutIntoParts), and the parts recognized side by side,
 *   each in one streaming pass whose words are parsed as they are printed: memory is the
 *   recognizer's (about 120 MB) per part whatever the length; the disk holds 230 MB per hour of
 *   audio until the passes end.
 * - The recognizer runs with a narrower search than its defaults (RECOGNIZER_SEARCH): on a
 *   227 s talk it took 22.5 CPU-seconds instead of 38.5, and heard 93.8 % of the words instead of
 *   95.5 %.
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

/**
 * A narrower search: every other frame scored (`-ds 2`), fewer Gaussians and words per frame,
 * fewer active HMMs, a shorter phone lookahead window. Measured above.
 */
const RECOGNIZER_SEARCH = ['-ds', '2', '-topn', '2', '-maxwpf', '5', '-maxhmmpf', '3000', '-pl_window', '10'];
/** Audio is cut into parts no shorter than this: a part's first seconds are heard less well while the recognizer adapts. */
const MIN_PART_SECONDS = 60;
/** A cut is placed at the quietest moment within this many seconds of where an even split would put it... */
const CUT_SEARCH_SECONDS = 10;
/** ...judged over windows this long: a pause between words or sentences. */
const CUT_WINDOW_SECONDS = 0.3;

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
/** How often a running transcription asks whether it is still wanted: a cancel frees the cores within this. */
const WANTED_CHECK_MS = 2000;

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
  /** Transcriptions beyond this many wait their turn: each keeps every core busy. One unless told. */
  maxConcurrent?: number;
  /** How many parts the audio of a long source is recognized in, side by side. The cores unless told. */
  parts?: number;
  /** Where each transcription makes its directory for the audio, removed when it ends. The system's unless told. */
  workDirectory?: string;
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
  private readonly parts: number;
  private readonly workDirectory?: string;
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
    this.maxConcurrent = options.maxConcurrent ?? 1;
    this.parts = options.parts ?? availableParallelism();
    this.workDirectory = options.workDirectory;
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
    if (!this.unfinished.has(transcriptionId)) this.begin(transcriptionId, recognition, request.stillWanted);
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

  /**
   * The transcription in the background, in its turn: it never throws, and ends with its outcome
   * stored (or logged). One no longer wanted when its turn comes does not start, and one that
   * stops being wanted while it runs is stopped (its ffmpeg and recognizers killed); either ends
   * failed, so that a late poll does not take it for one a restart lost and start it again.
   */
  private begin(transcriptionId: string, recognition: Recognition, stillWanted?: () => Promise<boolean>): void {
    this.unfinished.add(transcriptionId);
    void (async () => {
      try {
        await this.turn();
        const outcome = await this.recognizeWhileWanted(recognition, stillWanted).catch(
          (error: unknown): RecognitionOutcome => ({ state: 'failed', reason: describeFailure(error) }),
        );
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

  private async recognizeWhileWanted(
    recognition: Recognition,
    stillWanted?: () => Promise<boolean>,
  ): Promise<RecognitionOutcome> {
    if (!stillWanted) return this.recognize(recognition);
    const unwanted = () => new Error('Its job ended; the transcription was stopped');
    if (!(await stillWanted())) throw unwanted();
    return whileWanted(stillWanted, unwanted, (signal) => this.recognize(recognition, signal), WANTED_CHECK_MS);
  }

  private async recognize(recognition: Recognition, signal?: AbortSignal): Promise<RecognitionOutcome> {
    const directory = await mkdtemp(join(this.workDirectory ?? tmpdir(), 'transcription-'));
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
        { timeoutMs: EXTRACTION_TIMEOUT_MS, signal },
      );
      assertRanToEnd(extraction, 'Taking the audio out of the source', input, EXTRACTION_TIMEOUT_MS);
      const audio = await wavLayout(audioPath);
      const audioSeconds = audio.sampleCount / SAMPLE_RATE;
      const timeoutMs = Math.min(MAX_RECOGNITION_TIMEOUT_MS, Math.max(MIN_RECOGNITION_TIMEOUT_MS, audioSeconds * 1000));
      const parts = await cutIntoParts(audio, directory, partCount(audio.sampleCount, this.parts));
      const heard = await Promise.all(
        parts.map(async (part) => {
          const offsetSeconds = part.startSample / SAMPLE_RATE;
          return (await this.recognizePart(part.path, timeoutMs, signal)).map((word) => ({
            text: word.text,
            startSeconds: Math.round((word.startSeconds + offsetSeconds) * 1000) / 1000,
            endSeconds: Math.round((word.endSeconds + offsetSeconds) * 1000) / 1000,
          }));
        }),
      );
      return { state: 'completed', transcript: { language: RECOGNIZED_LANGUAGE, words: sentencesOf(heard.flat()) } };
    } finally {
      await rm(directory, { recursive: true, force: true }).catch(() => {});
    }
  }

  private async recognizePart(audioPath: string, timeoutMs: number, signal?: AbortSignal): Promise<RecognizedWord[]> {
    const words: RecognizedWord[] = [];
    const recognized = await this.runTool(
      this.recognizerPath,
      [
        ...['-infile', audioPath, '-time', 'yes'],
        ...['-hmm', this.model.acousticModelDir, '-lm', this.model.languageModel, '-dict', this.model.dictionary],
        ...RECOGNIZER_SEARCH,
      ],
      {
        timeoutMs,
        signal,
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
    return words;
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

/** Where a WAV file's samples are: its `data` chunk, read from the header's first bytes. */
export function wavDataOffset(head: Buffer): number {
  if (head.toString('latin1', 0, 4) !== 'RIFF' || head.toString('latin1', 8, 12) !== 'WAVE') {
    throw new Error('The extracted audio is not a WAV file');
  }
  let offset = 12;
  while (offset + 8 <= head.length) {
    if (head.toString('latin1', offset, offset + 4) === 'data') return offset + 8;
    const size = head.readUInt32LE(offset + 4);
    offset += 8 + size + (size % 2);
  }
  throw new Error('The extracted audio has no data chunk in its first bytes');
}

/** The header of a mono 16 kHz 16-bit WAV file of `sampleCount` samples. */
export function wavHeader(sampleCount: number): Buffer {
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(36 + 2 * sampleCount, 4);
  header.write('WAVEfmt ', 8, 'latin1');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(SAMPLE_RATE, 24);
  header.writeUInt32LE(AUDIO_BYTES_PER_SECOND, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(2 * sampleCount, 40);
  return header;
}

/**
 * Where in `samples` the quietest stretch of `windowSamples` is centred: its sound energy, summed,
 * is the lowest of windows a tenth of their length apart.
 */
export function quietestPoint(samples: Int16Array, windowSamples: number): number {
  const step = Math.max(1, Math.round(windowSamples / 10));
  let quietest = Math.floor(Math.max(0, samples.length - windowSamples) / 2);
  let lowest = Infinity;
  for (let from = 0; from + windowSamples <= samples.length; from += step) {
    let energy = 0;
    for (let index = from; index < from + windowSamples; index += 1) energy += samples[index]! * samples[index]!;
    if (energy < lowest) [lowest, quietest] = [energy, from];
  }
  return Math.min(samples.length, quietest + Math.floor(windowSamples / 2));
}

/** How many parts `sampleCount` samples are recognized in: at most `cores`, none shorter than MIN_PART_SECONDS. */
export function partCount(sampleCount: number, cores: number): number {
  return Math.max(1, Math.min(cores, Math.floor(sampleCount / (MIN_PART_SECONDS * SAMPLE_RATE))));
}

interface WavLayout {
  path: string;
  /** Where the samples start in the file, and how many there are. */
  dataOffset: number;
  sampleCount: number;
}

async function wavLayout(path: string): Promise<WavLayout> {
  const file = await open(path);
  try {
    const head = Buffer.alloc(4096);
    const { bytesRead } = await file.read(head, 0, head.length, 0);
    const dataOffset = wavDataOffset(head.subarray(0, bytesRead));
    return { path, dataOffset, sampleCount: Math.floor(((await file.stat()).size - dataOffset) / 2) };
  } finally {
    await file.close();
  }
}

interface AudioPart {
  path: string;
  startSample: number;
}

/**
 * The audio file cut into `count` parts, each cut in the middle of the quietest window within
 * CUT_SEARCH_SECONDS of an even split, so that no word is cut where the speaker pauses nearby.
 * Only the stretches searched are read into memory; the parts are copied file to file.
 */
async function cutIntoParts(audio: WavLayout, directory: string, count: number): Promise<AudioPart[]> {
  const { path: audioPath, dataOffset, sampleCount } = audio;
  if (count === 1) return [{ path: audioPath, startSample: 0 }];
  const file = await open(audioPath);
  try {
    const searchSamples = CUT_SEARCH_SECONDS * SAMPLE_RATE;
    const cuts: number[] = [];
    for (let index = 1; index < count; index += 1) {
      const even = Math.round((index * sampleCount) / count);
      const from = Math.max(0, even - searchSamples);
      const stretch = Buffer.alloc(2 * (Math.min(sampleCount, even + searchSamples) - from));
      await file.read(stretch, 0, stretch.length, dataOffset + 2 * from);
      const samples = new Int16Array(stretch.buffer, stretch.byteOffset, stretch.length / 2);
      cuts.push(from + quietestPoint(samples, Math.round(CUT_WINDOW_SECONDS * SAMPLE_RATE)));
    }
    const starts = [0, ...cuts];
    return await Promise.all(
      starts.map(async (startSample, index) => {
        const endSample = cuts[index] ?? sampleCount;
        const path = join(directory, `part-${index}.wav`);
        const part = createWriteStream(path);
        part.write(wavHeader(endSample - startSample));
        await pipeline(
          createReadStream(audioPath, { start: dataOffset + 2 * startSample, end: dataOffset + 2 * endSample - 1 }),
          part,
        );
        return { path, startSample };
      }),
    );
  } finally {
    await file.close();
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
