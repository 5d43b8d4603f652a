import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import fc from 'fast-check';
import { SUBJECT_SAMPLE_RATE } from '#domain/framing/subject-window';
import {
  analyseSegment,
  analysisSegments,
  MIN_SCENE_CUT_GAP_SECONDS,
  mergeSegmentAnalyses,
  parseMetadataPrint,
  progressListener,
  segmentAnalysisFromMetadata,
} from '#domain/split-jobs/analysis';
import {
  ANALYSIS_WINDOW_SECONDS,
  LOUDNESS_FLOOR_DB,
  SILENCE_THRESHOLD_DB,
  type SegmentAnalysis,
  type SourceAnalysis,
  type TimeRange,
} from '#domain/split-jobs/source-analysis';
import { MediaToolError, MediaToolTimeout, MediaToolUnavailable } from '#platform/media-tools';
import { TransientFailure } from '#platform/task-failures';
import { serveCutting } from '../support/range-server';
import { resolveMediaTool } from '../../local/media-tools';

const round3 = (seconds: number) => Math.round(seconds * 1000) / 1000;

/** What `metadata=print` / `ametadata=print` write for frames at the given times, one key each. */
const printed = (key: string, frames: [number, string][]) =>
  frames
    .map(([time, value], frame) => `frame:${frame}    pts:${frame}       pts_time:${time}\n${key}=${value}\n`)
    .join('');

const SCENE = 'lavfi.scene_score';
const RMS = 'lavfi.astats.Overall.RMS_level';

/** `count` frames `step` seconds apart from `from`, each with the value given for its time. */
const frames = (from: number, count: number, step: number, value: (time: number) => string): [number, string][] =>
  Array.from({ length: count }, (_, index) => {
    const time = round3(from + index * step);
    return [time, value(time)];
  });

describe('metadata print parsing', () => {
  it('reads the value of the key for each frame, at the frame time, with -inf for digital silence', () => {
    const text = [
      'frame:0    pts:0       pts_time:0',
      'lavfi.astats.Overall.RMS_level=-23.5',
      'frame:1    pts:800     pts_time:0.1',
      'lavfi.astats.Overall.RMS_level=-inf',
      'lavfi.astats.Overall.Peak_level=-3.0',
      'frame:2    pts:1600    pts_time:0.2',
      'lavfi.astats.Overall.Peak_level=-3.0',
      'frame:3    pts:2400    pts_time:0.3',
      'lavfi.astats.Overall.RMS_level=nan',
      'frame:4    pts:3200    pts_time:0.4',
      'lavfi.astats.Overall.RMS_level=-12',
      '',
    ].join('\n');
    expect(parseMetadataPrint(text, RMS)).toEqual([
      { timeSeconds: 0, value: -23.5 },
      { timeSeconds: 0.1, value: -Infinity },
      { timeSeconds: 0.4, value: -12 },
    ]);
  });

  it('ignores values printed before any frame line', () => {
    expect(parseMetadataPrint(`${SCENE}=0.9\n${printed(SCENE, [[1.5, '0.25']])}`, SCENE)).toEqual([
      { timeSeconds: 1.5, value: 0.25 },
    ]);
  });
});

describe('a segment analysis from printed metadata', () => {
  const range: TimeRange = { startSeconds: 100, endSeconds: 106 };
  // 10 frames a second; cuts at 2.0 and 2.5 (too close: one cut) and at 4.0.
  const sceneText = printed(
    SCENE,
    frames(0, 60, 0.1, (time) => ([2, 2.5, 4].includes(time) ? '0.8' : time >= 3 && time < 3.5 ? '0.2' : '0.01')),
  );
  // Tone at -20 dB, silent over [1.0, 1.5) (five steps, a silence) and [3.0, 3.2) (two steps, a pause).
  const loudnessText = printed(
    RMS,
    frames(0, 60, 0.1, (time) => ((time >= 1 && time < 1.5) || (time >= 3 && time < 3.2) ? '-inf' : '-20')),
  );
  const analysis = segmentAnalysisFromMetadata({ range, hasAudio: true, sceneText, loudnessText });

  it('places cuts in source time, one per burst of high scores', () => {
    expect(analysis.sceneCuts).toEqual([102, 104]);
  });

  it('finds silences of at least the minimum length, in source time, to the loudness step', () => {
    expect(analysis.silences).toEqual([{ startSeconds: 101, endSeconds: 101.5 }]);
  });

  it('averages loudness steps per window as power, with silence at the floor', () => {
    expect(analysis.loudnessDb).toHaveLength(6 / ANALYSIS_WINDOW_SECONDS);
    expect(analysis.loudnessDb[0]).toBeCloseTo(-20, 3);
    expect(analysis.loudnessDb[2]).toBe(LOUDNESS_FLOOR_DB);
    // [3.0, 3.5): two silent steps of five leave 3/5 of the power: −20 + 10·log10(0.6).
    expect(analysis.loudnessDb[6]).toBeCloseTo(-22.218, 3);
  });

  it('gives each window the mean scene score of its frames', () => {
    expect(analysis.motion[0]).toBeCloseTo(0.01, 3);
    expect(analysis.motion[4]).toBeCloseTo((0.8 + 4 * 0.01) / 5, 3);
    expect(analysis.motion[6]).toBeCloseTo(0.2, 3);
  });

  it('has floor loudness and no silences without audio, whatever was printed', () => {
    const silent = segmentAnalysisFromMetadata({ range, hasAudio: false, sceneText, loudnessText });
    expect(silent.loudnessDb).toEqual(new Array(12).fill(LOUDNESS_FLOOR_DB));
    expect(silent.silences).toEqual([]);
    expect(silent.sceneCuts).toEqual([102, 104]);
  });

  it('gives a partial last window its own value', () => {
    const partial = segmentAnalysisFromMetadata({
      range: { startSeconds: 0, endSeconds: 1.2 },
      hasAudio: true,
      sceneText: printed(
        SCENE,
        frames(0, 12, 0.1, () => '0.1'),
      ),
      loudnessText: printed(
        RMS,
        frames(0, 12, 0.1, () => '-30'),
      ),
    });
    expect(partial.loudnessDb).toHaveLength(3);
    expect(partial.loudnessDb[2]).toBeCloseTo(-30, 3);
    expect(partial.motion).toEqual([0.1, 0.1, 0.1]);
  });
});

describe('progress', () => {
  it('reports growing seconds analysed, never past the range', () => {
    const reported: number[] = [];
    const listen = progressListener(30, (seconds) => reported.push(seconds));
    for (const line of [
      'frame=10',
      'out_time=00:00:05.000000',
      'out_time=00:00:04.000000',
      'out_time=N/A',
      'out_time=00:00:12.500000',
      'out_time=00:00:31.000000',
      'progress=end',
    ]) {
      listen(line);
    }
    expect(reported).toEqual([5, 12.5, 30]);
  });
});

describe('analysis segments', () => {
  const durations = fc.integer({ min: 1, max: 6 * 3600 * 1000 }).map((milliseconds) => milliseconds / 1000);
  const maxima = fc.integer({ min: 1, max: 3600 });

  it('cover the source with consecutive ranges, each at most the maximum and starting on the window grid', () => {
    fc.assert(
      fc.property(durations, maxima, (duration, maxSegment) => {
        const segments = analysisSegments(duration, maxSegment);
        expect(segments[0]!.startSeconds).toBe(0);
        expect(segments.at(-1)!.endSeconds).toBe(duration);
        const misfits = segments.filter(
          (segment, index) =>
            !(
              segment.endSeconds > segment.startSeconds &&
              segment.endSeconds - segment.startSeconds <= maxSegment &&
              Number.isInteger(segment.startSeconds / ANALYSIS_WINDOW_SECONDS) &&
              (index === 0 || segment.startSeconds === segments[index - 1]!.endSeconds)
            ),
        );
        expect(misfits).toEqual([]);
      }),
    );
  });

  it('are as few as the maximum allows and differ by at most one window', () => {
    fc.assert(
      fc.property(durations, maxima, (duration, maxSegment) => {
        const segments = analysisSegments(duration, maxSegment);
        const windows = Math.ceil(duration / ANALYSIS_WINDOW_SECONDS);
        expect(segments).toHaveLength(Math.ceil(windows / Math.floor(maxSegment / ANALYSIS_WINDOW_SECONDS)));
        const full = segments.slice(0, -1).map((segment) => segment.endSeconds - segment.startSeconds);
        const spread = full.length > 0 ? Math.max(...full) - Math.min(...full) : 0;
        expect(spread).toBeLessThanOrEqual(ANALYSIS_WINDOW_SECONDS);
      }),
    );
  });

  it('are none for an empty source', () => {
    expect(analysisSegments(0, 600)).toEqual([]);
  });
});

/** The part of a whole-source analysis a segment analysis of `range` would report. */
function slice(source: SourceAnalysis, range: TimeRange): SegmentAnalysis {
  const first = range.startSeconds / ANALYSIS_WINDOW_SECONDS;
  const end = Math.ceil(range.endSeconds / ANALYSIS_WINDOW_SECONDS);
  const inRange = (seconds: number) => seconds >= range.startSeconds && seconds < range.endSeconds;
  return {
    ...range,
    loudnessDb: source.loudnessDb.slice(first, end),
    motion: source.motion.slice(first, end),
    sceneCuts: source.sceneCuts.filter(inRange),
    silences: source.silences
      .filter((silence) => silence.startSeconds < range.endSeconds && silence.endSeconds > range.startSeconds)
      .map((silence) => ({
        startSeconds: Math.max(silence.startSeconds, range.startSeconds),
        endSeconds: Math.min(silence.endSeconds, range.endSeconds),
      })),
    hasAudio: source.hasAudio,
    decodedEndSeconds: range.endSeconds,
  };
}

const sources: fc.Arbitrary<SourceAnalysis> = fc.integer({ min: 1_000, max: 2 * 3600 * 1000 }).chain((milliseconds) => {
  const durationSeconds = milliseconds / 1000;
  const windows = Math.ceil(durationSeconds / ANALYSIS_WINDOW_SECONDS);
  const times = fc.array(fc.integer({ min: 0, max: milliseconds - 1 }), { maxLength: 100 });
  return fc.record({
    durationSeconds: fc.constant(durationSeconds),
    loudnessDb: fc.constant(Array.from({ length: windows }, (_, index) => -20 - (index % 50))),
    motion: fc.constant(Array.from({ length: windows }, (_, index) => (index % 10) / 10)),
    sceneCuts: times.map((cuts) =>
      [...new Set(cuts.map((at) => Math.floor(at / 1000 / MIN_SCENE_CUT_GAP_SECONDS)))]
        .sort((a, b) => a - b)
        .map((slot) => slot * MIN_SCENE_CUT_GAP_SECONDS),
    ),
    // Silences at least 0.25 s apart: closer ones at a seam would be joined, as a real seam blurs them.
    silences: times.map((edges) => {
      const sorted = [...new Set(edges.map((at) => Math.floor(at / 250) * 250))].sort((a, b) => a - b);
      return sorted
        .flatMap((at, index) => (index % 2 === 0 && sorted[index + 1] !== undefined ? [[at, sorted[index + 1]!]] : []))
        .map(([start, end]) => ({ startSeconds: start! / 1000, endSeconds: end! / 1000 }));
    }),
    hasAudio: fc.boolean(),
  });
});

describe('merging segment analyses', () => {
  it('gives back the whole-source analysis from its segments, silences joined across seams', () => {
    fc.assert(
      fc.property(sources, fc.integer({ min: 10, max: 600 }), (source, maxSegment) => {
        const segments = analysisSegments(source.durationSeconds, maxSegment).map((range) => slice(source, range));
        expect(mergeSegmentAnalyses(segments)).toEqual(source);
      }),
      { numRuns: 25 },
    );
  });

  it('keeps one of two cuts found either side of a seam', () => {
    const [first, second] = analysisSegments(20, 10).map((range): SegmentAnalysis => ({
      ...range,
      loudnessDb: new Array(20).fill(-20),
      motion: new Array(20).fill(0),
      sceneCuts: [],
      silences: [],
      hasAudio: true,
      decodedEndSeconds: range.endSeconds,
    }));
    const merged = mergeSegmentAnalyses([
      { ...first!, sceneCuts: [3, 9.9] },
      { ...second!, sceneCuts: [10.3, 15] },
    ]);
    expect(merged.sceneCuts).toEqual([3, 9.9, 15]);
    expect(merged.durationSeconds).toBe(20);
  });

  it('ends the source where the last segment that decoded anything stops', () => {
    fc.assert(
      fc.property(
        sources,
        fc.integer({ min: 10, max: 600 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (source, maxSegment, stopFraction) => {
          const ranges = analysisSegments(source.durationSeconds, maxSegment);
          const stopsAt = Math.round(source.durationSeconds * stopFraction * 0.999 * 1000) / 1000;
          const stopping = ranges.findIndex((range) => range.endSeconds > stopsAt);
          const segments = ranges.map((range, index) => ({
            ...slice(source, range),
            decodedEndSeconds:
              index < stopping
                ? range.endSeconds
                : index === stopping
                  ? Math.max(stopsAt, range.startSeconds)
                  : range.startSeconds,
          }));

          const merged = mergeSegmentAnalyses(segments);

          const durationSeconds = Math.max(stopsAt, ranges[stopping]!.startSeconds);
          expect(merged.durationSeconds).toBe(durationSeconds);
          expect(merged.loudnessDb).toHaveLength(Math.ceil(durationSeconds / ANALYSIS_WINDOW_SECONDS - 1e-6));
          expect(merged.motion).toHaveLength(merged.loudnessDb.length);
          expect(merged.sceneCuts.every((cut) => cut < durationSeconds)).toBe(true);
          expect(merged.silences.every((silence) => silence.endSeconds <= durationSeconds)).toBe(true);
        },
      ),
    );
  });

  it('takes a segment that stopped short, with a later one decoding, for a pause in the picture', () => {
    fc.assert(
      fc.property(sources, fc.integer({ min: 10, max: 600 }), fc.nat(), (source, maxSegment, pick) => {
        const ranges = analysisSegments(source.durationSeconds, maxSegment);
        fc.pre(ranges.length > 1);
        const paused = pick % (ranges.length - 1);
        const segments = ranges.map((range, index) => ({
          ...slice(source, range),
          decodedEndSeconds: index === paused ? (range.startSeconds + range.endSeconds) / 2 : range.endSeconds,
        }));

        expect(mergeSegmentAnalyses(segments)).toEqual(source);
      }),
    );
  });

  it('refuses segments that leave a gap, overlap or are out of order', () => {
    const segment = (startSeconds: number, endSeconds: number): SegmentAnalysis => ({
      startSeconds,
      endSeconds,
      loudnessDb: [],
      motion: [],
      sceneCuts: [],
      silences: [],
      hasAudio: false,
      decodedEndSeconds: endSeconds,
    });
    expect(() => mergeSegmentAnalyses([segment(0, 10), segment(10.5, 20)])).toThrow(RangeError);
    expect(() => mergeSegmentAnalyses([segment(0, 10), segment(9.5, 20)])).toThrow(RangeError);
    expect(() => mergeSegmentAnalyses([segment(10, 20), segment(0, 10)])).toThrow(RangeError);
    expect(() => mergeSegmentAnalyses([segment(0, 10.2), segment(10.2, 20)])).toThrow(RangeError);
    expect(() => mergeSegmentAnalyses([])).toThrow(RangeError);
  });
});

describe('analysing a real video with ffmpeg', () => {
  const CUTS = [8, 15, 23, 31];
  const SILENCES: TimeRange[] = [
    { startSeconds: 5, endSeconds: 7 },
    { startSeconds: 20, endSeconds: 23.5 },
    { startSeconds: 33, endSeconds: 34 },
  ];
  const TOLERANCE_SECONDS = 0.3;
  let directory: string;
  let ffmpegPath: string;
  let withAudio: string;
  let withoutAudio: string;

  beforeAll(async () => {
    ffmpegPath = (await resolveMediaTool('ffmpeg')).path;
    directory = await mkdtemp(join(tmpdir(), 'source-analysis-test-'));
    withAudio = join(directory, 'scenes.mp4');
    withoutAudio = join(directory, 'scenes-silent.mp4');
    const colours = ['red', 'blue', 'green', 'white', 'magenta'];
    const shotEnds = [...CUTS, 40];
    const shots = colours.map(
      (colour, index) =>
        `color=c=${colour}:s=640x360:r=25:d=${shotEnds[index]! - (shotEnds[index - 1] ?? 0)}[v${index}]`,
    );
    const muted = SILENCES.map(({ startSeconds, endSeconds }) => `between(t\\,${startSeconds}\\,${endSeconds})`).join(
      '+',
    );
    const graph = [
      ...shots,
      `${colours.map((_, index) => `[v${index}]`).join('')}concat=n=${colours.length}:v=1:a=0[video]`,
      `sine=frequency=440:sample_rate=48000:duration=40,volume=enable=${muted}:volume=0[audio]`,
    ].join(';');
    const encode = ['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p'];
    const run = promisify(execFile);
    await run(ffmpegPath, [
      '-v',
      'error',
      '-filter_complex',
      graph,
      '-map',
      '[video]',
      '-map',
      '[audio]',
      ...encode,
      '-c:a',
      'aac',
      withAudio,
    ]);
    await run(ffmpegPath, ['-v', 'error', '-i', withAudio, '-map', '0:v', '-c', 'copy', withoutAudio]);
  });

  afterAll(async () => {
    if (directory) await rm(directory, { recursive: true, force: true });
  });

  const expectNear = (found: number[], expected: number[]) => {
    expect(found).toHaveLength(expected.length);
    found.forEach((seconds, index) =>
      expect(Math.abs(seconds - expected[index]!)).toBeLessThanOrEqual(TOLERANCE_SECONDS),
    );
  };
  const edges = (silences: TimeRange[]) => silences.flatMap((silence) => [silence.startSeconds, silence.endSeconds]);

  it('finds every cut and every silence edge of the whole source, and reports progress to its end', async () => {
    const progress: number[] = [];
    const analysis = await analyseSegment({
      ffmpegPath,
      input: withAudio,
      range: { startSeconds: 0, endSeconds: 40 },
      hasAudio: true,
      timeoutMs: 30_000,
      onProgress: (seconds) => progress.push(seconds),
    });
    expectNear(analysis.sceneCuts, CUTS);
    expectNear(edges(analysis.silences), edges(SILENCES));
    expect(analysis.loudnessDb).toHaveLength(80);
    expect(analysis.loudnessDb[2 / ANALYSIS_WINDOW_SECONDS]).toBeGreaterThan(SILENCE_THRESHOLD_DB);
    expect(analysis.loudnessDb[6 / ANALYSIS_WINDOW_SECONDS]).toBeLessThan(SILENCE_THRESHOLD_DB);
    expect(analysis.motion[15 / ANALYSIS_WINDOW_SECONDS]).toBeGreaterThan(0.1);
    expect(analysis.motion[12 / ANALYSIS_WINDOW_SECONDS]).toBeLessThan(0.01);
    expect(progress.at(-1)).toBe(40);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
  });

  it('reports a range that starts later in source time', async () => {
    const analysis = await analyseSegment({
      ffmpegPath,
      input: withAudio,
      range: { startSeconds: 12, endSeconds: 40 },
      hasAudio: true,
      timeoutMs: 30_000,
    });
    expect(analysis).toMatchObject({ startSeconds: 12, endSeconds: 40 });
    expectNear(analysis.sceneCuts, [15, 23, 31]);
    expectNear(edges(analysis.silences), [20, 23.5, 33, 34]);
    expect(analysis.loudnessDb).toHaveLength(56);
    expect(analysis.loudnessDb[(21 - 12) / ANALYSIS_WINDOW_SECONDS]).toBeLessThan(SILENCE_THRESHOLD_DB);
  });

  it('finds the same with its decoder and filters held to one thread, as when steps share the cores', async () => {
    const options = { ffmpegPath, input: withAudio, range: { startSeconds: 12, endSeconds: 40 }, hasAudio: true };
    const [own, shared] = await Promise.all([
      analyseSegment({ ...options, timeoutMs: 30_000 }),
      analyseSegment({ ...options, timeoutMs: 30_000, threads: 1 }),
    ]);
    expect(shared).toEqual(own);
  });

  it('samples frames for framing SUBJECT_SAMPLE_RATE times a second from the range start, the analysis unchanged', async () => {
    const path = join(directory, 'subject-frames.rgb');
    const range = { startSeconds: 12, endSeconds: 40 };
    const options = { ffmpegPath, input: withAudio, range, hasAudio: true, timeoutMs: 30_000 };
    const sampled = await analyseSegment({ ...options, subjectFrames: { path, width: 64, height: 36 } });
    expect(sampled).toEqual(await analyseSegment(options));
    const frameBytes = 64 * 36 * 3;
    const rgb = await readFile(path);
    expect(rgb.length % frameBytes).toBe(0);
    expect(Math.abs(rgb.length / frameBytes - 28 * SUBJECT_SAMPLE_RATE)).toBeLessThanOrEqual(1);
    // Shots: blue from 8 s, green from 15 s, white from 23 s, magenta from 31 s.
    const shotColour = (seconds: number) =>
      seconds < 15 ? 'blue' : seconds < 23 ? 'green' : seconds < 31 ? 'white' : 'magenta';
    const colourOf = (frame: number) => {
      const p = frame * frameBytes + (18 * 64 + 32) * 3;
      const [r, g, b] = [rgb[p]!, rgb[p + 1]!, rgb[p + 2]!].map((value) => value > 96);
      return r && g && b ? 'white' : r && b ? 'magenta' : g ? 'green' : b ? 'blue' : 'other';
    };
    for (let frame = 0; frame < 28 * SUBJECT_SAMPLE_RATE; frame += 1) {
      const seconds = range.startSeconds + frame / SUBJECT_SAMPLE_RATE;
      if (CUTS.some((cut) => Math.abs(cut - seconds) < TOLERANCE_SECONDS)) continue;
      expect({ seconds, colour: colourOf(frame) }).toEqual({ seconds, colour: shotColour(seconds) });
    }
  });

  it('analyses the picture of a source without audio', async () => {
    const analysis = await analyseSegment({
      ffmpegPath,
      input: withoutAudio,
      range: { startSeconds: 0, endSeconds: 40 },
      hasAudio: false,
      timeoutMs: 30_000,
    });
    expectNear(analysis.sceneCuts, CUTS);
    expect(analysis.silences).toEqual([]);
    expect(analysis.loudnessDb).toEqual(new Array(80).fill(LOUDNESS_FLOOR_DB));
  });

  it('finds the cut and the motion of a moving source whose B-frames the decoder skips', async () => {
    // x264 veryfast puts B-frames no other frame refers to between the others: the analysis does
    // not decode those, and must neither miss the cut nor see one in the steady motion.
    const moving = join(directory, 'moving-b-frames.mp4');
    const run = promisify(execFile);
    await run(ffmpegPath, [
      ...['-v', 'error', '-f', 'lavfi', '-i', 'testsrc2=s=640x360:r=25:d=8'],
      ...['-f', 'lavfi', '-i', 'color=c=blue:s=640x360:r=25:d=4'],
      ...['-filter_complex', '[0:v][1:v]concat=n=2:v=1:a=0[video]', '-map', '[video]'],
      ...['-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p', moving],
    ]);
    const { stdout } = await run((await resolveMediaTool('ffprobe')).path, [
      ...['-v', 'error', '-select_streams', 'v', '-show_entries', 'frame=pict_type', '-of', 'csv=p=0', moving],
    ]);
    expect(stdout.split('\n')).toContain('B');

    const analysis = await analyseSegment({
      ffmpegPath,
      input: moving,
      range: { startSeconds: 0, endSeconds: 12 },
      hasAudio: false,
      timeoutMs: 30_000,
    });
    expectNear(analysis.sceneCuts, [8]);
    expect(analysis.decodedEndSeconds).toBe(12);
    const movingWindows = analysis.motion.slice(0, 8 / ANALYSIS_WINDOW_SECONDS);
    expect(movingWindows.every((motion) => motion > 0)).toBe(true);
    expect(analysis.motion.slice(9 / ANALYSIS_WINDOW_SECONDS).every((motion) => motion < 0.01)).toBe(true);
  });

  it('finds a cut between shots of the same brightness and other colours, and scores its motion', async () => {
    // Red and 0x008200 have the same luma (76 of 255 in BT.601): only their colours tell the shots apart.
    const sameLuma = join(directory, 'same-luma.mp4');
    await promisify(execFile)(ffmpegPath, [
      ...['-v', 'error', '-f', 'lavfi', '-i', 'color=c=red:s=640x360:r=25:d=2'],
      ...['-f', 'lavfi', '-i', 'color=c=0x008200:s=640x360:r=25:d=2'],
      ...['-filter_complex', '[0:v][1:v]concat=n=2:v=1:a=0[video]', '-map', '[video]'],
      ...['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', sameLuma],
    ]);

    const analysis = await analyseSegment({
      ffmpegPath,
      input: sameLuma,
      range: { startSeconds: 0, endSeconds: 4 },
      hasAudio: false,
      timeoutMs: 30_000,
    });

    expectNear(analysis.sceneCuts, [2]);
    expect(analysis.motion[2 / ANALYSIS_WINDOW_SECONDS]).toBeGreaterThan(0.1);
  });

  it('says where the picture of a truncated file stops, though its header claims the whole length', async () => {
    // The index at the front, as a phone or an encoder with faststart writes it: the header survives the cut.
    const faststart = join(directory, 'faststart.mp4');
    await promisify(execFile)(ffmpegPath, [
      '-v',
      'error',
      '-i',
      withAudio,
      '-c',
      'copy',
      '-movflags',
      '+faststart',
      faststart,
    ]);
    const whole = await readFile(faststart);
    const truncated = join(directory, 'truncated.mp4');
    await writeFile(truncated, whole.subarray(0, Math.floor(whole.length / 4)));

    const analysis = await analyseSegment({
      ffmpegPath,
      input: truncated,
      range: { startSeconds: 0, endSeconds: 40 },
      hasAudio: true,
      timeoutMs: 30_000,
    });

    expect(analysis.endSeconds).toBe(40);
    expect(analysis.decodedEndSeconds).toBeGreaterThan(1);
    expect(analysis.decodedEndSeconds).toBeLessThan(30);
    const full = await analyseSegment({
      ffmpegPath,
      input: withAudio,
      range: { startSeconds: 0, endSeconds: 40 },
      hasAudio: true,
      timeoutMs: 30_000,
    });
    expect(full.decodedEndSeconds).toBe(40);
  });

  it('fails with a MediaToolError, naming the range, when the source does not decode', async () => {
    const garbage = join(directory, 'garbage.mp4');
    await writeFile(garbage, Buffer.alloc(64 * 1024, 7));
    const error = await analyseSegment({
      ffmpegPath,
      input: garbage,
      range: { startSeconds: 0, endSeconds: 10 },
      hasAudio: true,
      timeoutMs: 10_000,
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MediaToolError);
    expect((error as Error).message).toContain('0–10 s');
  });

  it('fails retryably, without the presigned URL, when the source cannot be reached', async () => {
    const input = 'http://127.0.0.1:9/source.mp4?X-Amz-Signature=secret-signature';
    const error = await analyseSegment({
      ffmpegPath,
      input,
      range: { startSeconds: 0, endSeconds: 10 },
      hasAudio: true,
      timeoutMs: 10_000,
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TransientFailure);
    expect((error as Error).message).not.toContain('secret-signature');
    expect((error as Error).message).toContain('0–10 s');
  });

  it('fails with MediaToolTimeout, not as an unreadable source, when ffmpeg runs out of time', async () => {
    const error = await analyseSegment({
      ffmpegPath,
      input: withAudio,
      range: { startSeconds: 0, endSeconds: 40 },
      hasAudio: true,
      timeoutMs: 1,
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MediaToolTimeout);
  });

  it('fails with MediaToolUnavailable, its message free of the arguments, when ffmpeg cannot start', async () => {
    const input = 'http://127.0.0.1:9/source.mp4?X-Amz-Signature=secret-signature';
    const error = await analyseSegment({
      ffmpegPath: join(directory, 'no-ffmpeg-here'),
      input,
      range: { startSeconds: 0, endSeconds: 10 },
      hasAudio: true,
      timeoutMs: 10_000,
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MediaToolUnavailable);
    expect(JSON.stringify(error, Object.getOwnPropertyNames(error))).not.toContain('X-Amz-Signature');
  });
});

describe('analysing sources whose picture is sparse', () => {
  let directory: string;
  let ffmpegPath: string;
  const run = promisify(execFile);

  beforeAll(async () => {
    ffmpegPath = (await resolveMediaTool('ffmpeg')).path;
    directory = await mkdtemp(join(tmpdir(), 'sparse-picture-test-'));
  });

  afterAll(async () => {
    if (directory) await rm(directory, { recursive: true, force: true });
  });

  const analyse = (input: string, range: TimeRange, hasAudio: boolean) =>
    analyseSegment({ ffmpegPath, input, range, hasAudio, timeoutMs: 60_000 });

  it('analyses a podcast of one still frame a second, with sound throughout, to the end of every segment', async () => {
    const podcast = join(directory, 'podcast.mp4');
    await run(ffmpegPath, [
      ...['-v', 'error', '-f', 'lavfi', '-i', 'testsrc2=size=1280x720:rate=1:duration=40'],
      ...['-f', 'lavfi', '-i', 'sine=frequency=220:duration=40'],
      ...['-c:v', 'libx264', '-preset', 'ultrafast', '-tune', 'stillimage', '-c:a', 'aac', podcast],
    ]);

    const segments = await Promise.all(analysisSegments(40, 20).map((range) => analyse(podcast, range, true)));

    expect(segments.map((segment) => segment.decodedEndSeconds)).toEqual([20, 40]);
    expect(mergeSegmentAnalyses(segments).durationSeconds).toBe(40);
  });

  it('analyses a silent screen recording whose picture pauses across a segment boundary to its end', async () => {
    // Frames only where the screen changes: none from 17 s to 23 s, as a screen recorder writes a still screen.
    const recording = join(directory, 'screen.mp4');
    await run(ffmpegPath, [
      ...['-v', 'error', '-f', 'lavfi', '-i', 'testsrc2=size=640x360:rate=15:duration=40'],
      ...['-vf', "select='not(between(t,17,23))'", '-vsync', 'vfr'],
      ...['-c:v', 'libx264', '-preset', 'ultrafast', recording],
    ]);

    const segments = await Promise.all(analysisSegments(40, 20).map((range) => analyse(recording, range, false)));

    expect(segments[0]!.decodedEndSeconds).toBeLessThan(18);
    expect(segments[1]!.decodedEndSeconds).toBe(40);
    expect(mergeSegmentAnalyses(segments).durationSeconds).toBe(40);
  });
});

describe('analysing a source read over a connection that drops', () => {
  let directory: string;
  let ffmpegPath: string;
  let source: string;

  beforeAll(async () => {
    ffmpegPath = (await resolveMediaTool('ffmpeg')).path;
    directory = await mkdtemp(join(tmpdir(), 'dropped-connection-test-'));
    source = join(directory, 'talk.mp4');
    // A minute of moving picture and sound, its index first as uploads usually have it.
    await promisify(execFile)(ffmpegPath, [
      ...['-v', 'error', '-f', 'lavfi', '-i', 'testsrc2=size=640x360:rate=25:duration=60'],
      ...['-f', 'lavfi', '-i', 'sine=frequency=440:duration=60'],
      ...['-c:v', 'libx264', '-preset', 'ultrafast', '-c:a', 'aac', '-movflags', '+faststart', source],
    ]);
  });

  afterAll(async () => {
    if (directory) await rm(directory, { recursive: true, force: true });
  });

  const analyse = (input: string) =>
    analyseSegment({
      ffmpegPath,
      input,
      range: { startSeconds: 0, endSeconds: 60 },
      hasAudio: true,
      timeoutMs: 60_000,
    });

  it('reconnects where the connection dropped and analyses the whole range', async () => {
    const server = await serveCutting(source, { cutAtFraction: 0.4, cut: 'once' });
    try {
      const analysis = await analyse(server.url);
      expect(server.cuts()).toBe(1);
      expect(analysis.decodedEndSeconds).toBe(60);
    } finally {
      await server.close();
    }
  });

  it('fails retryably, not as a shorter source, when the connection cannot be regained', async () => {
    const server = await serveCutting(source, { cutAtFraction: 0.4, cut: 'always' });
    try {
      const error = await analyse(server.url).catch((caught: unknown) => caught);
      expect(server.cuts()).toBeGreaterThan(1);
      expect(error).toBeInstanceOf(TransientFailure);
      expect((error as Error).message).not.toContain('secret-signature');
    } finally {
      await server.close();
    }
  });
});
