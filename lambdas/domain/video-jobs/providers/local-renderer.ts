import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { log } from '#platform/log';
import { timed } from '#platform/metrics';
import { optionalSetting, choiceSetting, LOCAL_RENDERER_FAULT } from '#platform/settings';
import { mediaToolPath, progressSeconds, runMediaTool } from '#platform/media-tools';
import { captionText, ffmpegArgs, isFilterSafePath, type RenderShape } from './local-renderer-scene';
import { renderFailed, type RenderRequest, type RenderStatus, type StartResult, type VideoProvider } from './port';

/**
 * The local renderer: a real, playable H.264 MP4 made by ffmpeg on this machine, for the local stack
 * and tests. It is not a generative model (see local-renderer-scene.ts for what it draws), but it
 * delivers what the configured model delivers for the same request: a render of the request's
 * length in the request's frame (Ray2's native 9:16, 16:9 or 1:1 at 720p), at the model's frame
 * rate, starting on the request's start image exactly when it has one. So the planning, chaining
 * and finishing that run in AWS run the same way on the local stack and in the tests.
 *
 * For the local stack / a single long-lived process only: `start` spawns ffmpeg in the background
 * and returns at once, and the render's state lives in a module-level Map, so `poll` must run in the
 * same process as `start`. In Lambda both would be lost between invocations; use Bedrock there.
 *
 * Fault injection, for state-machine tests: a prompt containing `[fault:fail]`, `[fault:stall]` or
 * `[fault:crash]`, or the `fault` option, or env `LOCAL_RENDERER_FAULT=fail|stall|crash` (every render):
 * - fail:  ffmpeg runs with a broken filter graph and really exits non-zero; poll returns failed RENDER_FAILED.
 * - stall: nothing runs; poll returns in_progress at 40 forever, so the state machine's deadline expires the job.
 * - crash: poll throws an unexpected Error, for the state machine's catch-all.
 */

export const LOCAL_RENDERER_FAULTS = ['fail', 'stall', 'crash'] as const;
export type LocalRendererFault = (typeof LOCAL_RENDERER_FAULTS)[number];

export interface LocalRendererOptions {
  s3: S3Client;
  /** The frame rate of the model the renderer stands in for (the model registry's `fps`). */
  fps: number;
  /** Defaults to FFMPEG_PATH, which the local stack sets to the ffmpeg it chose (local/media-tools.ts). */
  ffmpegPath?: string;
  /** x264 preset; `veryfast` keeps files small, `ultrafast` is about twice as fast. */
  preset?: string;
  /** Applies to every render; defaults to env LOCAL_RENDERER_FAULT. */
  fault?: LocalRendererFault;
  /** The caption font; `null` turns captions off. Defaults to the first known system font that exists. */
  fontFile?: string | null;
  /** ffmpeg is killed after this long and the render fails. */
  maxRenderMs?: number;
}

const STALLED_PROGRESS = 40;
/** Encoding is measured; the upload after it is not, so it gets the last few points. */
const ENCODING_SHARE = 95;
const UPLOADING_PROGRESS = 97;
const FINISHED_RENDER_RETENTION_MS = 24 * 3600_000;
const FONT_CANDIDATES = [
  '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf',
  '/usr/share/fonts/dejavu/DejaVuSans.ttf',
  '/usr/share/fonts/TTF/DejaVuSans.ttf',
  '/System/Library/Fonts/Supplemental/Arial.ttf',
  '/Library/Fonts/Arial.ttf',
];

interface LocalRender {
  request: RenderRequest;
  fault?: LocalRendererFault;
  progress: number;
  /** Set once, when the render completes or fails. */
  outcome?: RenderStatus;
  finishedAt?: number;
}

/** Every render of this process, by provider job id. */
const renders = new Map<string, LocalRender>();

/** The `localRendererFault` setting: none unless set. */
function faultOfSettings(): LocalRendererFault | undefined {
  return optionalSetting(LOCAL_RENDERER_FAULT) === undefined
    ? undefined
    : choiceSetting(LOCAL_RENDERER_FAULT, LOCAL_RENDERER_FAULTS);
}

function faultInPrompt(prompt: string): LocalRendererFault | undefined {
  return /\[fault:(fail|stall|crash)\]/.exec(prompt)?.[1] as LocalRendererFault | undefined;
}

const drawtextChecks = new Map<string, Promise<boolean>>();

/** Static ffmpeg builds differ: drawtext needs libfreetype. Asked once per binary. */
function hasDrawtext(ffmpegPath: string): Promise<boolean> {
  let check = drawtextChecks.get(ffmpegPath);
  if (!check) {
    check = new Promise((resolve) => {
      const child = spawn(ffmpegPath, ['-hide_banner', '-filters'], { stdio: ['ignore', 'pipe', 'ignore'] });
      let output = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
      child.on('error', () => resolve(false));
      child.on('close', () => resolve(/\sdrawtext\s/.test(output)));
    });
    drawtextChecks.set(ffmpegPath, check);
  }
  return check;
}

export class LocalRenderer implements VideoProvider {
  readonly kind = 'local';
  private readonly s3: S3Client;
  private readonly ffmpegPath: Promise<string>;
  private readonly preset: string;
  private readonly fault?: LocalRendererFault;
  private readonly fontFile?: string;
  private readonly maxRenderMs: number;
  private readonly fps: number;

  constructor(options: LocalRendererOptions) {
    this.s3 = options.s3;
    this.fps = options.fps;
    this.ffmpegPath = Promise.resolve().then(() => options.ffmpegPath ?? mediaToolPath('ffmpeg'));
    // Surfaces in start() when awaited; this only keeps an early rejection from being reported as unhandled.
    this.ffmpegPath.catch(() => {});
    this.preset = options.preset ?? 'veryfast';
    this.fault = options.fault ?? faultOfSettings();
    this.fontFile =
      options.fontFile === null ? undefined : (options.fontFile ?? FONT_CANDIDATES.find((path) => existsSync(path)));
    this.maxRenderMs = options.maxRenderMs ?? 10 * 60_000;
  }

  start(request: RenderRequest): Promise<StartResult> {
    return timed('providerLatency', { Provider: 'local', Operation: 'start-render' }, () => this.startRender(request));
  }

  poll(providerJobId: string): Promise<RenderStatus> {
    return timed('providerLatency', { Provider: 'local', Operation: 'poll-render' }, () =>
      this.pollRender(providerJobId),
    );
  }

  private async startRender(request: RenderRequest): Promise<StartResult> {
    forgetOldRenders();
    // One render per render id: a retried start must not render (and upload) twice.
    const providerJobId = `local-render:${request.renderId}`;
    if (renders.has(providerJobId)) return { state: 'started', providerJobId };

    const ffmpegPath = await this.ffmpegPath;
    const render: LocalRender = { request, fault: faultInPrompt(request.prompt) ?? this.fault, progress: 0 };
    renders.set(providerJobId, render);
    if (render.fault === 'stall') render.progress = STALLED_PROGRESS;
    if (render.fault === 'stall' || render.fault === 'crash') return { state: 'started', providerJobId };

    void this.run(providerJobId, render, ffmpegPath);
    return { state: 'started', providerJobId };
  }

  private async pollRender(providerJobId: string): Promise<RenderStatus> {
    const render = renders.get(providerJobId);
    if (!render)
      throw new Error(
        `Unknown local render ${providerJobId}: the local renderer keeps renders in this process's memory only`,
      );
    if (render.fault === 'crash') throw new Error('Local renderer fault injection: crash');
    return render.outcome ?? { state: 'in_progress', progress: Math.floor(render.progress) };
  }

  /** The whole render, in the background; it never throws, every outcome lands in `render.outcome`. */
  private async run(providerJobId: string, render: LocalRender, ffmpegPath: string): Promise<void> {
    const { request } = render;
    const output: RenderShape = {
      width: request.frame.width,
      height: request.frame.height,
      fps: this.fps,
      durationSeconds: request.renderSeconds,
    };
    const finish = (outcome: RenderStatus) => {
      render.outcome = outcome;
      render.finishedAt = Date.now();
      if (outcome.state === 'completed') render.progress = 100;
    };
    let workDir: string | undefined;
    try {
      workDir = await mkdtemp(join(tmpdir(), 'local-render-'));
      const outputPath = join(workDir, 'output.mp4');

      let imagePath: string | undefined;
      if (request.startImage) {
        imagePath = join(workDir, 'start.jpg');
        await this.download(request.startImage, imagePath);
      }

      // A chained render continues a picture that showed the prompt already.
      const continuesChain = request.startImage?.origin === 'chain';
      let caption: { textFile: string; fontFile: string } | undefined;
      if (
        !continuesChain &&
        this.fontFile &&
        isFilterSafePath(this.fontFile) &&
        isFilterSafePath(workDir) &&
        (await hasDrawtext(ffmpegPath))
      ) {
        caption = { textFile: join(workDir, 'caption.txt'), fontFile: this.fontFile };
        await writeFile(caption.textFile, captionText(request, output, imagePath !== undefined));
      }

      const args = ffmpegArgs({
        request,
        output,
        preset: this.preset,
        outputPath,
        imagePath,
        continuesChain,
        caption,
        breakFilterGraph: render.fault === 'fail',
      });
      const encoded = await runMediaTool(ffmpegPath, args, {
        timeoutMs: this.maxRenderMs,
        onStdoutLine: (line) => {
          const seconds = progressSeconds(line);
          if (seconds === undefined) return;
          render.progress = Math.max(
            render.progress,
            Math.min(ENCODING_SHARE, (seconds / output.durationSeconds) * ENCODING_SHARE),
          );
        },
      });
      if (encoded.exitCode !== 0) {
        log('error', 'Local render: ffmpeg failed', {
          job_id: request.jobId,
          provider_job_id: providerJobId,
          exit_code: encoded.exitCode,
          ffmpeg: encoded.stderrTail,
        });
        return finish(renderFailed('RENDER_FAILED'));
      }

      render.progress = UPLOADING_PROGRESS;
      const body = await readFile(outputPath);
      await this.s3.send(
        new PutObjectCommand({
          Bucket: request.output.bucket,
          Key: request.output.key,
          Body: body,
          ContentType: 'video/mp4',
          ContentLength: body.length,
        }),
      );
      finish({
        state: 'completed',
        output: {
          bucket: request.output.bucket,
          key: request.output.key,
          contentType: 'video/mp4',
          sizeBytes: body.length,
        },
      });
    } catch (error) {
      // A missing start image, an unreachable S3, a missing binary: ours to fix, not the customer's.
      log('error', 'Local render failed', {
        job_id: request.jobId,
        provider_job_id: providerJobId,
        error,
      });
      finish(renderFailed('RENDER_FAILED'));
    } finally {
      if (workDir) await rm(workDir, { recursive: true, force: true }).catch(() => {});
    }
  }

  private async download(source: NonNullable<RenderRequest['startImage']>, path: string): Promise<void> {
    const object = await this.s3.send(new GetObjectCommand({ Bucket: source.bucket, Key: source.key }));
    if (!object.Body) throw new Error(`Start image s3://${source.bucket}/${source.key} has no body`);
    await writeFile(path, await object.Body.transformToByteArray());
  }
}

/** The local stack runs for days; finished renders are only polled for minutes. */
function forgetOldRenders(now = Date.now()): void {
  for (const [id, render] of renders) {
    if (render.finishedAt !== undefined && now - render.finishedAt > FINISHED_RENDER_RETENTION_MS) renders.delete(id);
  }
}
