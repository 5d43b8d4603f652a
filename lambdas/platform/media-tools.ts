import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { requiredSetting, FFMPEG_PATH, FFPROBE_PATH, type Setting } from './settings';

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
}

const STDERR_TAIL_CHARS = 4000;
const DEFAULT_MAX_STDOUT_BYTES = 16 * 1024 * 1024;

export class MediaToolError extends Error {
  constructor(
    readonly tool: string,
    message: string,
  ) {
    super(message);
    this.name = 'MediaToolError';
  }
}

/** Runs the tool to its end; a spawn failure rejects, a non-zero exit is the caller's to judge. */
export function runMediaTool(path: string, args: readonly string[], options: MediaToolOptions): Promise<MediaToolRun> {
  const maxStdout = options.maxStdoutBytes ?? DEFAULT_MAX_STDOUT_BYTES;
  return new Promise((resolve, reject) => {
    const env = options.environment ? { ...process.env, ...options.environment } : process.env;
    const child = spawn(path, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
    let stdoutRest = '';
    let stdout = '';
    let stderrTail = '';
    let timedOut = false;
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
    });
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (exitCode) => {
      clearTimeout(timer);
      if (stdoutRest && options.onStdoutLine) options.onStdoutLine(stdoutRest);
      if (overflow) {
        reject(new MediaToolError(path, `${path} wrote more than ${maxStdout} bytes to stdout`));
        return;
      }
      resolve({ exitCode, stdout, stderrTail: stderrTail.trim(), timedOut });
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
 * Throws MediaToolError when `task` (a run of ffmpeg over `input`) timed out or exited non-zero,
 * with ffmpeg's last error line, redacted.
 */
export function assertRanToEnd(run: MediaToolRun, task: string, input: string, timeoutMs: number): void {
  if (run.timedOut) throw new MediaToolError('ffmpeg', `${task} timed out after ${timeoutMs} ms`);
  if (run.exitCode !== 0) {
    const lastLine = withoutInput(run.stderrTail.split('\n').at(-1) ?? '', input).slice(0, FAILURE_DETAIL_CHARS);
    throw new MediaToolError('ffmpeg', `${task} failed (exit code ${run.exitCode}): ${lastLine}`);
  }
}
