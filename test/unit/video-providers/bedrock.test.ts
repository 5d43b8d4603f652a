import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  AccessDeniedException,
  BedrockRuntimeClient,
  GetAsyncInvokeCommand,
  ServiceQuotaExceededException,
  ServiceUnavailableException,
  StartAsyncInvokeCommand,
  ThrottlingException,
  ValidationException,
  type StartAsyncInvokeCommandInput,
} from '@aws-sdk/client-bedrock-runtime';
import { GetObjectCommand, HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import ffmpeg from '@ffmpeg-installer/ffmpeg';
import {
  BedrockVideoProvider,
  SOURCE_IMAGE_REQUIREMENT_MESSAGE,
  imageInfo,
} from '#domain/video-jobs/providers/bedrock';
import {
  ProviderBusy,
  RENDER_FAILURE_MESSAGES,
  type RenderRequest,
  type StartResult,
} from '#domain/video-jobs/providers/port';
import { captureMetrics, publishedValues } from '../support/metrics';

const run = promisify(execFile);
const bedrockMock = mockClient(BedrockRuntimeClient);
const s3Mock = mockClient(S3Client);

const NOW = Date.parse('2025-06-01T12:00:00Z');
const INVOCATION_ARN = 'arn:aws:bedrock:us-east-1:123456789012:async-invoke/k3x9abc1def2';

let workDir: string;
const images: Record<'png720p' | 'jpeg720p' | 'pngSquare' | 'webp720p', Uint8Array> = {} as never;

beforeAll(async () => {
  process.env.LOG_LEVEL = 'silent';
  workDir = await mkdtemp(join(tmpdir(), 'bedrock-test-'));
  const make = async (name: keyof typeof images, size: string, file: string) => {
    const path = join(workDir, file);
    await run(ffmpeg.path, ['-v', 'error', '-f', 'lavfi', '-i', `testsrc2=s=${size}`, '-frames:v', '1', '-y', path]);
    images[name] = new Uint8Array(await readFile(path));
  };
  await make('png720p', '1280x720', 'a.png');
  await make('jpeg720p', '1280x720', 'a.jpg');
  await make('pngSquare', '720x720', 'b.png');
  await make('webp720p', '1280x720', 'a.webp');
});

afterAll(async () => {
  delete process.env.LOG_LEVEL;
  await rm(workDir, { recursive: true, force: true });
});

beforeEach(() => {
  bedrockMock.reset();
  s3Mock.reset();
  bedrockMock.on(StartAsyncInvokeCommand).resolves({ invocationArn: INVOCATION_ARN });
});

function provider() {
  return new BedrockVideoProvider({
    bedrock: new BedrockRuntimeClient({ region: 'us-east-1' }),
    s3: new S3Client({ region: 'us-east-1' }),
    now: () => NOW,
  });
}

function request(overrides: Partial<RenderRequest> = {}): RenderRequest {
  return {
    jobId: 'video_job_01JX',
    prompt: 'A red fox runs through a snowy forest at dawn',
    durationSeconds: 5,
    aspectRatio: '16:9',
    output: { bucket: 'media', key: 'renders/video_job_01JX/output.mp4' },
    ...overrides,
  };
}

function sourceImage(bytes: Uint8Array, contentType = 'image/png') {
  s3Mock.on(GetObjectCommand).resolves({ Body: { transformToByteArray: async () => bytes } } as never);
  return { bucket: 'media', key: 'assets/asset_1/original', contentType };
}

function startInput(): StartAsyncInvokeCommandInput {
  const call = bedrockMock.commandCalls(StartAsyncInvokeCommand)[0];
  if (!call) throw new Error('StartAsyncInvoke was not called');
  return call.args[0].input;
}

function providerJobId(started: StartResult): string {
  if (started.state !== 'started') throw new Error(`not started: ${JSON.stringify(started)}`);
  return started.providerJobId;
}

describe('Bedrock video provider: start', () => {
  it('asks Nova Reel 1.1 for one 6 s TEXT_VIDEO shot at 1280x720 for a 5 s request, written next to the output key', async () => {
    await provider().start(request());

    const input = startInput();
    expect(input).toEqual({
      modelId: 'amazon.nova-reel-v1:1',
      clientRequestToken: expect.stringMatching(/^[0-9a-f]{64}$/),
      modelInput: {
        taskType: 'TEXT_VIDEO',
        textToVideoParams: { text: 'A red fox runs through a snowy forest at dawn' },
        videoGenerationConfig: { durationSeconds: 6, fps: 24, dimension: '1280x720', seed: expect.any(Number) },
      },
      outputDataConfig: { s3OutputDataConfig: { s3Uri: 's3://media/renders/video_job_01JX' } },
    });
    const seed = (input.modelInput as { videoGenerationConfig: { seed: number } }).videoGenerationConfig.seed;
    expect(Number.isInteger(seed) && seed >= 0 && seed <= 2147483646).toBe(true);
  });

  it.each([
    [10, 12],
    [15, 18],
  ] as const)('renders a %i s text request as MULTI_SHOT_AUTOMATED of %i s', async (durationSeconds, rendered) => {
    await provider().start(request({ durationSeconds, aspectRatio: '9:16' }));

    expect(startInput().modelInput).toEqual({
      taskType: 'MULTI_SHOT_AUTOMATED',
      multiShotAutomatedParams: { text: 'A red fox runs through a snowy forest at dawn' },
      videoGenerationConfig: { durationSeconds: rendered, fps: 24, dimension: '1280x720', seed: expect.any(Number) },
    });
  });

  it('sends the same idempotency token and seed when start is retried for the same job', async () => {
    await provider().start(request());
    await provider().start(request());

    const [first, second] = bedrockMock.commandCalls(StartAsyncInvokeCommand).map((call) => call.args[0].input);
    expect(second?.clientRequestToken).toBe(first?.clientRequestToken);
    expect(second?.modelInput).toEqual(first?.modelInput);
  });

  it('appends the style hint and cuts long prompts at a word to the 512-character shot limit', async () => {
    const prompt = 'waves '.repeat(160).trim(); // 959 characters, within our 1000 limit

    await provider().start(request({ prompt, style: 'cinematic' }));

    const text = (startInput().modelInput as { textToVideoParams: { text: string } }).textToVideoParams.text;
    expect(text.length).toBeLessThanOrEqual(512);
    expect(text).toMatch(/^waves( waves)* Cinematic, dramatic lighting, shallow depth of field\.$/);
  });

  it('sends a 1280x720 PNG as the first frame of a 5 s TEXT_VIDEO', async () => {
    await provider().start(request({ sourceImage: sourceImage(images.png720p) }));

    expect(s3Mock.commandCalls(GetObjectCommand)[0]?.args[0].input).toEqual({
      Bucket: 'media',
      Key: 'assets/asset_1/original',
    });
    expect(startInput().modelInput).toMatchObject({
      taskType: 'TEXT_VIDEO',
      textToVideoParams: {
        images: [{ format: 'png', source: { bytes: Buffer.from(images.png720p).toString('base64') } }],
      },
      videoGenerationConfig: { durationSeconds: 6 },
    });
  });

  it('renders a 15 s image request as three MULTI_SHOT_MANUAL shots with the JPEG on the first', async () => {
    await provider().start(request({ durationSeconds: 15, sourceImage: sourceImage(images.jpeg720p, 'image/jpeg') }));

    const image = { format: 'jpeg', source: { bytes: Buffer.from(images.jpeg720p).toString('base64') } };
    const text = 'A red fox runs through a snowy forest at dawn';
    expect(startInput().modelInput).toEqual({
      taskType: 'MULTI_SHOT_MANUAL',
      multiShotManualParams: { shots: [{ text, image }, { text }, { text }] },
      videoGenerationConfig: { fps: 24, dimension: '1280x720', seed: expect.any(Number) },
    });
  });

  it.each([
    ['a 720x720 PNG', 'pngSquare'],
    ['a 1280x720 WebP', 'webp720p'],
  ] as const)('refuses %s with SOURCE_IMAGE_UNSUPPORTED before calling Bedrock', async (_label, name) => {
    const started = await provider().start(request({ sourceImage: sourceImage(images[name]) }));

    expect(started).toEqual({
      state: 'failed',
      code: 'SOURCE_IMAGE_UNSUPPORTED',
      message: SOURCE_IMAGE_REQUIREMENT_MESSAGE,
    });
    expect(bedrockMock.commandCalls(StartAsyncInvokeCommand)).toHaveLength(0);
  });

  it.each([
    ['This request has been blocked by our content filters.', 'CONTENT_REJECTED'],
    ['Malformed input request: #/textToVideoParams: extraneous key [foo] is not permitted', 'RENDER_FAILED'],
  ] as const)('turns the ValidationException "%s" into %s with our own message', async (providerMessage, code) => {
    bedrockMock
      .on(StartAsyncInvokeCommand)
      .rejects(new ValidationException({ message: providerMessage, $metadata: {} }));

    const started = await provider().start(request());

    expect(started).toEqual({ state: 'failed', code, message: RENDER_FAILURE_MESSAGES[code] });
  });

  it.each([
    ['throttling', new ThrottlingException({ message: 'Too many requests', $metadata: {} })],
    ['a quota on renders in flight', new ServiceQuotaExceededException({ message: 'Quota', $metadata: {} })],
    ['an outage', new ServiceUnavailableException({ message: 'Unavailable', $metadata: {} })],
  ])('throws %s as ProviderBusy, which the state machine retries', async (_, error) => {
    bedrockMock.on(StartAsyncInvokeCommand).rejects(error);

    const thrown = await provider()
      .start(request())
      .catch((caught: unknown) => caught);
    expect(thrown).toBeInstanceOf(ProviderBusy);
    expect(thrown).toMatchObject({ name: 'ProviderBusy', cause: error });
  });

  it('throws an access error as it is: retrying cannot help', async () => {
    const denied = new AccessDeniedException({ message: 'Denied', $metadata: {} });
    bedrockMock.on(StartAsyncInvokeCommand).rejects(denied);

    await expect(provider().start(request())).rejects.toBe(denied);
  });
});

describe('Bedrock video provider: poll', () => {
  async function startedJob(durationSeconds: 5 | 10 | 15 = 5) {
    return providerJobId(await provider().start(request({ durationSeconds })));
  }

  it.each([
    [5, 45, 47],
    [15, 95, 47],
    [5, 600, 95],
  ] as const)(
    'estimates progress of a %i s request %i s after submission as %i',
    async (durationSeconds, elapsedSeconds, progress) => {
      const id = await startedJob(durationSeconds);
      bedrockMock.on(GetAsyncInvokeCommand).resolves({
        invocationArn: INVOCATION_ARN,
        status: 'InProgress',
        submitTime: new Date(NOW - elapsedSeconds * 1000),
      } as never);

      expect(await provider().poll(id)).toEqual({ state: 'in_progress', progress });
      expect(bedrockMock.commandCalls(GetAsyncInvokeCommand)[0]?.args[0].input).toEqual({
        invocationArn: INVOCATION_ARN,
      });
    },
  );

  it('throws a throttled status read as ProviderBusy, so the render is polled again rather than failed', async () => {
    const id = await startedJob();
    bedrockMock.on(GetAsyncInvokeCommand).rejects(new ThrottlingException({ message: 'Rate exceeded', $metadata: {} }));

    await expect(provider().poll(id)).rejects.toMatchObject({ name: 'ProviderBusy' });
  });

  it('reports the output.mp4 Bedrock wrote under the invocation id, with its size and real duration and dimensions', async () => {
    const id = await startedJob(15);
    bedrockMock.on(GetAsyncInvokeCommand).resolves({
      invocationArn: INVOCATION_ARN,
      status: 'Completed',
      submitTime: new Date(NOW - 200_000),
      outputDataConfig: { s3OutputDataConfig: { s3Uri: 's3://media/renders/video_job_01JX' } },
    } as never);
    s3Mock
      .on(HeadObjectCommand, { Bucket: 'media', Key: 'renders/video_job_01JX/k3x9abc1def2/output.mp4' })
      .resolves({ ContentLength: 7_654_321 });

    expect(await provider().poll(id)).toEqual({
      state: 'completed',
      output: {
        bucket: 'media',
        key: 'renders/video_job_01JX/k3x9abc1def2/output.mp4',
        contentType: 'video/mp4',
        sizeBytes: 7_654_321,
        durationSeconds: 18,
        width: 1280,
        height: 720,
      },
    });
  });

  it.each([
    ['The generated video was blocked by our content filters.', 'CONTENT_REJECTED'],
    [`Internal server error for ${INVOCATION_ARN} (request id 5f1c-77aa)`, 'RENDER_FAILED'],
  ] as const)('maps the failure "%s" to %s without leaking provider details', async (failureMessage, code) => {
    const id = await startedJob();
    bedrockMock
      .on(GetAsyncInvokeCommand)
      .resolves({ invocationArn: INVOCATION_ARN, status: 'Failed', failureMessage } as never);

    const status = await provider().poll(id);

    expect(status).toEqual({ state: 'failed', code, message: RENDER_FAILURE_MESSAGES[code] });
    expect(JSON.stringify(status)).not.toMatch(/arn:|k3x9abc1def2|request id|bedrock|nova/i);
  });
});

describe('Bedrock video provider: latency', () => {
  it('times each StartAsyncInvoke and GetAsyncInvoke, refused and throttled calls included', async () => {
    const metrics = captureMetrics();
    const id = providerJobId(await provider().start(request()));
    bedrockMock.on(StartAsyncInvokeCommand).rejects(new ValidationException({ message: 'blocked', $metadata: {} }));
    await provider().start(request());
    bedrockMock.on(GetAsyncInvokeCommand).rejects(new ThrottlingException({ message: 'Rate exceeded', $metadata: {} }));
    await expect(provider().poll(id)).rejects.toMatchObject({ name: 'ProviderBusy' });

    expect(publishedValues(metrics, 'ProviderLatency')).toEqual([
      { Provider: 'bedrock', Operation: 'start-render', value: expect.any(Number) },
      { Provider: 'bedrock', Operation: 'start-render', value: expect.any(Number) },
      { Provider: 'bedrock', Operation: 'poll-render', value: expect.any(Number) },
    ]);
  });
});

describe('imageInfo', () => {
  it('reads format and size from PNG and JPEG headers and rejects other files', () => {
    expect(imageInfo(images.png720p)).toEqual({ format: 'png', width: 1280, height: 720 });
    expect(imageInfo(images.jpeg720p)).toEqual({ format: 'jpeg', width: 1280, height: 720 });
    expect(imageInfo(images.pngSquare)).toEqual({ format: 'png', width: 720, height: 720 });
    expect(imageInfo(images.webp720p)).toBeUndefined();
    expect(imageInfo(new TextEncoder().encode('not an image'))).toBeUndefined();
  });
});
