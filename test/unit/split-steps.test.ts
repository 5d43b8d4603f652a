import { NoLanguageModel } from '#domain/split-jobs/language/no-language-model';
import {
  DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Clip } from '#domain/split-jobs/clip-store';
import {
  chooseSplitClips,
  failSplitClip,
  finishSplitJob,
  SPLIT_ERRORS,
  startSplitTranscription,
  storeRenderedClip,
  TRANSCRIPTION_DEADLINE_SECONDS,
  type SplitChosen,
  type SplitReady,
  type SplitSource,
} from '#domain/split-jobs/split-steps';
import type { SegmentAnalysis } from '#domain/split-jobs/source-analysis';
import type { TranscriptionProvider, TranscriptionRequest } from '#domain/split-jobs/transcription/port';
import { SPLIT_INPUT } from './support/new-job';
import { itemAt, refusedAt } from './support/transactions';

process.env.TABLE_NAME = 'table';
process.env.AWS_REGION = 'us-east-1';
process.env.MEDIA_BUCKET_NAME = 'media';

const dynamo = mockClient(DynamoDBDocumentClient);
const s3 = mockClient(S3Client);

const JOB_ID = 'split_job_01J0000000000000000000000A';
const JOB_KEY = { pk: 'ORG#7', sk: `JOB#${JOB_ID}` };
const ORGANIZATION_KEY = { pk: 'ORG#7', sk: 'ORG' };
const SOURCE: SplitSource = {
  object_key: 'assets/7/a',
  width: 1280,
  height: 720,
  has_audio: true,
  duration_seconds: 60,
};

/** What ChooseClips hands on: `clipCount` clips chosen from a source of which `decodedSeconds` decoded. */
function chosenState(clipCount: number, sourceSeconds = 600, decodedSeconds = sourceSeconds): SplitChosen {
  return {
    organization_id: 7,
    job_id: JOB_ID,
    outcome: 'chosen',
    source: { ...SOURCE, duration_seconds: sourceSeconds },
    clips: Array.from({ length: clipCount }, (_, index) => ({
      clip_id: `clip_01J0000000000000000000000A_0${index + 1}`,
    })),
    clip_count: clipCount,
    has_transcript: false,
    decoded_seconds: decodedSeconds,
  };
}

function jobItem(overrides: Record<string, unknown> = {}) {
  return {
    ...JOB_KEY,
    job_id: JOB_ID,
    organization_id: 7,
    type: 'split',
    status: 'processing',
    progress: 70,
    created_at: '2026-03-01T11:59:00.000Z',
    updated_at: '2026-03-01T11:59:30.000Z',
    credits: { estimated: 50, charged: 50, refunded: 0 },
    input: { ...SPLIT_INPUT, max_clips: 3 },
    tracked: true,
    ...overrides,
  };
}

function clipItem(rank: number, status: string) {
  return {
    pk: 'ORG#7',
    sk: `CLIP#${JOB_ID}#0${rank}`,
    clip_id: `clip_01J0000000000000000000000A_0${rank}`,
    organization_id: 7,
    job_id: JOB_ID,
    rank,
    status,
    title: null,
    start_seconds: rank * 30,
    end_seconds: rank * 30 + 20,
    score: 0.5,
    updated_at: '2026-03-01T11:59:30.000Z',
  };
}

function givenJobAndClips(job: Record<string, unknown>, clips: Record<string, unknown>[]) {
  dynamo.on(GetCommand).resolves({ Item: job });
  dynamo.on(QueryCommand).resolves({ Items: clips });
  dynamo.on(UpdateCommand).resolves({});
  dynamo.on(TransactWriteCommand).resolves({});
}

function finishTransaction() {
  const calls = dynamo.commandCalls(TransactWriteCommand);
  expect(calls).toHaveLength(1);
  return calls[0]!.args[0].input.TransactItems ?? [];
}

beforeEach(() => {
  dynamo.reset();
  s3.reset();
});

describe('the finish of a split job', () => {
  it("completes with the completed clips counted and the failed clips' share refunded", async () => {
    givenJobAndClips(jobItem(), [clipItem(1, 'completed'), clipItem(2, 'failed'), clipItem(3, 'completed')]);

    const state = await finishSplitJob(chosenState(3));

    expect(state.outcome).toBe('completed');
    const items = finishTransaction();
    const job = itemAt(items, JOB_KEY).Update!;
    expect(job.ExpressionAttributeValues).toMatchObject({ ':status': 'completed', ':refund': 16, ':clips': 2 });
    expect(job.UpdateExpression).toContain('clips_count = :clips');
    expect(itemAt(items, ORGANIZATION_KEY).Update!.ExpressionAttributeValues).toMatchObject({ ':refund': 16 });
    const event = items.find((item) => String(item.Put?.Item?.sk).startsWith('EVENT#'))!.Put!.Item!;
    expect(event.payload).toMatchObject({
      type: 'job.completed',
      data: {
        job: {
          id: JOB_ID,
          type: 'split',
          status: 'completed',
          result_url: `/api/v1/developer/split-jobs/${JOB_ID}/result`,
          clips_url: `/api/v1/developer/split-jobs/${JOB_ID}/clips`,
        },
      },
    });
    expect(event.payload.data.job).not.toHaveProperty('asset_id');
    expect(dynamo.commandCalls(UpdateCommand)).toHaveLength(0);
  });

  it('fails and refunds everything when no clip rendered, failing the clips left unfinished first', async () => {
    givenJobAndClips(jobItem(), [clipItem(1, 'failed'), clipItem(2, 'processing')]);

    const state = await finishSplitJob(chosenState(2));

    expect(state.outcome).toBe('failed');
    const clipUpdates = dynamo.commandCalls(UpdateCommand).map((call) => call.args[0].input);
    expect(clipUpdates).toHaveLength(1);
    expect(clipUpdates[0]!.Key).toEqual({ pk: 'ORG#7', sk: `CLIP#${JOB_ID}#02` });
    expect(clipUpdates[0]!.ExpressionAttributeValues).toMatchObject({
      ':status': 'failed',
      ':error': SPLIT_ERRORS.clipRenderFailed,
    });
    const job = itemAt(finishTransaction(), JOB_KEY).Update!;
    expect(job.ExpressionAttributeValues).toMatchObject({
      ':status': 'failed',
      ':refund': 50,
      ':error': SPLIT_ERRORS.noClipRendered,
    });
  });

  it('fails with the error of a step that failed before clips were chosen', async () => {
    givenJobAndClips(jobItem(), []);

    await finishSplitJob({
      organization_id: 7,
      job_id: JOB_ID,
      outcome: 'failed',
      error: SPLIT_ERRORS.sourceUnreadable,
    });

    expect(itemAt(finishTransaction(), JOB_KEY).Update!.ExpressionAttributeValues).toMatchObject({
      ':status': 'failed',
      ':refund': 50,
      ':error': SPLIT_ERRORS.sourceUnreadable,
    });
  });

  it('fails with an internal error after a crash, keeping the price of the clips completed: 2 of 4 of 25 credits refunds 13', async () => {
    givenJobAndClips(jobItem({ credits: { estimated: 25, charged: 25, refunded: 0 } }), [
      clipItem(1, 'completed'),
      clipItem(2, 'completed'),
      clipItem(3, 'processing'),
      clipItem(4, 'failed'),
    ]);

    const state = await finishSplitJob({ organization_id: 7, job_id: JOB_ID, outcome: 'crashed' });

    expect(state.outcome).toBe('failed');
    const items = finishTransaction();
    expect(itemAt(items, JOB_KEY).Update!.ExpressionAttributeValues).toMatchObject({
      ':status': 'failed',
      ':refund': 13,
      ':error': expect.objectContaining({ code: 'INTERNAL_ERROR' }),
    });
    expect(itemAt(items, ORGANIZATION_KEY).Update!.ExpressionAttributeValues).toMatchObject({ ':refund': 13 });
    const clipUpdates = dynamo.commandCalls(UpdateCommand).map((call) => call.args[0].input);
    expect(clipUpdates.map((update) => update.Key)).toEqual([{ pk: 'ORG#7', sk: `CLIP#${JOB_ID}#03` }]);
    expect(clipUpdates[0]!.ExpressionAttributeValues).toMatchObject({
      ':status': 'failed',
      ':error': expect.objectContaining({ code: 'INTERNAL_ERROR' }),
    });
  });

  it('leaves a job that already ended as it is', async () => {
    givenJobAndClips(jobItem({ status: 'expired' }), [clipItem(1, 'processing')]);

    const state = await finishSplitJob(chosenState(1));

    expect(state.outcome).toBe('finished');
    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(0);
    expect(dynamo.commandCalls(UpdateCommand)).toHaveLength(0);
  });
});

describe('storing a rendered clip', () => {
  const CLIP: Clip = {
    clipId: 'clip_01J0000000000000000000000A_01',
    organizationId: 7,
    jobId: JOB_ID,
    rank: 1,
    status: 'processing',
    title: null,
    hookLine: null,
    ranking: null,
    startSeconds: 30,
    endSeconds: 50,
    score: 0.5,
    breakdown: null,
    reasons: [],
    sceneCuts: [],
    files: null,
    renderedSeconds: null,
    look: null,
    error: null,
  };
  let directory: string;
  /** The files the render left in the clip's directory. */
  let rendered: Parameters<typeof storeRenderedClip>[1];

  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), 'stored-clip-'));
    rendered = {
      videoPath: join(directory, 'clip.mp4'),
      thumbnailPath: join(directory, 'thumbnail.jpg'),
      durationSeconds: 20,
      framing: 'fit',
      framingReason: 'The whole picture is shown, as the job asked.',
      captionsBurnedIn: false,
    };
    await writeFile(rendered.videoPath, 'video');
    await writeFile(rendered.thumbnailPath, 'thumbnail');
    s3.on(PutObjectCommand).resolves({});
    s3.on(DeleteObjectCommand).resolves({});
  });

  afterEach(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  /** The clip's completion refused, the clip read afterwards in `status`. */
  function completionRefused(status: 'failed' | 'completed') {
    dynamo
      .on(UpdateCommand)
      .rejects(new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} }));
    dynamo.on(GetCommand).resolves({ Item: clipItem(1, status) });
  }

  const uploadedKeys = () => s3.commandCalls(PutObjectCommand).map((call) => call.args[0].input.Key!);
  const deletedKeys = () => s3.commandCalls(DeleteObjectCommand).map((call) => call.args[0].input.Key!);

  it('uploads its files under clips/, marks it completed with them, and deletes nothing', async () => {
    dynamo.on(UpdateCommand).resolves({});

    await expect(storeRenderedClip(CLIP, rendered, 'WEBVTT\n', directory)).resolves.toBe('completed');

    const prefix = `clips/7/${JOB_ID}/${CLIP.clipId}/`;
    expect(uploadedKeys().sort()).toEqual([`${prefix}captions.vtt`, `${prefix}clip.mp4`, `${prefix}thumbnail.jpg`]);
    expect(dynamo.commandCalls(UpdateCommand)[0]!.args[0].input.ExpressionAttributeValues).toMatchObject({
      ':status': 'completed',
      ':files': {
        video: `${prefix}clip.mp4`,
        thumbnail: `${prefix}thumbnail.jpg`,
        captions: `${prefix}captions.vtt`,
      },
    });
    expect(deletedKeys()).toEqual([]);
  });

  it.each([
    ['with captions', 'WEBVTT\n'],
    ['without captions', null],
  ])(
    'deletes exactly the files it uploaded (%s) when the clip was failed meanwhile, and answers it failed',
    async (_, captions) => {
      completionRefused('failed');

      await expect(storeRenderedClip(CLIP, rendered, captions, directory)).resolves.toBe('failed');

      expect(uploadedKeys()).toHaveLength(captions === null ? 2 : 3);
      expect(deletedKeys().sort()).toEqual(uploadedKeys().sort());
    },
  );

  it('keeps the files when another render of the clip completed it: they are that clip’s, at the same keys', async () => {
    completionRefused('completed');

    await expect(storeRenderedClip(CLIP, rendered, null, directory)).resolves.toBe('completed');

    expect(uploadedKeys()).toHaveLength(2);
    expect(deletedKeys()).toEqual([]);
  });
});

describe('a clip that could not be rendered', () => {
  it('is failed, and the log says why, the signed URL in the message redacted', async () => {
    dynamo.on(UpdateCommand).resolves({});
    const lines: string[] = [];
    const out = jest.spyOn(console, 'log').mockImplementation((line: string) => void lines.push(line));
    try {
      const cause = JSON.stringify({
        errorType: 'MediaToolError',
        errorMessage: 'ffmpeg failed reading https://bucket.s3.amazonaws.com/a.mp4?X-Amz-Signature=abc123',
        trace: [],
      });
      const result = await failSplitClip({
        organization_id: 7,
        job_id: JOB_ID,
        clip_id: 'clip_01J0000000000000000000000A_01',
        clip_count: 3,
        source: SOURCE,
        has_transcript: false,
        failure: { Error: 'MediaToolError', Cause: cause },
      });
      expect(result).toEqual({ clip_id: 'clip_01J0000000000000000000000A_01', status: 'failed' });
    } finally {
      out.mockRestore();
    }
    const line = JSON.parse(lines.find((text) => text.includes('A clip could not be rendered'))!) as Record<
      string,
      string
    >;
    expect(line).toMatchObject({
      level: 'warn',
      error: 'MediaToolError',
      clip_id: 'clip_01J0000000000000000000000A_01',
    });
    expect(line.error_message).toContain('ffmpeg failed reading https://bucket.s3.amazonaws.com/a.mp4');
    expect(line.error_message).not.toContain('abc123');
    const update = dynamo.commandCalls(UpdateCommand)[0]!.args[0].input;
    expect(update.ExpressionAttributeValues).toMatchObject({ ':status': 'failed' });
  });
});

describe('choosing the clips of a source that holds less than its header claims', () => {
  /** One analysed segment of 0–60 s (the header's length) whose picture stopped at `decodedEndSeconds`. */
  function givenAnalysis(decodedEndSeconds: number) {
    const analysis: SegmentAnalysis = {
      startSeconds: 0,
      endSeconds: 60,
      loudnessDb: new Array(120).fill(-20),
      motion: new Array(120).fill(0.2),
      sceneCuts: [10, 25],
      silences: [],
      hasAudio: true,
      decodedEndSeconds,
    };
    s3.on(GetObjectCommand).resolves({
      Body: { transformToString: async () => JSON.stringify(analysis) },
    } as never);
    dynamo.on(GetCommand).resolves({ Item: jobItem() });
    dynamo.on(QueryCommand).resolves({ Items: [] });
    dynamo.on(TransactWriteCommand).resolves({});
    dynamo.on(UpdateCommand).resolves({});
  }
  const state: SplitReady = {
    organization_id: 7,
    job_id: JOB_ID,
    outcome: 'ready',
    source: SOURCE,
    segments: [{ index: 0, start_seconds: 0, end_seconds: 60 }],
    transcription: { state: 'none' },
  };

  it('chooses clips only within the decoded picture, and carries its length to the finish', async () => {
    givenAnalysis(22.3);

    const chosen = await chooseSplitClips(new NoLanguageModel(), state);

    expect(chosen).toMatchObject({ outcome: 'chosen', decoded_seconds: 22.3 });
    const puts = dynamo
      .commandCalls(TransactWriteCommand)[0]!
      .args[0].input.TransactItems!.flatMap((item) => (item.Put ? [item.Put.Item!] : []));
    expect(puts.length).toBeGreaterThan(0);
    for (const clip of puts) expect(clip.end_seconds).toBeLessThanOrEqual(22.3);
  });

  it('ends with nothing to do when the job was cancelled or expired while its clips were chosen', async () => {
    givenAnalysis(22.3);
    dynamo.on(TransactWriteCommand).callsFake(refusedAt(JOB_KEY));

    await expect(chooseSplitClips(new NoLanguageModel(), state)).resolves.toEqual({
      organization_id: 7,
      job_id: JOB_ID,
      outcome: 'finished',
    });
  });

  it('ends as unreadable when less than a second of picture decodes', async () => {
    givenAnalysis(0.5);

    await expect(chooseSplitClips(new NoLanguageModel(), state)).resolves.toEqual({
      organization_id: 7,
      job_id: JOB_ID,
      outcome: 'unreadable',
    });
    expect(dynamo.commandCalls(TransactWriteCommand)).toEqual([]);
  });

  it("refunds the minutes the source does not hold when the job completes, besides the failed clips' share", async () => {
    givenJobAndClips(jobItem({ credits: { estimated: 10, charged: 10, refunded: 0 } }), [
      clipItem(1, 'completed'),
      clipItem(2, 'failed'),
    ]);

    await finishSplitJob(chosenState(2, 120, 22.3));

    const job = itemAt(finishTransaction(), JOB_KEY).Update!;
    expect(job.ExpressionAttributeValues).toMatchObject({ ':status': 'completed', ':refund': 7 });
  });
});

describe('starting the transcription', () => {
  const ASSET_ID = 'asset_01j0000000000000000000000b';
  const pending: SplitReady = {
    organization_id: 7,
    job_id: JOB_ID,
    outcome: 'ready',
    source: SOURCE,
    segments: [{ index: 0, start_seconds: 0, end_seconds: 60 }],
    transcription: { state: 'pending' },
  };

  function provider(
    start: TranscriptionProvider['start'],
  ): TranscriptionProvider & { requests: TranscriptionRequest[] } {
    const requests: TranscriptionRequest[] = [];
    return {
      kind: 'scripted',
      pollSeconds: 5,
      requests,
      start: (request) => {
        requests.push(request);
        return start(request);
      },
      poll: () => Promise.resolve({ state: 'in_progress' }),
    };
  }

  function givenJobAndSource() {
    dynamo.on(GetCommand).callsFake((input: { Key: { sk: string } }) => ({
      Item: input.Key.sk.startsWith('JOB#')
        ? jobItem({ input: { ...SPLIT_INPUT, source_asset_id: ASSET_ID, language: 'en-US' } })
        : {
            pk: 'ORG#7',
            sk: `ASSET#${ASSET_ID}`,
            asset_id: ASSET_ID,
            organization_id: 7,
            filename: 'talk.mp4',
            content_type: 'video/mp4',
            size_bytes: 1000,
            purpose: 'source',
            status: 'uploaded',
            created_at: '2026-03-01T11:00:00.000Z',
            object_key: SOURCE.object_key,
          },
    }));
  }

  it('starts it on the source, in the language asked, and follows it at the pace of the provider until its deadline', async () => {
    givenJobAndSource();
    const transcription = provider(() => Promise.resolve({ state: 'started', transcriptionId: 't-1' }));

    const state = await startSplitTranscription(transcription, pending, 1_000);

    expect(transcription.requests).toEqual([
      expect.objectContaining({
        jobId: JOB_ID,
        source: { bucket: 'media', key: SOURCE.object_key, contentType: 'video/mp4' },
        language: 'en-US',
      }),
    ]);
    expect(state.transcription).toEqual({
      state: 'in_progress',
      transcription_id: 't-1',
      poll_seconds: 5,
      deadline_at: 1_000 + TRANSCRIPTION_DEADLINE_SECONDS * 1000,
    });
  });

  it('goes on without one when there is no provider to run it', async () => {
    givenJobAndSource();

    const state = await startSplitTranscription(
      provider(() => Promise.resolve({ state: 'unavailable' })),
      pending,
    );

    expect(state.transcription).toEqual({ state: 'none' });
  });

  it('starts nothing for a source without sound', async () => {
    const transcription = provider(() => Promise.resolve({ state: 'started', transcriptionId: 't-1' }));

    const state = await startSplitTranscription(transcription, { ...pending, transcription: { state: 'none' } });

    expect(state.transcription).toEqual({ state: 'none' });
    expect(transcription.requests).toEqual([]);
  });

  it('lets a busy provider fail the step, for the state machine to retry', async () => {
    givenJobAndSource();
    const busy = Object.assign(new Error('Amazon Transcribe is busy'), { name: 'ProviderBusy' });

    await expect(
      startSplitTranscription(
        provider(() => Promise.reject(busy)),
        pending,
      ),
    ).rejects.toBe(busy);
  });
});
