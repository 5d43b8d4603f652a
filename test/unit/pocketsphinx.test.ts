import { mkdtemp, readdir, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { GetObjectCommand, NoSuchKey, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import fc from 'fast-check';
import {
  parseWordLine,
  sentencesOf,
  SENTENCE_PAUSE_SECONDS,
  type RecognizedWord,
} from '#domain/split-jobs/transcription/pocketsphinx-output';
import {
  englishModelOf,
  partCount,
  Pocketsphinx,
  quietestPoint,
  wavDataOffset,
  wavHeader,
  type ToolRunner,
} from '#domain/split-jobs/transcription/pocketsphinx';
import {
  TRANSCRIPTION_FAILED_MESSAGE,
  type TranscriptionRequest,
  type TranscriptionStatus,
} from '#domain/split-jobs/transcription/port';
import type { MediaToolOptions, MediaToolRun } from '#platform/media-tools';
import { deferred } from './support/deferred';

/** What pocketsphinx_continuous printed for a flite voice saying two sentences, three seconds apart. */
const RECOGNIZER_OUTPUT = `welcome to the video tour
<s> 0.060 0.120 0.999600
welcome 0.130 0.640 0.958098
to 0.650 0.850 0.999800
the 0.860 0.940 0.999700
video 0.950 1.450 0.999700
tour 1.460 2.130 0.509167
</s> 2.140 2.800 1.000000
i think the weather is warm
<s> 5.600 5.680 1.000000
i 5.690 5.920 0.900674
think(2) 5.930 6.290 0.215504
<sil> 6.300 6.400 0.770181
the 6.410 6.720 0.162625
[NOISE] 6.730 6.800 0.411724
weather 6.810 7.100 0.179730
is 7.110 7.300 0.063139
warm 7.310 7.700 0.906367
</s> 7.710 7.900 1.000200
`;

const word = (text: string, startSeconds: number, endSeconds: number): RecognizedWord => ({
  text,
  startSeconds,
  endSeconds,
});

describe('parseWordLine', () => {
  it('keeps the spoken words of the recognizer’s output with their times, without fillers or pronunciation marks', () => {
    const words = RECOGNIZER_OUTPUT.split('\n').flatMap((line) => parseWordLine(line) ?? []);
    expect(words).toEqual([
      word('welcome', 0.13, 0.64),
      word('to', 0.65, 0.85),
      word('the', 0.86, 0.94),
      word('video', 0.95, 1.45),
      word('tour', 1.46, 2.13),
      word('i', 5.69, 5.92),
      word('think', 5.93, 6.29),
      word('the', 6.41, 6.72),
      word('weather', 6.81, 7.1),
      word('is', 7.11, 7.3),
      word('warm', 7.31, 7.7),
    ]);
  });

  it.each([
    ['a hypothesis of four words', 'go to the park'],
    ['an empty line', ''],
    ['a word without its confidence', 'hello 0.1 0.2'],
    ['a word ending before it starts', 'hello 0.5 0.2 0.9'],
    ['negative times', 'hello -0.5 0.2 0.9'],
    ['times that are not numbers', 'hello a b 0.9'],
    ['a filler in angle brackets', '<sil> 0.1 0.2 0.9'],
    ['a filler in square brackets', '[SPEECH] 0.1 0.2 0.9'],
    ['an older model’s filler', '++BREATH++ 0.1 0.2 0.9'],
    ['a pronunciation mark alone', '(2) 0.1 0.2 0.9'],
  ])('finds no word in %s', (_case, line) => {
    expect(parseWordLine(line)).toBeUndefined();
  });

  it('reads tabs and surrounding blanks as separators, and a confidence above 1 as the recognizer prints it', () => {
    expect(parseWordLine('  water\t12.650 12.970\t1.000200 ')).toEqual(word('water', 12.65, 12.97));
  });

  it('never throws, and whatever it finds is a timed word that is no filler and carries no pronunciation mark', () => {
    const fields = fc.oneof(fc.string(), fc.stringMatching(/^\d{1,3}\.\d{3}$/), fc.constantFrom('<s>', '[NOISE]'));
    const lines = fc.oneof(
      fc.string({ maxLength: 60 }),
      fc.array(fields, { minLength: 1, maxLength: 5 }).map((parts) => parts.join(' ')),
    );
    fc.assert(
      fc.property(lines, (line) => {
        const found = parseWordLine(line);
        if (!found) return;
        expect(found.text).toMatch(/^\S+$/);
        expect(found.text).not.toMatch(/^(<.*>|\[.*\]|\+\+.*\+\+)$|\(\d+\)$/);
        expect(Number.isFinite(found.startSeconds) && Number.isFinite(found.endSeconds)).toBe(true);
        expect(0 <= found.startSeconds && found.startSeconds <= found.endSeconds).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });

  it('reads any word line as printed: the word without its pronunciation mark, and its times', () => {
    const wordLine = fc.record({
      text: fc.stringMatching(/^[a-z'][a-z'.-]{0,15}$/),
      variant: fc.option(fc.integer({ min: 2, max: 9 }), { nil: undefined }),
      start: fc.integer({ min: 0, max: 3 * 3600 * 1000 }),
      length: fc.integer({ min: 0, max: 5000 }),
      confidence: fc.double({ min: 0, max: 1.01, noNaN: true }),
    });
    fc.assert(
      fc.property(wordLine, ({ text, variant, start, length, confidence }) => {
        const token = variant === undefined ? text : `${text}(${variant})`;
        const line = `${token} ${(start / 1000).toFixed(3)} ${((start + length) / 1000).toFixed(3)} ${confidence.toFixed(6)}`;
        expect(parseWordLine(line)).toEqual(word(text, start / 1000, (start + length) / 1000));
      }),
      { numRuns: 500 },
    );
  });
});

describe('sentencesOf', () => {
  it('ends a sentence at each pause of half a second and at the end, capitalizing what starts one and the pronoun I', () => {
    const words = RECOGNIZER_OUTPUT.split('\n').flatMap((line) => parseWordLine(line) ?? []);
    expect(
      sentencesOf(words)
        .map((spoken) => spoken.text)
        .join(' '),
    ).toBe('Welcome to the video tour. I think the weather is warm.');
  });

  it('keeps a pause shorter than half a second inside the sentence, and "I’m" and "I’d" capitalized there', () => {
    const words = [word('so', 0, 0.2), word("i'm", 0.6, 0.8), word('sure', 0.9, 1.2), word("i'd", 1.3, 1.5)];
    expect(sentencesOf(words).map((spoken) => spoken.text)).toEqual(['So', "I'm", 'sure', "I'd."]);
  });

  it('adds no second full stop to a word that has one of its own', () => {
    expect(sentencesOf([word('at', 0, 0.2), word('p.m.', 0.3, 0.8)]).map((spoken) => spoken.text)).toEqual([
      'At',
      'p.m.',
    ]);
  });

  it('ends no sentence on a word that leaves it open, unless the speaker stops for RUN_ON_PAUSE_SECONDS', () => {
    const words = [
      word('prices', 0, 0.4),
      word('did', 0.45, 0.6),
      word('not', 0.65, 0.8),
      word('go', 0.85, 1),
      word('up', 1.05, 1.2),
      word('in', 1.8, 1.9),
      word('fact', 1.95, 2.2),
      word('they', 2.8, 3),
      word('fell', 3.05, 3.3),
      word('and', 3.35, 3.45),
      word('then', 5, 5.2),
    ];
    expect(sentencesOf(words).map((spoken) => spoken.text)).toEqual([
      'Prices',
      'did',
      'not',
      'go',
      'up.',
      'In',
      'fact',
      'they',
      'fell',
      'and.',
      'Then.',
    ]);
  });

  it('ends a sentence that opens as a question with a question mark', () => {
    const words = [word('why', 0, 0.2), word('did', 0.25, 0.4), word('it', 0.45, 0.5), word('fail', 0.55, 0.9)];
    expect(sentencesOf(words).map((spoken) => spoken.text)).toEqual(['Why', 'did', 'it', 'fail?']);
  });

  it('keeps every word and its times, and ends one sentence per pause after a word that ends a thought, plus the last', () => {
    const spokenWords = fc
      .array(
        fc.record({
          // Words of letters "b" to "z" and the apostrophe: no article, conjunction or question word among them.
          text: fc.stringMatching(/^[xyz][b-z']{2,8}$/),
          gap: fc.integer({ min: 0, max: 2000 }),
          length: fc.integer({ min: 10, max: 900 }),
        }),
        { maxLength: 40 },
      )
      .map((specs) => {
        let at = 0;
        return specs.map(({ text, gap, length }) => {
          at += gap;
          const spoken = word(text, at / 1000, (at + length) / 1000);
          at += length;
          return spoken;
        });
      });
    fc.assert(
      fc.property(spokenWords, (words) => {
        const sentences = sentencesOf(words);
        expect(sentences.map(({ startSeconds, endSeconds }) => ({ startSeconds, endSeconds }))).toEqual(
          words.map(({ startSeconds, endSeconds }) => ({ startSeconds, endSeconds })),
        );
        expect(sentences.map((spoken) => spoken.text.replace(/[.?]$/, '').toLowerCase())).toEqual(
          words.map((spoken) => spoken.text),
        );
        const pauses = words
          .slice(1)
          .filter((next, index) => next.startSeconds - words[index]!.endSeconds >= SENTENCE_PAUSE_SECONDS).length;
        const ends = sentences.filter((spoken) => spoken.text.endsWith('.')).length;
        expect(ends).toBe(words.length === 0 ? 0 : pauses + 1);
      }),
      { numRuns: 300 },
    );
  });
});

const s3Mock = mockClient(S3Client);
const RECOGNIZER_PATH = '/opt/speech/bin/pocketsphinx_continuous';
const FFMPEG_PATH = '/opt/media/ffmpeg';
const OUTPUT_KEY = 'work/7/split_job_01/transcribe-output.json';

function request(overrides: Partial<TranscriptionRequest> = {}): TranscriptionRequest {
  return {
    jobId: 'split_job_01',
    source: { bucket: 'media', key: 'assets/7/asset_01/original', contentType: 'video/mp4' },
    output: { bucket: 'media', key: OUTPUT_KEY },
    ...overrides,
  };
}

/** The bucket as S3 would keep it: what the adapter puts, it gets back; anything else is NoSuchKey. */
let stored: Map<string, string>;

/** Where the adapters make their work directories while this file runs: each must be gone at its end. */
let workDirectory: string;

beforeAll(async () => {
  process.env.LOG_LEVEL = 'silent';
  workDirectory = await mkdtemp(join(tmpdir(), 'pocketsphinx-test-'));
});

afterAll(async () => {
  delete process.env.LOG_LEVEL;
  const left = await readdir(workDirectory);
  await rm(workDirectory, { recursive: true, force: true });
  if (left.length > 0) throw new Error(`Transcriptions left their work directories behind: ${left.join(', ')}`);
});

beforeEach(() => {
  s3Mock.reset();
  stored = new Map();
  s3Mock.on(PutObjectCommand).callsFake((input: { Key: string; Body: string }) => {
    stored.set(input.Key, input.Body);
    return {};
  });
  s3Mock.on(GetObjectCommand).callsFake((input: { Key: string }) => {
    const body = stored.get(input.Key);
    if (body === undefined) throw new NoSuchKey({ message: 'The specified key does not exist.', $metadata: {} });
    return { Body: { transformToString: async () => body } };
  });
});

interface ToolCall {
  path: string;
  args: readonly string[];
}

/**
 * ffmpeg and the recognizer, faked: ffmpeg writes a WAV file of `audioSeconds` of silence (sparse
 * zeros) where it is told, the recognizer prints RECOGNIZER_OUTPUT once `recognizerMayEnd` (when
 * given) resolves.
 */
function fakeTools(
  options: {
    audioSeconds?: number;
    ffmpeg?: Partial<MediaToolRun>;
    recognizer?: Partial<MediaToolRun>;
    recognizerMayEnd?: Promise<void>;
  } = {},
) {
  const calls: ToolCall[] = [];
  const run: ToolRunner = async (path, args, toolOptions: MediaToolOptions) => {
    calls.push({ path, args });
    const ran = { exitCode: 0, stdout: '', stderrTail: '', timedOut: false, readInterrupted: false };
    if (path === FFMPEG_PATH) {
      const samples = (options.audioSeconds ?? 8) * 16_000;
      await writeFile(args.at(-1)!, wavHeader(samples));
      await truncate(args.at(-1)!, 44 + 2 * samples);
      return { ...ran, ...options.ffmpeg };
    }
    await options.recognizerMayEnd;
    for (const line of RECOGNIZER_OUTPUT.split('\n')) toolOptions.onStdoutLine?.(line);
    return { ...ran, ...options.recognizer };
  };
  return { run, calls, recognitions: () => calls.filter((call) => call.path === RECOGNIZER_PATH).length };
}

function provider(runTool: ToolRunner, maxConcurrent = 2, parts = 1) {
  return new Pocketsphinx({
    s3: new S3Client({
      region: 'us-east-1',
      credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' },
    }),
    recognizerPath: RECOGNIZER_PATH,
    ffmpegPath: FFMPEG_PATH,
    runTool,
    maxConcurrent,
    parts,
    workDirectory,
  });
}

/** Polls until the transcription is no longer in progress. */
async function outcomeOf(adapter: Pocketsphinx, transcriptionId: string): Promise<TranscriptionStatus> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const status = await adapter.poll(transcriptionId);
    if (status.state !== 'in_progress') return status;
    await sleep(5);
  }
  throw new Error(`Transcription ${transcriptionId} never ended`);
}

async function startedId(adapter: Pocketsphinx, overrides: Partial<TranscriptionRequest> = {}): Promise<string> {
  const started = await adapter.start(request(overrides));
  if (started.state !== 'started') throw new Error(`The transcription did not start: ${started.state}`);
  return started.transcriptionId;
}

/** Every line written to the console while `work` runs, at the info level. */
async function consoleDuring(work: () => Promise<unknown>): Promise<string> {
  const level = process.env.LOG_LEVEL;
  process.env.LOG_LEVEL = 'info';
  const lines: string[] = [];
  const spies = [jest.spyOn(console, 'log'), jest.spyOn(console, 'error')].map((spy) =>
    spy.mockImplementation((line: string) => void lines.push(line)),
  );
  try {
    await work();
  } finally {
    spies.forEach((spy) => spy.mockRestore());
    if (level === undefined) delete process.env.LOG_LEVEL;
    else process.env.LOG_LEVEL = level;
  }
  return lines.join('\n');
}

const EXPECTED_TRANSCRIPT = {
  language: 'en-US',
  words: [
    word('Welcome', 0.13, 0.64),
    word('to', 0.65, 0.85),
    word('the', 0.86, 0.94),
    word('video', 0.95, 1.45),
    word('tour.', 1.46, 2.13),
    word('I', 5.69, 5.92),
    word('think', 5.93, 6.29),
    word('the', 6.41, 6.72),
    word('weather', 6.81, 7.1),
    word('is', 7.11, 7.3),
    word('warm.', 7.31, 7.7),
  ],
};

describe('Pocketsphinx: start and poll', () => {
  it('starts in the background, is in progress while the recognizer runs, then completes with the transcript', async () => {
    const recognizerMayEnd = deferred();
    const tools = fakeTools({ recognizerMayEnd: recognizerMayEnd.promise });
    const adapter = provider(tools.run);
    const transcriptionId = await startedId(adapter);
    expect(transcriptionId).toMatch(/^pocketsphinx:/);
    await expect(adapter.poll(transcriptionId)).resolves.toEqual({ state: 'in_progress' });
    recognizerMayEnd.resolve();
    await expect(outcomeOf(adapter, transcriptionId)).resolves.toEqual({
      state: 'completed',
      transcript: EXPECTED_TRANSCRIPT,
    });
    expect(JSON.parse(stored.get(OUTPUT_KEY)!)).toEqual({ state: 'completed', transcript: EXPECTED_TRANSCRIPT });
  });

  it('asks to be polled every 2 seconds: it answers in seconds, not minutes', () => {
    expect(provider(fakeTools().run).pollSeconds).toBe(2);
  });

  it('answers the same job with the same transcription, started once', async () => {
    const recognizerMayEnd = deferred();
    const tools = fakeTools({ recognizerMayEnd: recognizerMayEnd.promise });
    const adapter = provider(tools.run);
    const first = await startedId(adapter);
    const again = await startedId(adapter);
    expect(again).toBe(first);
    const other = await startedId(adapter, { jobId: 'split_job_02', output: { bucket: 'media', key: 'other' } });
    expect(other).not.toBe(first);
    recognizerMayEnd.resolve();
    await outcomeOf(adapter, first);
    await outcomeOf(adapter, other);
    expect(tools.recognitions()).toBe(2);
  });

  it('takes the audio out through a presigned URL of the source, as 16 kHz mono 16-bit WAV, and runs the English model beside the recognizer', async () => {
    const tools = fakeTools();
    const adapter = provider(tools.run);
    await outcomeOf(adapter, await startedId(adapter));
    const [ffmpeg, recognizer] = tools.calls;
    const input = new URL(ffmpeg!.args[ffmpeg!.args.indexOf('-i') + 1]!);
    expect(`${input.host}${input.pathname}`).toBe('media.s3.us-east-1.amazonaws.com/assets/7/asset_01/original');
    expect(input.searchParams.get('X-Amz-Signature')).toBeTruthy();
    expect(ffmpeg!.args.join(' ')).toContain('-vn -sn -dn -ac 1 -ar 16000 -c:a pcm_s16le -f wav');
    const audioPath = ffmpeg!.args.at(-1);
    const model = englishModelOf(RECOGNIZER_PATH);
    expect(recognizer).toEqual({
      path: RECOGNIZER_PATH,
      args: [
        ...['-infile', audioPath, '-time', 'yes'],
        ...['-hmm', model.acousticModelDir, '-lm', model.languageModel, '-dict', model.dictionary],
        ...['-ds', '2', '-topn', '2', '-maxwpf', '5', '-maxhmmpf', '3000', '-pl_window', '10'],
      ],
    });
    expect(model).toEqual({
      acousticModelDir: '/opt/speech/share/pocketsphinx/model/en-us/en-us',
      languageModel: '/opt/speech/share/pocketsphinx/model/en-us/en-us.lm.bin',
      dictionary: '/opt/speech/share/pocketsphinx/model/en-us/cmudict-en-us.dict',
    });
  });

  it.each([undefined, 'en', 'EN-gb', 'en-US'])('transcribes a source whose language is %p', async (language) => {
    const adapter = provider(fakeTools().run);
    await expect(outcomeOf(adapter, await startedId(adapter, { language }))).resolves.toMatchObject({
      state: 'completed',
    });
  });

  it.each(['fr', 'pt-BR', 'eng'])('has no transcription for a source in %p, and runs nothing', async (language) => {
    const tools = fakeTools();
    await expect(provider(tools.run).start(request({ language }))).resolves.toEqual({ state: 'unavailable' });
    expect(tools.calls).toEqual([]);
  });

  it('runs at most its number of transcriptions at once; the others wait their turn', async () => {
    const recognizerMayEnd = deferred();
    const tools = fakeTools({ recognizerMayEnd: recognizerMayEnd.promise });
    const recognizing = deferred();
    const adapter = provider(async (path, args, options) => {
      if (path === RECOGNIZER_PATH) recognizing.resolve();
      return tools.run(path, args, options);
    }, 1);
    const first = await startedId(adapter);
    const second = await startedId(adapter, { jobId: 'split_job_02', output: { bucket: 'media', key: 'second' } });
    await recognizing.promise;
    await sleep(20);
    expect(tools.calls.map((call) => call.path)).toEqual([FFMPEG_PATH, RECOGNIZER_PATH]);
    await expect(adapter.poll(second)).resolves.toEqual({ state: 'in_progress' });
    recognizerMayEnd.resolve();
    await expect(outcomeOf(adapter, first)).resolves.toMatchObject({ state: 'completed' });
    await expect(outcomeOf(adapter, second)).resolves.toMatchObject({ state: 'completed' });
    expect(tools.recognitions()).toBe(2);
  });

  it('refuses to poll an id it did not make', async () => {
    const adapter = provider(fakeTools().run);
    await expect(adapter.poll('split_job_01')).rejects.toThrow('is not a transcription of the local recognizer');
    await expect(adapter.poll('pocketsphinx:bm90IGpzb24')).rejects.toThrow('is not a transcription');
  });
});

describe('Pocketsphinx: failures', () => {
  it('fails with the generic message when ffmpeg cannot take the audio out, its reason in the log', async () => {
    const tools = fakeTools({ ffmpeg: { exitCode: 1, stderrTail: 'Output file #0 does not contain any stream' } });
    const adapter = provider(tools.run);
    const transcriptionId = await startedId(adapter);
    const written = await consoleDuring(async () => {
      await expect(outcomeOf(adapter, transcriptionId)).resolves.toEqual({
        state: 'failed',
        message: TRANSCRIPTION_FAILED_MESSAGE,
      });
    });
    expect(written).toContain('The local recognizer failed the transcription');
    expect(written).toContain('Taking the audio out of the source failed (exit code 1): Output file #0');
    expect(JSON.parse(stored.get(OUTPUT_KEY)!)).toMatchObject({ state: 'failed' });
    expect(tools.recognitions()).toBe(0);
  });

  it('keeps a presigned URL that ffmpeg prints in its error out of the log and the output', async () => {
    let url = '';
    const tools: ToolRunner = async (path, args) => {
      url = args[args.indexOf('-i') + 1]!;
      return {
        exitCode: 1,
        stdout: '',
        stderrTail: `${url}: Server returned 403 Forbidden`,
        timedOut: false,
        readInterrupted: false,
      };
    };
    const adapter = provider(tools);
    const written = await consoleDuring(async () => outcomeOf(adapter, await startedId(adapter)));
    expect(url).toContain('X-Amz-Signature');
    expect(written).toContain('<source>: Server returned 403 Forbidden');
    expect(`${written}${stored.get(OUTPUT_KEY)}`).not.toContain('X-Amz-Signature');
  });

  it.each([
    ['exits non-zero', { exitCode: 1, stderrTail: 'ERROR: "acmod.c", line 83: Folder does not exist' }, 'exit code 1'],
    ['is killed at its timeout', { exitCode: null, timedOut: true }, 'timed out after 120000 ms'],
  ])('fails the transcription when the recognizer %s, its reason in the log', async (_case, recognizer, reason) => {
    const adapter = provider(fakeTools({ recognizer }).run);
    const transcriptionId = await startedId(adapter);
    const written = await consoleDuring(async () => {
      await expect(outcomeOf(adapter, transcriptionId)).resolves.toEqual({
        state: 'failed',
        message: TRANSCRIPTION_FAILED_MESSAGE,
      });
    });
    expect(written).toContain(reason);
  });

  it.each([
    [30, 120_000],
    [1800, 1_800_000],
    [3 * 3600, 3_600_000],
  ])(
    'gives the recognizer of %p s of audio %p ms: as long as the audio lasts, at least 2 minutes, at most the hour the workflow waits',
    async (audioSeconds, timeoutMs) => {
      const timeouts: number[] = [];
      const tools = fakeTools({ audioSeconds });
      const recording: ToolRunner = async (path, args, options) => {
        if (path === RECOGNIZER_PATH) timeouts.push(options.timeoutMs);
        return tools.run(path, args, options);
      };
      const adapter = provider(recording);
      await outcomeOf(adapter, await startedId(adapter));
      expect(timeouts).toEqual([timeoutMs]);
    },
  );
});

describe('Pocketsphinx: long audio in parts', () => {
  it('cuts audio of a minute or more per core into that many parts, and shorter audio into fewer', () => {
    expect(partCount(59 * 16_000, 4)).toBe(1);
    expect(partCount(150 * 16_000, 4)).toBe(2);
    expect(partCount(600 * 16_000, 2)).toBe(2);
    expect(partCount(600 * 16_000, 1)).toBe(1);
  });

  it('cuts at the quietest moment near the even split: a pause between words', () => {
    const rate = 16_000;
    const speech = Int16Array.from({ length: 20 * rate }, (_, index) => {
      const seconds = index / rate;
      const paused = seconds >= 13.2 && seconds < 13.7;
      return paused ? 0 : Math.round(8000 * Math.sin((2 * Math.PI * 220 * index) / rate));
    });
    const point = quietestPoint(speech, 0.3 * rate) / rate;
    expect(point).toBeGreaterThan(13.2);
    expect(point).toBeLessThan(13.7);
  });

  it('reads the samples of a WAV file after its data chunk header, wherever the chunk starts', () => {
    expect(wavDataOffset(wavHeader(100))).toBe(44);
    const list = Buffer.from('LIST\x04\x00\x00\x00abcd', 'latin1');
    const withList = Buffer.concat([wavHeader(100).subarray(0, 36), list, wavHeader(100).subarray(36)]);
    expect(wavDataOffset(withList)).toBe(44 + list.length);
    expect(() => wavDataOffset(Buffer.from('ID3 not a wav file'))).toThrow('not a WAV file');
  });

  it('recognizes the parts side by side and puts their words at their times in the whole audio', async () => {
    const tools = fakeTools({ audioSeconds: 150 });
    const adapter = provider(tools.run, 1, 2);
    const outcome = await outcomeOf(adapter, await startedId(adapter));
    const recognizers = tools.calls.filter((call) => call.path === RECOGNIZER_PATH);
    expect(recognizers.map((call) => call.args[1])).toEqual([
      expect.stringMatching(/part-0\.wav$/),
      expect.stringMatching(/part-1\.wav$/),
    ]);
    // Silence throughout: the cut falls at the start of the search around the middle, 75 s less 10 s.
    const words = outcome.state === 'completed' ? outcome.transcript.words : [];
    expect(words.map((word) => word.startSeconds)).toEqual([
      ...EXPECTED_TRANSCRIPT.words.map((word) => word.startSeconds),
      ...EXPECTED_TRANSCRIPT.words.map((word) => Math.round((word.startSeconds + 65.15) * 1000) / 1000),
    ]);
  });
});

describe('Pocketsphinx: after a restart of the local stack', () => {
  it('answers a transcription that ended before the restart from its output, running nothing', async () => {
    const before = provider(fakeTools().run);
    const transcriptionId = await startedId(before);
    await outcomeOf(before, transcriptionId);
    const tools = fakeTools();
    await expect(provider(tools.run).poll(transcriptionId)).resolves.toEqual({
      state: 'completed',
      transcript: EXPECTED_TRANSCRIPT,
    });
    expect(tools.calls).toEqual([]);
  });

  it('starts a transcription that the restart cut short again when it is polled, and completes it', async () => {
    const killed = deferred();
    const cutShort = provider(fakeTools({ recognizerMayEnd: killed.promise, recognizer: { exitCode: null } }).run);
    const transcriptionId = await startedId(cutShort);
    const tools = fakeTools();
    const after = provider(tools.run);
    await expect(after.poll(transcriptionId)).resolves.toEqual({ state: 'in_progress' });
    await expect(outcomeOf(after, transcriptionId)).resolves.toMatchObject({ state: 'completed' });
    expect(tools.recognitions()).toBe(1);
    // The process of the stack before the restart ends, as the recognizer it ran is killed.
    killed.resolve();
    await outcomeOf(cutShort, transcriptionId);
  });

  it('starts again on the next poll when the outcome could not be stored', async () => {
    s3Mock
      .on(PutObjectCommand)
      .rejectsOnce(new Error('connection reset'))
      .callsFake((input) => {
        stored.set(input.Key, input.Body);
        return {};
      });
    const tools = fakeTools();
    const adapter = provider(tools.run);
    const transcriptionId = await startedId(adapter);
    await expect(outcomeOf(adapter, transcriptionId)).resolves.toMatchObject({ state: 'completed' });
    expect(tools.recognitions()).toBe(2);
  });
});

describe('Pocketsphinx: when its job ends', () => {
  it('does not start a transcription whose job ended while it waited its turn, and fails it', async () => {
    const recognizerMayEnd = deferred();
    const tools = fakeTools({ recognizerMayEnd: recognizerMayEnd.promise });
    const adapter = provider(tools.run, 1);
    let secondWanted = true;
    const first = await startedId(adapter);
    const second = await startedId(adapter, {
      jobId: 'split_job_02',
      output: { bucket: 'media', key: 'work/7/split_job_02/transcribe-output.json' },
      stillWanted: async () => secondWanted,
    });

    secondWanted = false;
    recognizerMayEnd.resolve();

    await expect(outcomeOf(adapter, first)).resolves.toMatchObject({ state: 'completed' });
    await expect(outcomeOf(adapter, second)).resolves.toEqual({
      state: 'failed',
      message: TRANSCRIPTION_FAILED_MESSAGE,
    });
    expect(tools.calls.filter((call) => call.path === FFMPEG_PATH)).toHaveLength(1);
    expect(tools.recognitions()).toBe(1);
  });

  it('stops the recognizer of a transcription whose job ended while it ran, and fails it', async () => {
    const calls: ToolCall[] = [];
    let stopped = 0;
    const run: ToolRunner = async (path, args, toolOptions: MediaToolOptions) => {
      calls.push({ path, args });
      if (path === FFMPEG_PATH) {
        await writeFile(args.at(-1)!, wavHeader(8 * 16_000));
        await truncate(args.at(-1)!, 44 + 2 * 8 * 16_000);
        return { exitCode: 0, stdout: '', stderrTail: '', timedOut: false, readInterrupted: false };
      }
      // A recognizer that would run for ever: only its signal ends it, as runMediaTool kills the process.
      return new Promise((_, reject) =>
        toolOptions.signal?.addEventListener('abort', () => {
          stopped += 1;
          reject(toolOptions.signal!.reason as Error);
        }),
      );
    };
    let wanted = true;
    const adapter = provider(run, 1);
    const transcriptionId = await startedId(adapter, { stillWanted: async () => wanted });
    while (!calls.some((call) => call.path === RECOGNIZER_PATH)) await sleep(5);

    wanted = false;

    await expect(outcomeOf(adapter, transcriptionId)).resolves.toEqual({
      state: 'failed',
      message: TRANSCRIPTION_FAILED_MESSAGE,
    });
    expect(stopped).toBe(1);
  });
});
