import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import {
  BadRequestException,
  ConflictException,
  GetTranscriptionJobCommand,
  LimitExceededException,
  StartTranscriptionJobCommand,
  TranscribeClient,
  type GetTranscriptionJobResponse,
  type StartTranscriptionJobCommandInput,
} from '@aws-sdk/client-transcribe';
import { mockClient } from 'aws-sdk-client-mock';
import {
  AmazonTranscribe,
  MAX_TRANSCRIPT_BYTES,
  TRANSCRIPT_TOO_LARGE_MESSAGE,
  s3LocationOf,
  transcriptFromTranscribeOutput,
  transcriptionJobNameFor,
} from '#domain/split-jobs/transcription/amazon-transcribe';
import { createTranscriptionProvider } from '#domain/split-jobs/transcription/factory';
import { POCKETSPHINX_PATH, TRANSCRIPTION_PROVIDER } from '#platform/settings';
import { NoTranscription } from '#domain/split-jobs/transcription/no-transcription';
import {
  TRANSCRIPTION_FAILED_MESSAGE,
  type TranscriptionRequest,
  type TranscriptionStart,
} from '#domain/split-jobs/transcription/port';
import { ProviderBusy } from '#domain/video-jobs/providers/port';
import { captureMetrics, publishedValues } from './support/metrics';

const transcribeMock = mockClient(TranscribeClient);
const s3Mock = mockClient(S3Client);

const JOB_ID = 'split_job_01JXK3A9Q7M4ZC2V8T6N5B0R1E';
const TRANSCRIPT_KEY = `split-jobs/${JOB_ID}/transcript.json`;
const TRANSCRIPT_URI = `https://s3.us-east-1.amazonaws.com/media/${TRANSCRIPT_KEY}`;

/** What Transcribe writes for "Hello, world. Welcome back!" (trimmed: no audio_segments), with one item given two alternatives. */
const TRANSCRIBE_OUTPUT = {
  jobName: JOB_ID,
  accountId: '123456789012',
  status: 'COMPLETED',
  results: {
    language_code: 'en-US',
    transcripts: [{ transcript: 'Hello, world. Welcome back!' }],
    items: [
      {
        id: 0,
        type: 'pronunciation',
        alternatives: [{ confidence: '0.998', content: 'Hello' }],
        start_time: '0.04',
        end_time: '0.47',
      },
      { id: 1, type: 'punctuation', alternatives: [{ confidence: '0.0', content: ',' }] },
      {
        id: 2,
        type: 'pronunciation',
        alternatives: [
          { confidence: '0.412', content: 'word' },
          { confidence: '0.951', content: 'world' },
        ],
        start_time: '0.48',
        end_time: '0.93',
      },
      { id: 3, type: 'punctuation', alternatives: [{ confidence: '0.0', content: '.' }] },
      {
        id: 4,
        type: 'pronunciation',
        alternatives: [{ confidence: '0.987', content: 'Welcome' }],
        start_time: '1.62',
        end_time: '2.05',
      },
      {
        id: 5,
        type: 'pronunciation',
        alternatives: [{ confidence: '0.999', content: 'back' }],
        start_time: '2.05',
        end_time: '2.38',
      },
      { id: 6, type: 'punctuation', alternatives: [{ confidence: '0.0', content: '!' }] },
    ],
    audio_segments: [],
  },
};

const EXPECTED_WORDS = [
  { text: 'Hello,', startSeconds: 0.04, endSeconds: 0.47 },
  { text: 'world.', startSeconds: 0.48, endSeconds: 0.93 },
  { text: 'Welcome', startSeconds: 1.62, endSeconds: 2.05 },
  { text: 'back!', startSeconds: 2.05, endSeconds: 2.38 },
];

beforeAll(() => {
  process.env.LOG_LEVEL = 'silent';
});

afterAll(() => {
  delete process.env.LOG_LEVEL;
});

beforeEach(() => {
  transcribeMock.reset();
  s3Mock.reset();
  transcribeMock.on(StartTranscriptionJobCommand).resolves({});
});

function provider() {
  return new AmazonTranscribe({
    transcribe: new TranscribeClient({ region: 'us-east-1' }),
    s3: new S3Client({ region: 'us-east-1' }),
  });
}

function request(overrides: Partial<TranscriptionRequest> = {}): TranscriptionRequest {
  return {
    jobId: JOB_ID,
    source: { bucket: 'media', key: 'assets/asset_01JX/original', contentType: 'video/mp4' },
    output: { bucket: 'media', key: TRANSCRIPT_KEY },
    ...overrides,
  };
}

function startInput(): StartTranscriptionJobCommandInput {
  const call = transcribeMock.commandCalls(StartTranscriptionJobCommand)[0];
  if (!call) throw new Error('StartTranscriptionJob was not called');
  return call.args[0].input;
}

function transcriptionJob(job: NonNullable<GetTranscriptionJobResponse['TranscriptionJob']>) {
  transcribeMock
    .on(GetTranscriptionJobCommand, { TranscriptionJobName: JOB_ID })
    .resolves({ TranscriptionJob: { TranscriptionJobName: JOB_ID, ...job } });
}

function completedJob(transcriptFileUri = TRANSCRIPT_URI) {
  transcriptionJob({
    TranscriptionJobStatus: 'COMPLETED',
    LanguageCode: 'en-US',
    Transcript: { TranscriptFileUri: transcriptFileUri },
  });
}

function storedTranscript(bytes: Uint8Array) {
  s3Mock.on(GetObjectCommand).resolves({ Body: { transformToByteArray: async () => bytes } } as never);
}

function encoded(document: unknown): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(document));
}

describe('Amazon Transcribe: start', () => {
  it('starts a job named after the split job, reading the source and writing to the output key', async () => {
    const started = await provider().start(request());

    expect(started).toEqual({ state: 'started', transcriptionId: JOB_ID });
    expect(startInput()).toEqual({
      TranscriptionJobName: JOB_ID,
      Media: { MediaFileUri: 's3://media/assets/asset_01JX/original' },
      MediaFormat: 'mp4',
      OutputBucketName: 'media',
      OutputKey: TRANSCRIPT_KEY,
      IdentifyLanguage: true,
    });
  });

  it('reads WebM sources as webm, whatever the case and parameters of the content type', async () => {
    await provider().start(
      request({ source: { bucket: 'media', key: 'a/original', contentType: 'Video/WebM; codecs="vp9,opus"' } }),
    );

    expect(startInput().MediaFormat).toBe('webm');
  });

  it.each(['video/quicktime', 'video/x-matroska'])(
    'has no transcription for %s, which Transcribe cannot read, and starts no job',
    async (contentType) => {
      const started = await provider().start(request({ source: { bucket: 'media', key: 'a/original', contentType } }));

      expect(started).toEqual({ state: 'unavailable' });
      expect(transcribeMock.commandCalls(StartTranscriptionJobCommand)).toHaveLength(0);
    },
  );

  it.each([
    ['en', 'en-US'],
    ['es', 'es-US'],
    ['fr', 'fr-FR'],
    ['de', 'de-DE'],
    ['pt', 'pt-BR'],
    ['it', 'it-IT'],
    ['ja', 'ja-JP'],
    ['ko', 'ko-KR'],
    ['zh', 'zh-CN'],
    ['hi', 'hi-IN'],
    ['ar', 'ar-SA'],
    ['nl', 'nl-NL'],
    ['EN', 'en-US'],
    ['pt-BR', 'pt-BR'],
    ['en-GB', 'en-GB'],
    ['en-gb', 'en-GB'],
    ['pt-PT', 'pt-PT'],
    ['sv-SE', 'sv-SE'],
  ])('asks for language %s as %s, without identification', async (tag, languageCode) => {
    await provider().start(request({ language: tag }));

    const input = startInput();
    expect(input.LanguageCode).toBe(languageCode);
    expect(input).not.toHaveProperty('IdentifyLanguage');
  });

  it.each(['sv', 'xx-YY', 'klingon', ''])(
    'lets Transcribe identify the language when %p is not a language code it knows',
    async (tag) => {
      await provider().start(request({ language: tag }));

      const input = startInput();
      expect(input.IdentifyLanguage).toBe(true);
      expect(input).not.toHaveProperty('LanguageCode');
    },
  );

  it('answers started with the same transcription when the job already exists (a retried start)', async () => {
    transcribeMock
      .on(StartTranscriptionJobCommand)
      .rejects(new ConflictException({ message: 'The requested job name already exists.', $metadata: {} }));

    await expect(provider().start(request())).resolves.toEqual({ state: 'started', transcriptionId: JOB_ID });
  });

  it.each([
    ['a limit on jobs in flight', new LimitExceededException({ message: 'Limit exceeded', $metadata: {} })],
    ['throttling', Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' })],
  ])('throws %s as ProviderBusy, which the state machine retries', async (_, error) => {
    transcribeMock.on(StartTranscriptionJobCommand).callsFake(() => {
      throw error;
    });

    const thrown = await provider()
      .start(request())
      .catch((caught: unknown) => caught);
    expect(thrown).toBeInstanceOf(ProviderBusy);
    expect(thrown).toMatchObject({ name: 'ProviderBusy', cause: error });
  });

  it('throws a refused request as it is: retrying cannot help', async () => {
    const refused = new BadRequestException({ message: 'Invalid media', $metadata: {} });
    transcribeMock.on(StartTranscriptionJobCommand).callsFake(() => {
      throw refused;
    });

    await expect(provider().start(request())).rejects.toBe(refused);
  });
});

describe('transcriptionJobNameFor', () => {
  it('is the job id itself when Transcribe accepts it as a name', () => {
    expect(transcriptionJobNameFor(JOB_ID)).toBe(JOB_ID);
  });

  it('replaces characters Transcribe refuses and keeps ids that differ only in them apart', () => {
    const slash = transcriptionJobNameFor('job/1 a');
    const colon = transcriptionJobNameFor('job:1 a');

    expect(slash).toMatch(/^job-1-a-[0-9a-f]{16}$/);
    expect(colon).toMatch(/^job-1-a-[0-9a-f]{16}$/);
    expect(slash).not.toBe(colon);
    expect(transcriptionJobNameFor('job/1 a')).toBe(slash);
  });

  it('shortens long ids to Transcribe’s 200 characters, still telling them apart', () => {
    const long = transcriptionJobNameFor('a'.repeat(250));
    const longer = transcriptionJobNameFor('a'.repeat(251));

    expect(long).toHaveLength(200);
    expect(long).toMatch(/^[0-9A-Za-z._-]+$/);
    expect(long).not.toBe(longer);
  });
});

describe('Amazon Transcribe: poll', () => {
  it.each(['QUEUED', 'IN_PROGRESS'] as const)('reports status %s as in progress', async (status) => {
    transcriptionJob({ TranscriptionJobStatus: status });

    await expect(provider().poll(JOB_ID)).resolves.toEqual({ state: 'in_progress' });
  });

  it('reports a failed job with a generic message, never Transcribe’s reason', async () => {
    transcriptionJob({
      TranscriptionJobStatus: 'FAILED',
      FailureReason: 'The media file s3://media/assets/asset_01JX/original could not be decoded.',
    });

    await expect(provider().poll(JOB_ID)).resolves.toEqual({ state: 'failed', message: TRANSCRIPTION_FAILED_MESSAGE });
  });

  it('reads the transcript Transcribe wrote and returns its words with times, in the job’s language', async () => {
    completedJob();
    storedTranscript(encoded(TRANSCRIBE_OUTPUT));

    const status = await provider().poll(JOB_ID);

    expect(status).toEqual({ state: 'completed', transcript: { language: 'en-US', words: EXPECTED_WORDS } });
    const read = s3Mock.commandCalls(GetObjectCommand)[0]?.args[0].input;
    expect(read).toEqual({ Bucket: 'media', Key: TRANSCRIPT_KEY, Range: `bytes=0-${MAX_TRANSCRIPT_BYTES}` });
  });

  it('reads the transcript where Transcribe put it when that is not the key asked for (a folder-like OutputKey)', async () => {
    completedJob(`https://s3.us-east-1.amazonaws.com/media/split-jobs/${JOB_ID}/transcript/${JOB_ID}.json`);
    storedTranscript(encoded(TRANSCRIBE_OUTPUT));

    await provider().poll(JOB_ID);

    expect(s3Mock.commandCalls(GetObjectCommand)[0]?.args[0].input).toMatchObject({
      Bucket: 'media',
      Key: `split-jobs/${JOB_ID}/transcript/${JOB_ID}.json`,
    });
  });

  it('fails a transcript over the size limit with its own message', async () => {
    completedJob();
    storedTranscript(new Uint8Array(MAX_TRANSCRIPT_BYTES + 1));

    await expect(provider().poll(JOB_ID)).resolves.toEqual({ state: 'failed', message: TRANSCRIPT_TOO_LARGE_MESSAGE });
  });

  it('reads a transcript of exactly the limit', async () => {
    completedJob();
    const document = encoded(TRANSCRIBE_OUTPUT);
    const padded = new Uint8Array(MAX_TRANSCRIPT_BYTES).fill(0x20);
    padded.set(document);
    storedTranscript(padded);

    await expect(provider().poll(JOB_ID)).resolves.toMatchObject({ state: 'completed' });
  });

  it('throws when a completed job names no transcript location it can read', async () => {
    transcriptionJob({ TranscriptionJobStatus: 'COMPLETED', Transcript: {} });

    await expect(provider().poll(JOB_ID)).rejects.toThrow(`Transcription job ${JOB_ID} has no readable transcript`);
  });

  it('throws a throttled status read as ProviderBusy, so the transcription is polled again', async () => {
    transcribeMock.on(GetTranscriptionJobCommand).callsFake(() => {
      throw new LimitExceededException({ message: 'Rate exceeded', $metadata: {} });
    });

    await expect(provider().poll(JOB_ID)).rejects.toMatchObject({ name: 'ProviderBusy' });
  });
});

describe('Amazon Transcribe: latency', () => {
  it('times each StartTranscriptionJob and GetTranscriptionJob, failed calls included, and not the transcript read', async () => {
    const metrics = captureMetrics();
    await provider().start(request());
    transcribeMock
      .on(StartTranscriptionJobCommand)
      .rejects(new BadRequestException({ message: 'Invalid media', $metadata: {} }));
    await expect(provider().start(request())).rejects.toThrow('Invalid media');
    completedJob();
    storedTranscript(encoded(TRANSCRIBE_OUTPUT));
    await provider().poll(JOB_ID);

    expect(publishedValues(metrics, 'ProviderLatency')).toEqual([
      { Provider: 'amazon-transcribe', Operation: 'start-transcription', value: expect.any(Number) },
      { Provider: 'amazon-transcribe', Operation: 'start-transcription', value: expect.any(Number) },
      { Provider: 'amazon-transcribe', Operation: 'poll-transcription', value: expect.any(Number) },
    ]);
  });

  it('times nothing for a source it cannot read: no call is made', async () => {
    const metrics = captureMetrics();
    await provider().start(request({ source: { bucket: 'media', key: 'k', contentType: 'video/quicktime' } }));
    expect(metrics).toEqual([]);
  });
});

describe('s3LocationOf', () => {
  it.each([
    ['https://s3.us-east-1.amazonaws.com/media/a/b%20c.json', { bucket: 'media', key: 'a/b c.json' }],
    ['https://media.bucket.s3.eu-west-1.amazonaws.com/a/b.json', { bucket: 'media.bucket', key: 'a/b.json' }],
    ['s3://media/a/b.json', { bucket: 'media', key: 'a/b.json' }],
  ])('finds the bucket and key in %s', (uri, location) => {
    expect(s3LocationOf(uri)).toEqual(location);
  });

  it.each(['not a url', 'https://s3.us-east-1.amazonaws.com/media', 'https://s3.us-east-1.amazonaws.com/'])(
    'finds none in %p',
    (uri) => {
      expect(s3LocationOf(uri)).toBeUndefined();
    },
  );
});

describe('transcriptFromTranscribeOutput', () => {
  it('keeps the most confident alternative of each word and attaches punctuation to the word before', () => {
    expect(transcriptFromTranscribeOutput(TRANSCRIBE_OUTPUT, 'en-US')).toEqual({
      language: 'en-US',
      words: EXPECTED_WORDS,
    });
  });

  it('drops punctuation that no word precedes', () => {
    const output = {
      results: {
        items: [
          { type: 'punctuation', alternatives: [{ confidence: '0.0', content: '¿' }] },
          {
            type: 'pronunciation',
            alternatives: [{ confidence: '0.9', content: 'Hola' }],
            start_time: '0.1',
            end_time: '0.4',
          },
        ],
      },
    };

    expect(transcriptFromTranscribeOutput(output, null)).toEqual({
      language: null,
      words: [{ text: 'Hola', startSeconds: 0.1, endSeconds: 0.4 }],
    });
  });

  it('returns no words for silence', () => {
    expect(
      transcriptFromTranscribeOutput({ results: { transcripts: [{ transcript: '' }], items: [] } }, 'en-US'),
    ).toEqual({ language: 'en-US', words: [] });
  });

  it.each([null, {}, { results: {} }, { results: { items: 'none' } }])(
    'refuses %p, which is no Transcribe output',
    (output) => {
      expect(() => transcriptFromTranscribeOutput(output, null)).toThrow('no results.items list');
    },
  );
});

describe('NoTranscription', () => {
  it('has no transcription to start', async () => {
    await expect(new NoTranscription().start()).resolves.toEqual<TranscriptionStart>({ state: 'unavailable' });
  });

  it('has nothing to poll', async () => {
    await expect(new NoTranscription().poll('anything')).rejects.toThrow('There is no transcription provider');
  });
});

describe('createTranscriptionProvider', () => {
  const s3 = new S3Client({ region: 'us-east-1' });
  const variable = TRANSCRIPTION_PROVIDER.variable;

  afterEach(() => {
    delete process.env[variable];
  });

  it.each([
    ['amazon-transcribe', 'amazon-transcribe'],
    ['none', 'none'],
    [undefined, 'none'],
    ['', 'none'],
  ])(`builds the adapter for ${variable}=%p`, (value, kind) => {
    if (value !== undefined) process.env[variable] = value;
    expect(createTranscriptionProvider(s3).kind).toBe(kind);
  });

  it(`builds the local recognizer for ${variable}=pocketsphinx, where POCKETSPHINX_PATH says it is`, () => {
    process.env[variable] = 'pocketsphinx';
    process.env[POCKETSPHINX_PATH.variable] = '/usr/bin/pocketsphinx_continuous';
    try {
      expect(createTranscriptionProvider(s3).kind).toBe('pocketsphinx');
    } finally {
      delete process.env[POCKETSPHINX_PATH.variable];
    }
  });

  it('refuses the local recognizer without POCKETSPHINX_PATH', () => {
    process.env[variable] = 'pocketsphinx';
    expect(() => createTranscriptionProvider(s3)).toThrow('POCKETSPHINX_PATH is not set');
  });

  it('names the variable TRANSCRIPTION_PROVIDER', () => {
    expect(variable).toBe('TRANSCRIPTION_PROVIDER');
  });

  it('refuses a provider it does not know', () => {
    process.env[variable] = 'whisper';
    expect(() => createTranscriptionProvider(s3)).toThrow(
      'TRANSCRIPTION_PROVIDER must be one of amazon-transcribe, pocketsphinx, none, got "whisper"',
    );
  });

  it('lets an explicit kind win over the setting', () => {
    process.env[variable] = 'none';
    expect(createTranscriptionProvider(s3, 'amazon-transcribe').kind).toBe('amazon-transcribe');
  });
});
