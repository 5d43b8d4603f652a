import { DynamoDBDocumentClient, GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { createJob } from '#domain/jobs/lifecycle';
import {
  findIdempotencyRecord,
  IDEMPOTENCY_RETENTION_SECONDS,
  idempotencyRecordPut,
  requestFingerprint,
} from '#platform/idempotency';
import { itemAt, refusedAt } from './support/transactions';
import { newVideoJob } from './support/new-job';

process.env.TABLE_NAME = 'table';
process.env.AWS_REGION = 'us-east-1';

describe('request fingerprint', () => {
  it('ignores key order at every depth', () => {
    expect(requestFingerprint({ a: 1, b: { c: 2, d: [1, { e: 1, f: 2 }] } })).toBe(
      requestFingerprint({ b: { d: [1, { f: 2, e: 1 }], c: 2 }, a: 1 }),
    );
  });

  it('distinguishes different values and array orders', () => {
    expect(requestFingerprint({ prompt: 'a' })).not.toBe(requestFingerprint({ prompt: 'b' }));
    expect(requestFingerprint({ list: [1, 2] })).not.toBe(requestFingerprint({ list: [2, 1] }));
  });

  it('keeps a __proto__ key as a key: it counts in the fingerprint and never becomes a prototype', () => {
    // As the request pipeline gets it: JSON.parse makes `__proto__` an own property.
    const withProtoKey = JSON.parse('{"metadata":{"__proto__":{"a":1}}}') as unknown;
    const fingerprint = requestFingerprint(withProtoKey);

    expect(fingerprint).not.toBe(requestFingerprint({ metadata: {} }));
    expect(fingerprint).not.toBe(requestFingerprint({ metadata: { a: 1 } }));
    expect(fingerprint).toBe(requestFingerprint(JSON.parse('{"metadata":{"__proto__":{"a":1}}}')));
    expect(fingerprint).not.toBe(requestFingerprint(JSON.parse('{"metadata":{"__proto__":{"a":2}}}')));
    expect(({} as Record<string, unknown>).a).toBeUndefined();
  });
});

describe('an idempotency record past its retention', () => {
  const dynamo = mockClient(DynamoDBDocumentClient);
  // Far from the real clock, so a test passes only if the request's own time is used.
  const NOW = new Date('2020-06-01T12:00:00.000Z');
  const nowSeconds = NOW.getTime() / 1000;
  const claim = { operation: 'createVideoJob', key: 'key-1', fingerprint: requestFingerprint({ prompt: 'A' }) };
  const recordKey = { pk: 'ORG#7', sk: 'IDEMPOTENCY#createVideoJob#key-1' };
  const storedRecord = (expiresAt: number) => ({
    ...recordKey,
    fingerprint: claim.fingerprint,
    job_id: 'video_job_1',
    created_at: new Date((expiresAt - IDEMPOTENCY_RETENTION_SECONDS) * 1000).toISOString(),
    expires_at: expiresAt,
  });

  beforeEach(() => {
    dynamo.reset();
  });

  it('is overwritten by the create transaction, which refuses only a record still retained', () => {
    const { Put } = idempotencyRecordPut(7, claim, 'video_job_2', NOW);

    expect(Put).toMatchObject({
      Item: { ...recordKey, job_id: 'video_job_2', expires_at: nowSeconds + IDEMPOTENCY_RETENTION_SECONDS },
      ConditionExpression: 'attribute_not_exists(pk) OR expires_at < :now',
      ExpressionAttributeValues: { ':now': nowSeconds },
    });
  });

  it.each([
    ['expired a second ago', nowSeconds - 1, undefined],
    ['expired days ago and not yet deleted by TTL', nowSeconds - 5 * 86_400, undefined],
    ['expiring this very second', nowSeconds, { fingerprint: claim.fingerprint, jobId: 'video_job_1' }],
    ['retained another hour', nowSeconds + 3600, { fingerprint: claim.fingerprint, jobId: 'video_job_1' }],
  ])('reads as absent only once past expires_at: a record %s', async (_, expiresAt, expected) => {
    dynamo.on(GetCommand, { Key: recordKey }).resolves({ Item: storedRecord(expiresAt) });

    await expect(findIdempotencyRecord(7, claim, NOW)).resolves.toEqual(expected);
  });

  describe('in the create path', () => {
    const request = newVideoJob({
      input: { prompt: 'A', duration_seconds: 5, aspect_ratio: '9:16', model: 'auto', mode: 'text_to_video' },
      idempotency: claim,
    });
    it('creates a new job over an expired record, judged at the time of the request', async () => {
      dynamo.on(TransactWriteCommand).resolves({});

      const { job, replayed } = await createJob(request, NOW);

      expect(replayed).toBe(false);
      const items = dynamo.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems ?? [];
      expect(itemAt(items, recordKey).Put).toMatchObject({
        Item: { ...recordKey, job_id: job.jobId },
        ConditionExpression: 'attribute_not_exists(pk) OR expires_at < :now',
        ExpressionAttributeValues: { ':now': nowSeconds },
      });
    });

    it('replays a record the transaction found retained, judging it at the same time', async () => {
      dynamo.on(TransactWriteCommand).callsFake(refusedAt(recordKey));
      dynamo.on(GetCommand, { Key: recordKey }).resolves({ Item: storedRecord(nowSeconds + 60) });
      dynamo.on(GetCommand, { Key: { pk: 'ORG#7', sk: 'JOB#video_job_1' } }).resolves({
        Item: {
          job_id: 'video_job_1',
          organization_id: 7,
          type: 'video',
          status: 'queued',
          progress: 0,
          created_at: NOW.toISOString(),
          updated_at: NOW.toISOString(),
          credits: { estimated: 10, charged: 10, refunded: 0 },
          input: request.input,
        },
      });

      const { job, replayed } = await createJob(request, NOW);

      expect(replayed).toBe(true);
      expect(job.jobId).toBe('video_job_1');
    });
  });
});
