import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { basename } from 'node:path';
import { requiredSetting, FFMPEG_PATH, FFPROBE_PATH, type Setting } from './settings';
import { TransientFailure } from './task-failures';

/**
 * ffmpeg and ffprobe: where they are and how to run them. Their paths come from the environment:
 * in AWS the CDK app points them at the media-tools layer (/opt/bin), locally the stack chooses
 * the newest binary it finds (local/media-tools.ts). Functions never look for them on their own.
 */

export type MediaTool = 'ffmpeg' | 'ffprobe';

/** The setting that holds each tool's path. */
export const MEDIA_TOOL_SETTINGS: Readonly<Record<MediaTool, Setting>> = {
  ffmpeg: FFMPEG_PATH,
  ffprobe: FFPROBE_PATH,
};

export function mediaToolPath(tool: MediaTool): string {
  return requiredSetting(MEDIA_TOOL_SETTINGS[tool]);
}

/** The media steps (an analysis segment, a clip's render) running in this process now. */
let mediaStepsRunning = 0;

/**
 * Runs a media step whose ffmpeg runs share this process's cores with those of the other steps
 * running beside it. In Lambda each invocation has its function to itself and a step runs alone;
 * the local stack runs all of a Map's items in one process, where ffmpegs each threaded for
 * every core spend 4 to 10 % more CPU-seconds, all of it on the same cores.
 */
export async function sharingCores<T>(step: () => Promise<T>): Promise<T> {
  mediaStepsRunning += 1;
  try {
    return await step();
  } finally {
    mediaStepsRunning -= 1;
  }
}

/**
 * The threads an ffmpeg starting now may use: undefined (ffmpeg's own choice, for every core)
 * when its step runs alone, else the step's share of the cores, at least one.
 */
export function coreShare(): number | undefined {
  if (mediaStepsRunning <= 1) return undefined;
  return Math.max(1, Math.floor(availableParallelism() / mediaStepsRunning));
}

/** ffmpeg's options that hold its decoders and filter graph (`beforeInput`) and its encoders (`beforeOutput`) to `threads`. */
export function ffmpegThreadOptions(threads: number | undefined): { beforeInput: string[]; beforeOutput: string[] } {
  if (threads === undefined) return { beforeInput: [], beforeOutput: [] };
  const count = String(threads);
  return { beforeInput: ['-filter_complex_threads', count, '-threads', count], beforeOutput: ['-threads', count] };
}

export interface MediaToolRun {
  /** Null when the process was killed (the timeout, or the abort signal). */
  exitCode: number | null;
  /** Everything it wrote to stdout, when `collectStdout` asked for it; otherwise empty. */
  stdout: string;
  /** The last few kilobytes of stderr: enough for an error message, bounded for a chatty tool. */
  stderrTail: string;
  timedOut: boolean;
  /**
   * Whether ffmpeg lost its connection to an input while reading it (a `Will reconnect` warning,
   * seen anywhere in stderr): where the run then stopped short, it stopped where the connection
   * gave up, not where the input ends.
   */
  readInterrupted: boolean;
}

export interface MediaToolOptions {
  /** The process is killed after this long and the run reports `timedOut`. */
  timeoutMs: number;
  /** Called for every complete line of stdout (for `-progress pipe:1`, or a filter's `file=-`). */
  onStdoutLine?: (line: string) => void;
  collectStdout?: boolean;
  /** Largest stdout kept when collecting; a tool that prints more fails the run. */
  maxStdoutBytes?: number;
  /** Variables added to the tool's environment (the function's own are passed on). */
  environment?: Readonly<Record<string, string>>;
  /** Kills the tool when aborted; the run then rejects with the signal's reason. */
  signal?: AbortSignal;
}

const STDERR_TAIL_CHARS = 4000;
const DEFAULT_MAX_STDOUT_BYTES = 16 * 1024 * 1024;

/**
 * The input could not be decoded: a fault of the input, which running again does not mend. The
 * split job workflow routes it by this name to SOURCE_UNREADABLE (state-machines/split-job.asl.json).
 */
export class MediaToolError extends Error {
  constructor(
    readonly tool: string,
    message: string,
  ) {
    super(message);
    this.name = 'MediaToolError';
  }
}

/** The tool ran out of its time: too much work for the function, not a fault of the input. */
export class MediaToolTimeout extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MediaToolTimeout';
  }
}

/**
 * The tool could not be started: the deployment's fault (a missing layer, a wrong path). It carries
 * no cause: Node's spawn error lists the arguments, a presigned URL among them, and Lambda's error
 * formatter logs every property of an error it is given.
 */
export class MediaToolUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MediaToolUnavailable';
  }
}

/**
 * Input options that make ffmpeg reconnect, from where it was, when the connection of an http(s)
 * input drops before the end of the object (S3 resets long reads now and then), instead of taking
 * the drop for the end of the input. Three tries within 4 s (ffmpeg waits 0, 1, then 3 s), then
 * it gives up and the run reports readInterrupted: the step fails retryably, and the workflow tries
 * it again later, as a second connection a few seconds on is what mends a dropped one.
 */
export function networkInputOptions(input: string): string[] {
  if (!/^https?:/i.test(input)) return [];
  return ['-reconnect', '1', '-reconnect_streamed', '1', '-reconnect_delay_max', '4'];
}

/**
 * ffmpeg's log settings for runs that read an input over the network: warnings (where a dropped
 * connection shows) with their level, so that the error lines can be told from them.
 */
export const FFMPEG_LOG_OPTIONS = ['-hide_banner', '-nostats', '-loglevel', 'level+warning'] as const;

const RECONNECT_WARNING = /Will reconnect at/;
/**
 * Runs the tool to its end; a spawn failure rejects with MediaToolUnavailable, a non-zero exit is
 * the caller's to judge.
 */
export function runMediaTool(path: string, args: readonly string[], options: MediaToolOptions): Promise<MediaToolRun> {
  const maxStdout = options.maxStdoutBytes ?? DEFAULT_MAX_STDOUT_BYTES;
  const { signal } = options;
  if (signal?.aborted) return Promise.reject(signal.reason as Error);
  return new Promise((resolve, reject) => {
    const env = options.environment ? { ...process.env, ...options.environment } : process.env;
    const child = spawn(path, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
    const abort = () => child.kill('SIGKILL');
    signal?.addEventListener('abort', abort, { once: true });
    let stdoutRest = '';
    let stdout = '';
    let stderrTail = '';
    let stderrRest = '';
    let timedOut = false;
    let readInterrupted = false;
    let overflow = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, options.timeoutMs);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      if (options.collectStdout) {
        stdout += chunk;
        if (stdout.length > maxStdout && !overflow) {
          overflow = true;
          child.kill('SIGKILL');
        }
      }
      if (!options.onStdoutLine) return;
      const lines = (stdoutRest + chunk).split('\n');
      stdoutRest = lines.pop() ?? '';
      for (const line of lines) options.onStdoutLine(line);
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderrTail = (stderrTail + chunk).slice(-STDERR_TAIL_CHARS);
      const lines = (stderrRest + chunk).split('\n');
      stderrRest = lines.pop() ?? '';
      if (lines.some((line) => RECONNECT_WARNING.test(line))) readInterrupted = true;
    });
    child.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', abort);
      reject(new MediaToolUnavailable(`${basename(path)} could not be started (${error.code ?? error.message})`));
    });
    child.on('close', (exitCode) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', abort);
      if (signal?.aborted) {
        reject(signal.reason as Error);
        return;
      }
      if (stdoutRest && options.onStdoutLine) options.onStdoutLine(stdoutRest);
      if (overflow) {
        reject(new MediaToolError(path, `${path} wrote more than ${maxStdout} bytes to stdout`));
        return;
      }
      if (RECONNECT_WARNING.test(stderrRest)) readInterrupted = true;
      resolve({ exitCode, stdout, stderrTail: stderrTail.trim(), timedOut, readInterrupted });
    });
  });
}

/**
 * A path as a filter option value inside a filter graph: escaped once for the option parser
 * (`:` separates options) and again for the graph parser (`,;[]` separate filters).
 */
export function filterGraphPath(path: string): string {
  const optionValue = path.replace(/[\\':]/g, '\\$&');
  return optionValue.replace(/[\\'[\],;]/g, '\\$&');
}

/** The position `-progress pipe:1` reports on an `out_time=HH:MM:SS.micro` line, in seconds. */
export function progressSeconds(line: string): number | undefined {
  const time = /^out_time=(\d+):(\d+):(\d+(?:\.\d+)?)/.exec(line.trim());
  return time ? Number(time[1]) * 3600 + Number(time[2]) * 60 + Number(time[3]) : undefined;
}

/** Text ffmpeg wrote, without its input's name or any URL: a presigned URL is a credential. */
export function withoutInput(text: string, input: string): string {
  return text
    .split(input)
    .join('<source>')
    .replace(/https?:\/\/\S+/g, '<url>');
}

/** The longest part of ffmpeg's last error line a failure's message carries. */
const FAILURE_DETAIL_CHARS = 200;

/**
 * What ffmpeg and ffprobe say when they could not reach an input, or the service behind it failed:
 * a passing condition, unlike an input that does not decode. (They name any 5xx reply `5XX`.)
 */
const NETWORK_FAILURE =
  /Server returned 5XX|Connection refused|Connection reset by peer|Connection timed out|Network is unreachable|Failed to resolve hostname|Failed to reconnect/i;

/** Whether a run that failed could not reach its input, or lost it: worth a second try. */
export function isNetworkFailure(run: MediaToolRun): boolean {
  return run.readInterrupted || NETWORK_FAILURE.test(run.stderrTail);
}

/** ffmpeg's last error line (of a `level+` log, the last one tagged an error), untagged and redacted. */
function lastErrorLine(stderrTail: string, input: string): string {
  const lines = stderrTail.split('\n').filter((line) => line.trim() !== '');
  const errorLine = lines.findLast((line) => /\[(error|fatal|panic)\]/.test(line)) ?? lines.at(-1) ?? '';
  const untagged = errorLine.replace(/\[(trace|debug|verbose|info|warning|error|fatal|panic)\] /, '');
  return withoutInput(untagged, input).slice(0, FAILURE_DETAIL_CHARS);
}

/**
 * Throws when `task` (a run of ffmpeg over `input`) did not run to its end: MediaToolTimeout when
 * it ran out of time, TransientFailure when the input could not be reached or its connection gave
 * up, MediaToolError when the input does not decode; each with ffmpeg's last error line, redacted.
 */
export function assertRanToEnd(run: MediaToolRun, task: string, input: string, timeoutMs: number): void {
  if (run.timedOut) throw new MediaToolTimeout(`${task} timed out after ${timeoutMs} ms`);
  if (run.exitCode === 0) return;
  const detail = lastErrorLine(run.stderrTail, input);
  const message = `${task} failed (exit code ${run.exitCode}): ${detail}`;
  if (isNetworkFailure(run)) throw new TransientFailure(message);
  throw new MediaToolError('ffmpeg', message);
}

/**
 * Throws TransientFailure when a run that failed could not reach its input, or lost it: for the
 * tools whose other failures are an answer (ffprobe: not a media file), not an error.
 */
export function assertInputReached(run: MediaToolRun, task: string): void {
  if (run.exitCode !== 0 && !run.timedOut && isNetworkFailure(run)) {
    throw new TransientFailure(`${task}: the connection to the input failed`);
  }
}

/**
 * Throws TransientFailure when a run that ended short of the end it was asked for (`what`, said
 * by the caller) lost its connection on the way: it stopped where the connection gave up, and a
 * second try reads on. A run that ended short without that ended where its input ends.
 */
export function assertNotCutShort(run: MediaToolRun, what: string): void {
  if (run.readInterrupted) throw new TransientFailure(`${what}: the connection to the input was lost on the way`);
}
