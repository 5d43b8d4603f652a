import { createHash } from 'node:crypto';
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
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { LUMA_RAY2, NOVA_REEL_1_1, type VideoModelEntry } from '#domain/models/model-registry';
import { BedrockVideoProvider } from '#domain/video-jobs/providers/bedrock';
import { LUMA_RAY_FORMAT } from '#domain/video-jobs/providers/luma-ray';
import { NOVA_REEL_FORMAT } from '#domain/video-jobs/providers/nova-reel';
import {
  ProviderBusy,
  RENDER_FAILURE_MESSAGES,
  type AspectRatio,
  type DurationSeconds,
  type RenderRequest,
  type StartResult,
} from '#domain/video-jobs/providers/port';
import { renderPlan } from '#domain/video-jobs/render-plan';
import { captureMetrics, publishedValues } from '../support/metrics';

const bedrockMock = mockClient(BedrockRuntimeClient);
const s3Mock = mockClient(S3Client);

const NOW = Date.parse('2026-11-28T12:00:00Z');
const JOB_ID = 'video_job_01JX';
const INVOCATION_ARN = 'arn:aws:bedrock:us-west-2:123456789012:async-invoke/k3x9abc1def2';
const PROMPT = 'A red fox runs through a snowy forest at dawn';
/** A start image as keyframes.ts stores it: the bytes only matter as base64 here. */
const KEYFRAME_BYTES = Buffer.from('a JPEG keyframe of the render frame');

beforeAll(() => {
  process.env.LOG_LEVEL = 'silent';
});

afterAll(() => {
  delete process.env.LOG_LEVEL;
});

beforeEach(() => {
  bedrockMock.reset();
  s3Mock.reset();
  bedrockMock.on(StartAsyncInvokeCommand).resolves({ invocationArn: INVOCATION_ARN });
  s3Mock.on(GetObjectCommand).resolves({ Body: { transformToByteArray: async () => KEYFRAME_BYTES } } as never);
});

function provider(model: VideoModelEntry = LUMA_RAY2) {
  return new BedrockVideoProvider({
    bedrock: new BedrockRuntimeClient({ region: 'us-west-2' }),
    s3: new S3Client({ region: 'us-west-2' }),
    model,
    format: model.adapter === 'luma-ray' ? LUMA_RAY_FORMAT : NOVA_REEL_FORMAT,
    now: () => NOW,
  });
}

/** The request render-steps.ts makes for the render at `index` of a job's plan. */
function renderRequest(
  model: VideoModelEntry,
  options: { duration?: DurationSeconds; aspectRatio?: AspectRatio; index?: number; withSource?: boolean } = {},
  overrides: Partial<RenderRequest> = {},
): RenderRequest {
  const { duration = 5, aspectRatio = '16:9', index = 0, withSource = false } = options;
  const number = index + 1;
  const folder = `renders/1/${JOB_ID}/${number}`;
  const origin = index > 0 ? 'chain' : withSource ? 'source' : undefined;
  return {
    renderId: index === 0 ? JOB_ID : `${JOB_ID}/${number}`,
    jobId: JOB_ID,
    prompt: PROMPT,
    renderSeconds: renderPlan(model.renders, duration)[index]!,
    frame: model.renders.frames[aspectRatio],
    ...(origin ? { startImage: { bucket: 'media', key: `${folder}/keyframe.jpg`, origin } } : {}),
    output: { bucket: 'media', key: `${folder}/output.mp4` },
    ...overrides,
  };
}

function startInputs(): StartAsyncInvokeCommandInput[] {
  return bedrockMock.commandCalls(StartAsyncInvokeCommand).map((call) => call.args[0].input);
}

function providerJobId(started: StartResult): string {
  if (started.state !== 'started') throw new Error(`not started: ${JSON.stringify(started)}`);
  return started.providerJobId;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

const KEYFRAME = {
  frame0: {
    type: 'image',
    source: { type: 'base64', media_type: 'image/jpeg', data: KEYFRAME_BYTES.toString('base64') },
  },
};

describe('Luma Ray2 requests', () => {
  const combinations = ([5, 10, 15] as const).flatMap((duration) =>
    (['9:16', '16:9', '1:1'] as const).map((aspectRatio) => [duration, aspectRatio] as const),
  );

  it.each(combinations)(
    'a %i s %s text-to-video job: each render of its plan asked exactly as the Luma guide documents it',
    async (duration, aspectRatio) => {
      const plan = renderPlan(LUMA_RAY2.renders, duration);
      for (const index of plan.keys())
        await provider().start(renderRequest(LUMA_RAY2, { duration, aspectRatio, index }));

      const expected = plan.map((seconds, index) => ({
        modelId: 'luma.ray-v2:0',
        clientRequestToken: sha256(index === 0 ? JOB_ID : `${JOB_ID}/${index + 1}`),
        modelInput: {
          prompt: PROMPT,
          aspect_ratio: aspectRatio,
          loop: false,
          duration: `${seconds}s`,
          resolution: '720p',
          // Every render after the first continues from the last frame of the one before.
          ...(index > 0 ? { keyframes: KEYFRAME } : {}),
        },
        outputDataConfig: { s3OutputDataConfig: { s3Uri: `s3://media/renders/1/${JOB_ID}/${index + 1}` } },
      }));
      expect(startInputs()).toEqual(expected);
      expect(plan).toEqual({ 5: [5], 10: [9, 5], 15: [9, 9] }[duration]);
    },
  );

  it('an image-to-video job starts its first render from the prepared source image, read from S3', async () => {
    const request = renderRequest(LUMA_RAY2, { duration: 10, aspectRatio: '9:16', withSource: true });

    await provider().start(request);

    expect(s3Mock.commandCalls(GetObjectCommand)[0]?.args[0].input).toEqual({
      Bucket: 'media',
      Key: `renders/1/${JOB_ID}/1/keyframe.jpg`,
    });
    expect(startInputs()[0]?.modelInput).toEqual({
      prompt: PROMPT,
      aspect_ratio: '9:16',
      loop: false,
      duration: '9s',
      resolution: '720p',
      keyframes: KEYFRAME,
    });
  });

  it('appends the style hint to the prompt, which fits Ray2 whole', async () => {
    const prompt = 'waves '.repeat(166).trim(); // 995 characters, within our 1000 limit

    await provider().start(renderRequest(LUMA_RAY2, {}, { prompt, style: 'cinematic' }));

    expect((startInputs()[0]?.modelInput as { prompt: string }).prompt).toBe(
      `${prompt} Cinematic, dramatic lighting, shallow depth of field.`,
    );
  });

  it('refuses a render length Ray2 does not make, which is a bug of ours', async () => {
    await expect(provider().start(renderRequest(LUMA_RAY2, {}, { renderSeconds: 6 }))).rejects.toThrow(
      /5 s or 9 s, not 6 s/,
    );
    expect(startInputs()).toHaveLength(0);
  });

  it('sends the same idempotency token for a retried start of the same render, and another for the next render', async () => {
    await provider().start(renderRequest(LUMA_RAY2, { duration: 15 }));
    await provider().start(renderRequest(LUMA_RAY2, { duration: 15 }));
    await provider().start(renderRequest(LUMA_RAY2, { duration: 15, index: 1 }));

    const [first, retried, next] = startInputs();
    expect(retried).toEqual(first);
    expect(next?.clientRequestToken).not.toBe(first?.clientRequestToken);
  });
});

describe('Nova Reel requests (explicit opt-in)', () => {
  it('asks for one 6 s TEXT_VIDEO shot at 1280x720 for a 5 s job, whatever its ratio', async () => {
    await provider(NOVA_REEL_1_1).start(renderRequest(NOVA_REEL_1_1, { duration: 5, aspectRatio: '9:16' }));

    expect(startInputs()[0]).toEqual({
      modelId: 'amazon.nova-reel-v1:1',
      clientRequestToken: sha256(JOB_ID),
      modelInput: {
        taskType: 'TEXT_VIDEO',
        textToVideoParams: { text: PROMPT },
        videoGenerationConfig: { durationSeconds: 6, fps: 24, dimension: '1280x720', seed: expect.any(Number) },
      },
      outputDataConfig: { s3OutputDataConfig: { s3Uri: `s3://media/renders/1/${JOB_ID}/1` } },
    });
  });

  it.each([
    [10, 12],
    [15, 18],
  ] as const)('renders a %i s text job as one MULTI_SHOT_AUTOMATED render of %i s', async (duration, rendered) => {
    await provider(NOVA_REEL_1_1).start(renderRequest(NOVA_REEL_1_1, { duration }));

    expect(startInputs()[0]?.modelInput).toEqual({
      taskType: 'MULTI_SHOT_AUTOMATED',
      multiShotAutomatedParams: { text: PROMPT },
      videoGenerationConfig: { durationSeconds: rendered, fps: 24, dimension: '1280x720', seed: expect.any(Number) },
    });
  });

  it('renders a 15 s image job as three MULTI_SHOT_MANUAL shots with the prepared image on the first', async () => {
    await provider(NOVA_REEL_1_1).start(renderRequest(NOVA_REEL_1_1, { duration: 15, withSource: true }));

    const image = { format: 'jpeg', source: { bytes: KEYFRAME_BYTES.toString('base64') } };
    expect(startInputs()[0]?.modelInput).toEqual({
      taskType: 'MULTI_SHOT_MANUAL',
      multiShotManualParams: { shots: [{ text: PROMPT, image }, { text: PROMPT }, { text: PROMPT }] },
      videoGenerationConfig: { fps: 24, dimension: '1280x720', seed: expect.any(Number) },
    });
  });

  it('cuts long prompts at a word to the 512-character shot limit, the style hint kept', async () => {
    const prompt = 'waves '.repeat(160).trim();

    await provider(NOVA_REEL_1_1).start(renderRequest(NOVA_REEL_1_1, {}, { prompt, style: 'cinematic' }));

    const text = (startInputs()[0]?.modelInput as { textToVideoParams: { text: string } }).textToVideoParams.text;
    expect(text.length).toBeLessThanOrEqual(512);
    expect(text).toMatch(/^waves( waves)* Cinematic, dramatic lighting, shallow depth of field\.$/);
  });
});

describe('Bedrock video provider: refusals and busy answers', () => {
  it.each([
    ['This request has been blocked by our content filters.', undefined, 'CONTENT_REJECTED'],
    ['Malformed input request: #/keyframes/frame0: image could not be decoded', 'source', 'SOURCE_IMAGE_UNSUPPORTED'],
    // A frame of our own chain the model refuses is a failed render, not the customer's image.
    ['Malformed input request: #/keyframes/frame0: image could not be decoded', 'chain', 'RENDER_FAILED'],
    ['Malformed input request: #: extraneous key [foo] is not permitted', undefined, 'RENDER_FAILED'],
  ] as const)('turns the ValidationException "%s" (start image: %s) into %s', async (message, origin, code) => {
    bedrockMock.on(StartAsyncInvokeCommand).rejects(new ValidationException({ message, $metadata: {} }));
    const index = origin === 'chain' ? 1 : 0;

    const started = await provider().start(
      renderRequest(LUMA_RAY2, { duration: 10, index, withSource: origin === 'source' }),
    );

    expect(started).toEqual({ state: 'failed', code, message: RENDER_FAILURE_MESSAGES[code] });
  });

  it.each([
    ['throttling', new ThrottlingException({ message: 'Too many requests', $metadata: {} })],
    ['a quota on renders in flight', new ServiceQuotaExceededException({ message: 'Quota', $metadata: {} })],
    ['an outage', new ServiceUnavailableException({ message: 'Unavailable', $metadata: {} })],
  ])('throws %s as ProviderBusy, which the state machine retries', async (_, error) => {
    bedrockMock.on(StartAsyncInvokeCommand).rejects(error);

    const thrown = await provider()
      .start(renderRequest(LUMA_RAY2))
      .catch((caught: unknown) => caught);
    expect(thrown).toBeInstanceOf(ProviderBusy);
    expect(thrown).toMatchObject({ name: 'ProviderBusy', cause: error });
  });

  it('throws an access error as it is (no Marketplace subscription, say): retrying cannot help', async () => {
    const denied = new AccessDeniedException({ message: 'Denied', $metadata: {} });
    bedrockMock.on(StartAsyncInvokeCommand).rejects(denied);

    await expect(provider().start(renderRequest(LUMA_RAY2))).rejects.toBe(denied);
  });
});

describe('Bedrock video provider: poll', () => {
  async function started(options: Parameters<typeof renderRequest>[1] = {}) {
    return providerJobId(await provider().start(renderRequest(LUMA_RAY2, options)));
  }

  it.each([
    [5, 105, 47],
    [15, 180, 47],
    [5, 600, 95],
  ] as const)(
    'estimates progress of the first render of a %i s job %i s after submission as %i',
    async (duration, elapsedSeconds, progress) => {
      const id = await started({ duration });
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
    const id = await started();
    bedrockMock.on(GetAsyncInvokeCommand).rejects(new ThrottlingException({ message: 'Rate exceeded', $metadata: {} }));

    await expect(provider().poll(id)).rejects.toMatchObject({ name: 'ProviderBusy' });
  });

  it('reports the MP4 Bedrock wrote under the invocation id of a completed render, with its size', async () => {
    const id = await started({ duration: 15 });
    // GetAsyncInvoke's answer for a completed invocation, as the API reference documents it.
    bedrockMock.on(GetAsyncInvokeCommand).resolves({
      invocationArn: INVOCATION_ARN,
      modelArn: 'arn:aws:bedrock:us-west-2::foundation-model/luma.ray-v2:0',
      clientRequestToken: sha256(JOB_ID),
      status: 'Completed',
      submitTime: new Date(NOW - 200_000),
      lastModifiedTime: new Date(NOW - 5_000),
      endTime: new Date(NOW - 5_000),
      outputDataConfig: { s3OutputDataConfig: { s3Uri: `s3://media/renders/1/${JOB_ID}/1` } },
    } as never);
    const folder = `renders/1/${JOB_ID}/1/k3x9abc1def2/`;
    s3Mock.on(ListObjectsV2Command, { Bucket: 'media', Prefix: folder }).resolves({
      Contents: [
        { Key: `${folder}manifest.json`, Size: 210 },
        { Key: `${folder}output.mp4`, Size: 7_654_321 },
      ],
    });

    expect(await provider().poll(id)).toEqual({
      state: 'completed',
      output: { bucket: 'media', key: `${folder}output.mp4`, contentType: 'video/mp4', sizeBytes: 7_654_321 },
    });
  });

  it('throws when a completed render left no MP4: a permission or lifecycle problem of ours', async () => {
    const id = await started();
    bedrockMock.on(GetAsyncInvokeCommand).resolves({
      invocationArn: INVOCATION_ARN,
      status: 'Completed',
      outputDataConfig: { s3OutputDataConfig: { s3Uri: `s3://media/renders/1/${JOB_ID}/1` } },
    } as never);
    s3Mock.on(ListObjectsV2Command).resolves({ Contents: [] });

    await expect(provider().poll(id)).rejects.toThrow(/holds no MP4/);
  });

  it.each([
    ['The generated video was blocked by our content filters.', 'CONTENT_REJECTED'],
    [`Internal server error for ${INVOCATION_ARN} (request id 5f1c-77aa)`, 'RENDER_FAILED'],
  ] as const)('maps the failure "%s" to %s without leaking provider details', async (failureMessage, code) => {
    const id = await started();
    bedrockMock
      .on(GetAsyncInvokeCommand)
      .resolves({ invocationArn: INVOCATION_ARN, status: 'Failed', failureMessage } as never);

    const status = await provider().poll(id);

    expect(status).toEqual({ state: 'failed', code, message: RENDER_FAILURE_MESSAGES[code] });
    expect(JSON.stringify(status)).not.toMatch(/arn:|k3x9abc1def2|request id|bedrock|luma/i);
  });

  it('maps a failed render of a chained frame mentioning the image to RENDER_FAILED', async () => {
    const id = await started({ duration: 10, index: 1 });
    bedrockMock.on(GetAsyncInvokeCommand).resolves({
      invocationArn: INVOCATION_ARN,
      status: 'Failed',
      failureMessage: 'The input image could not be processed.',
    } as never);

    expect(await provider().poll(id)).toMatchObject({ state: 'failed', code: 'RENDER_FAILED' });
  });
});

describe('Bedrock video provider: latency', () => {
  it('times each StartAsyncInvoke and GetAsyncInvoke, refused and throttled calls included', async () => {
    const metrics = captureMetrics();
    const id = providerJobId(await provider().start(renderRequest(LUMA_RAY2)));
    bedrockMock.on(StartAsyncInvokeCommand).rejects(new ValidationException({ message: 'blocked', $metadata: {} }));
    await provider().start(renderRequest(LUMA_RAY2));
    bedrockMock.on(GetAsyncInvokeCommand).rejects(new ThrottlingException({ message: 'Rate exceeded', $metadata: {} }));
    await expect(provider().poll(id)).rejects.toMatchObject({ name: 'ProviderBusy' });

    expect(publishedValues(metrics, 'ProviderLatency')).toEqual([
      { Provider: 'bedrock', Operation: 'start-render', value: expect.any(Number) },
      { Provider: 'bedrock', Operation: 'start-render', value: expect.any(Number) },
      { Provider: 'bedrock', Operation: 'poll-render', value: expect.any(Number) },
    ]);
  });
});
