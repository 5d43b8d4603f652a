import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, open, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  clipEncodingArgs,
  renderClip,
  thumbnailArgs,
  type ClipRenderRequest,
  type RenderedClip,
} from '#domain/split-jobs/clip-rendering';
import { MediaToolError, MediaToolTimeout } from '#platform/media-tools';
import { TransientFailure } from '#platform/task-failures';
import { resolveMediaTool } from '../../local/media-tools';
import { serveCutting } from '../support/range-server';

const run = promisify(execFile);
// Real ffmpeg renders take seconds each; set here because a testTimeout inside Jest `projects` is ignored.
jest.setTimeout(60_000);

type EncodingRequest = Parameters<typeof clipEncodingArgs>[0];

function encodingRequest(overrides: Partial<EncodingRequest> = {}): EncodingRequest {
  return {
    input: 'https://media.example/source.mp4?X-Amz-Signature=secret',
    range: { startSeconds: 12.5, endSeconds: 42.5 },
    aspectRatio: '9:16',
    source: { width: 1280, height: 720, hasAudio: true },
    outputDirectory: '/tmp/clip-1',
    ...overrides,
  };
}

function valueAfter(args: string[], flag: string): string {
  const value = args.includes(flag) ? args[args.indexOf(flag) + 1] : undefined;
  if (value === undefined) throw new Error(`No value after ${flag}`);
  return value;
}

describe('clipEncodingArgs', () => {
  it('seeks in the input and reads only the range, so the cut starts at 0 and is frame-accurate', () => {
    const args = clipEncodingArgs(encodingRequest());
    const input = args.indexOf('-i');
    expect(args.indexOf('-ss')).toBeLessThan(input);
    expect(args.indexOf('-t')).toBeLessThan(input);
    expect(valueAfter(args, '-ss')).toBe('12.500');
    expect(valueAfter(args, '-t')).toBe('30.000');
    expect(valueAfter(args, '-i')).toBe('https://media.example/source.mp4?X-Amz-Signature=secret');
  });

  it('scales a source of the target aspect ratio straight to the target size', () => {
    const args = clipEncodingArgs(encodingRequest({ aspectRatio: '16:9' }));
    expect(valueAfter(args, '-filter_complex')).toBe(
      "[0:v]select='isnan(prev_selected_t)+gte(t-prev_selected_t,0.03125)',scale=1280:720,setsar=1,format=yuv420p[v]",
    );
  });

  it('treats aspect ratios within 2% as the same, and farther ones as different', () => {
    const graphFor = (width: number, height: number) =>
      valueAfter(
        clipEncodingArgs(encodingRequest({ aspectRatio: '16:9', source: { width, height, hasAudio: true } })),
        '-filter_complex',
      );
    // 1920x1066 is 1.3% wider than 16:9, 1920x1036 is 4.3% wider.
    expect(graphFor(1920, 1066)).toContain(',scale=1280:720,');
    expect(graphFor(1920, 1066)).not.toContain('boxblur');
    expect(graphFor(1920, 1036)).toContain('boxblur');
  });

  it('fits a landscape source into a portrait frame between bands of a blurred fill made at an eighth of the size', () => {
    const graph = valueAfter(clipEncodingArgs(encodingRequest()), '-filter_complex');
    // 1280x720 at 720 wide is 720x405, made even: 406, leaving 874 rows, 436 above and 438 below.
    expect(graph.split(';')).toEqual([
      "[0:v]select='isnan(prev_selected_t)+gte(t-prev_selected_t,0.03125)',scale=720:406,setsar=1,split=2[background][fitted]",
      '[background]scale=90:160:force_original_aspect_ratio=increase,crop=90:160,boxblur=10:2,scale=720:1280:flags=fast_bilinear,setsar=1,split=2[fill1][fill2]',
      '[fill1]crop=720:436:0:0[band1]',
      '[fill2]crop=720:438:0:842[band2]',
      '[band1][fitted][band2]vstack=inputs=3,format=yuv420p[v]',
    ]);
  });

  it('fits a portrait source into a landscape or square frame by its height, between bands either side', () => {
    const portrait = { width: 1080, height: 1920, hasAudio: true };
    for (const [aspectRatio, fit, bands, background] of [
      // 720 × 1080 / 1920 = 405, made even: 406; 1280 − 406 = 874 columns, 436 and 438.
      ['16:9', 'scale=406:720', ['crop=436:720:0:0', 'crop=438:720:842:0'], 'crop=160:90'],
      // 720 − 406 = 314 columns, 156 and 158.
      ['1:1', 'scale=406:720', ['crop=156:720:0:0', 'crop=158:720:562:0'], 'crop=90:90'],
    ] as const) {
      const graph = valueAfter(clipEncodingArgs(encodingRequest({ aspectRatio, source: portrait })), '-filter_complex');
      expect(graph).toContain(`,${fit},setsar=1,split=2[background][fitted]`);
      for (const band of bands) expect(graph).toContain(band);
      expect(graph).toContain('hstack=inputs=3');
      expect(graph).toContain(background);
    }
  });

  it('encodes H.264 with the index first, AAC stereo at 48 kHz, and no source metadata', () => {
    const args = clipEncodingArgs(encodingRequest()).join(' ');
    expect(args).toContain(
      '-map [v] -vsync vfr -c:v libx264 -preset veryfast -crf 23 -profile:v high -x264-params me=dia:subme=1:partitions=i8x8,i4x4',
    );
    expect(args).toContain('-map 0:a:0 -c:a aac -b:a 128k -ac 2 -ar 48000');
    expect(args).toContain('-map_metadata -1');
    expect(args).toContain('-movflags +faststart');
    expect(args).toContain('-progress pipe:1');
    expect(args.endsWith(' /tmp/clip-1/clip.mp4')).toBe(true);
  });

  it('maps no audio for a silent source', () => {
    const args = clipEncodingArgs(encodingRequest({ source: { width: 1280, height: 720, hasAudio: false } }));
    expect(args).not.toContain('0:a:0');
    expect(args).not.toContain('-c:a');
  });
});

describe('the threads of a render that shares the cores', () => {
  it('holds the decoder and filters (before the input) and the encoder (before the output) to the share, else leaves them to ffmpeg', () => {
    const shared = clipEncodingArgs(encodingRequest({ threads: 1 }));
    const input = shared.indexOf('-i');
    expect(shared.slice(0, input)).toEqual(expect.arrayContaining(['-filter_complex_threads', '-threads']));
    expect(valueAfter(shared, '-filter_complex_threads')).toBe('1');
    expect(shared.slice(0, input).join(' ')).toContain('-threads 1');
    expect(shared.slice(-3)).toEqual(['-threads', '1', '/tmp/clip-1/clip.mp4']);
    const thumbnail = thumbnailArgs('/tmp/clip.mp4', '/tmp/thumbnail.jpg', 30, 1);
    expect(thumbnail.slice(-3)).toEqual(['-threads', '1', '/tmp/thumbnail.jpg']);
    expect(thumbnail.indexOf('-threads')).toBeLessThan(thumbnail.indexOf('-i'));

    expect(clipEncodingArgs(encodingRequest())).not.toContain('-threads');
    expect(thumbnailArgs('/tmp/clip.mp4', '/tmp/thumbnail.jpg', 30)).not.toContain('-threads');
  });
});

describe('thumbnailArgs', () => {
  it('picks one frame from two seconds around the middle of the clip', () => {
    const args = thumbnailArgs('/tmp/clip-1/clip.mp4', '/tmp/clip-1/thumbnail.jpg', 30);
    expect(args.join(' ')).toContain(
      '-ss 14.000 -t 2.000 -i /tmp/clip-1/clip.mp4 -vf thumbnail=60 -frames:v 1 -q:v 3 /tmp/clip-1/thumbnail.jpg',
    );
  });

  it('starts at 0 for a clip shorter than the span', () => {
    expect(valueAfter(thumbnailArgs('clip.mp4', 'thumbnail.jpg', 1.2), '-ss')).toBe('0.000');
  });
});

/** Top-level ISO BMFF box types in file order. */
async function topLevelBoxes(path: string): Promise<string[]> {
  const file = await open(path, 'r');
  try {
    const { size } = await file.stat();
    const header = Buffer.alloc(16);
    const types: string[] = [];
    for (let offset = 0; offset < size;) {
      await file.read(header, 0, 16, offset);
      const shortSize = header.readUInt32BE(0);
      types.push(header.toString('latin1', 4, 8));
      const boxSize = shortSize === 1 ? Number(header.readBigUInt64BE(8)) : shortSize === 0 ? size - offset : shortSize;
      if (boxSize < 8) throw new Error(`Box of ${boxSize} bytes at ${offset}`);
      offset += boxSize;
    }
    return types;
  } finally {
    await file.close();
  }
}

interface ProbedStream {
  codec_type: string;
  codec_name: string;
  width?: number;
  height?: number;
  channels?: number;
  sample_rate?: string;
}

async function probe(path: string): Promise<{ streams: ProbedStream[]; format: { duration?: string } }> {
  const ffprobe = await resolveMediaTool('ffprobe');
  const { stdout } = await run(ffprobe.path, [
    '-v',
    'error',
    '-print_format',
    'json',
    '-show_streams',
    '-show_format',
    path,
  ]);
  return JSON.parse(stdout) as { streams: ProbedStream[]; format: { duration?: string } };
}

describe('renderClip with the real ffmpeg', () => {
  let workDir: string;
  let ffmpegPath: string;
  let withAudio: string;
  let silent: string;
  let portrait: string;

  async function generateSource(path: string, seconds: number, audio: boolean, size = '640x360') {
    const video = ['-f', 'lavfi', '-i', `testsrc2=size=${size}:rate=30:duration=${seconds}`];
    const sound = audio ? ['-f', 'lavfi', '-i', `sine=frequency=440:sample_rate=48000:duration=${seconds}`] : [];
    await run(ffmpegPath, [
      ...['-hide_banner', '-loglevel', 'error', '-y', ...video, ...sound],
      ...['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', ...(audio ? ['-c:a', 'aac'] : []), path],
    ]);
  }

  async function render(name: string, overrides: Partial<ClipRenderRequest>): Promise<RenderedClip> {
    const outputDirectory = join(workDir, name);
    await mkdir(outputDirectory);
    return renderClip({
      ffmpegPath,
      input: withAudio,
      range: { startSeconds: 3, endSeconds: 9 },
      aspectRatio: '9:16',
      source: { width: 640, height: 360, hasAudio: true },
      outputDirectory,
      timeoutMs: 30_000,
      ...overrides,
    });
  }

  beforeAll(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'clip-rendering-test-'));
    ffmpegPath = (await resolveMediaTool('ffmpeg')).path;
    withAudio = join(workDir, 'with-audio.mp4');
    silent = join(workDir, 'silent.mp4');
    portrait = join(workDir, 'portrait.mp4');
    await Promise.all([
      generateSource(withAudio, 12, true),
      generateSource(silent, 4, false),
      generateSource(portrait, 3, false, '360x640'),
    ]);
  });

  afterAll(async () => {
    await rm(workDir, { recursive: true, force: true });
  });

  it.each([
    ['9:16', 720, 1280],
    ['1:1', 720, 720],
  ] as const)(
    'renders six seconds to %s: H.264 and AAC, exact size, index first, a JPEG thumbnail',
    async (aspectRatio, width, height) => {
      const progress: number[] = [];
      const rendered = await render(aspectRatio.replace(':', 'x'), {
        aspectRatio,
        onProgress: (fraction) => progress.push(fraction),
      });

      expect(rendered.durationSeconds).toBe(6);
      const { streams, format } = await probe(rendered.videoPath);
      const video = streams.find((stream) => stream.codec_type === 'video');
      const audio = streams.find((stream) => stream.codec_type === 'audio');
      expect(video).toMatchObject({ codec_name: 'h264', width, height });
      expect(audio).toMatchObject({ codec_name: 'aac', channels: 2, sample_rate: '48000' });
      expect(Math.abs(Number(format.duration) - 6)).toBeLessThanOrEqual(0.1);

      const boxes = await topLevelBoxes(rendered.videoPath);
      expect(boxes.indexOf('moov')).toBeGreaterThanOrEqual(0);
      expect(boxes.indexOf('moov')).toBeLessThan(boxes.indexOf('mdat'));
      expect(boxes).not.toContain('moof');

      const thumbnail = await readFile(rendered.thumbnailPath);
      expect([...thumbnail.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
      expect((await probe(rendered.thumbnailPath)).streams[0]).toMatchObject({ codec_name: 'mjpeg', width, height });

      expect(progress.length).toBeGreaterThan(0);
      expect(progress.every((fraction, index) => fraction >= (progress[index - 1] ?? 0) && fraction <= 1)).toBe(true);
      expect(progress.at(-1)).toBeGreaterThan(0.95);
    },
  );

  it('renders a source without sound to a clip without an audio stream', async () => {
    const rendered = await render('silent', {
      input: silent,
      range: { startSeconds: 1, endSeconds: 3 },
      aspectRatio: '16:9',
      source: { width: 640, height: 360, hasAudio: false },
    });
    const { streams } = await probe(rendered.videoPath);
    expect(streams.map((stream) => stream.codec_type)).toEqual(['video']);
    expect(streams[0]).toMatchObject({ codec_name: 'h264', width: 1280, height: 720 });
    expect(rendered.durationSeconds).toBe(2);
  });

  it('renders a portrait source to a landscape frame of the exact size', async () => {
    const rendered = await render('portrait', {
      input: portrait,
      range: { startSeconds: 0, endSeconds: 2 },
      aspectRatio: '16:9',
      source: { width: 360, height: 640, hasAudio: false },
    });
    const { streams } = await probe(rendered.videoPath);
    expect(streams[0]).toMatchObject({ codec_name: 'h264', width: 1280, height: 720 });
  });

  it('renders with every ffmpeg held to one thread, as when clips share the cores', async () => {
    const rendered = await render('one-thread', {
      input: silent,
      range: { startSeconds: 1, endSeconds: 3 },
      aspectRatio: '16:9',
      source: { width: 640, height: 360, hasAudio: false },
      threads: 1,
    });
    const { streams } = await probe(rendered.videoPath);
    expect(streams[0]).toMatchObject({ codec_name: 'h264', width: 1280, height: 720 });
    expect(rendered.durationSeconds).toBe(2);
    expect((await probe(rendered.thumbnailPath)).streams[0]).toMatchObject({ width: 1280, height: 720 });
  });

  it('reports the encoded length when the source ends inside the range', async () => {
    const rendered = await render('past-the-end', {
      input: silent,
      range: { startSeconds: 2, endSeconds: 10 },
      aspectRatio: '16:9',
      source: { width: 640, height: 360, hasAudio: false },
    });
    expect(rendered.durationSeconds).toBeGreaterThan(1.8);
    expect(rendered.durationSeconds).toBeLessThan(2.1);
  });

  it('fails retryably, without the presigned URL, when the source cannot be reached', async () => {
    const input = 'http://127.0.0.1:9/source.mp4?X-Amz-Signature=very-secret';
    const failure = await render('unreachable', { input }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TransientFailure);
    expect((failure as Error).message).toMatch(/^Rendering the clip failed/);
    expect((failure as Error).message).not.toContain('very-secret');
    expect((failure as Error).message).not.toContain('127.0.0.1');
  });

  it('fails with a MediaToolError when the source does not decode', async () => {
    const garbage = join(workDir, 'garbage.mp4');
    await writeFile(garbage, Buffer.alloc(64 * 1024, 7));
    await expect(render('garbage', { input: garbage })).rejects.toBeInstanceOf(MediaToolError);
  });

  it('fails with MediaToolTimeout when ffmpeg runs out of time', async () => {
    await expect(render('slow', { timeoutMs: 1 })).rejects.toThrow(
      new MediaToolTimeout('Rendering the clip timed out after 1 ms'),
    );
  });

  describe('over a connection that drops', () => {
    let faststart: string;

    beforeAll(async () => {
      faststart = join(workDir, 'faststart.mp4');
      await run(ffmpegPath, ['-v', 'error', '-i', withAudio, '-c', 'copy', '-movflags', '+faststart', faststart]);
    });

    it('reconnects where it dropped and renders the whole clip', async () => {
      const server = await serveCutting(faststart, { cutAtFraction: 0.4, cut: 'once' });
      try {
        const rendered = await render('reconnected', { input: server.url });
        expect(server.cuts()).toBe(1);
        expect(rendered.durationSeconds).toBe(6);
        const { format } = await probe(rendered.videoPath);
        expect(Math.abs(Number(format.duration) - 6)).toBeLessThanOrEqual(0.1);
      } finally {
        await server.close();
      }
    });

    it('fails retryably, not as a shorter clip, when the connection cannot be regained', async () => {
      const server = await serveCutting(faststart, { cutAtFraction: 0.4, cut: 'always' });
      try {
        const failure = await render('cut-short', { input: server.url }).catch((error: unknown) => error);
        expect(failure).toBeInstanceOf(TransientFailure);
        expect((failure as Error).message).not.toContain('secret-signature');
      } finally {
        await server.close();
      }
    });
  });
});
