import { call, createOrganization, type TestOrganization } from './support/stack';

/**
 * Ages the idempotency record of a key past its 24-hour retention, straight in the stack's table:
 * what a record looks like once expired and before TTL, which may take days, has deleted it.
 */
async function expireRecord(organizationId: number, key: string) {
  Object.assign(process.env, JSON.parse(process.env.IT_STACK_ENVIRONMENT as string) as Record<string, string>);
  const { dynamo, tableName } = await import('#platform/clients/dynamodb');
  const { UpdateCommand } = await import('@aws-sdk/lib-dynamodb');
  await dynamo().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: { pk: `ORG#${organizationId}`, sk: `IDEMPOTENCY#createVideoJob#${key}` },
      UpdateExpression: 'SET expires_at = :twoDaysAgo',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':twoDaysAgo': Math.floor(Date.now() / 1000) - 2 * 86_400 },
    }),
  );
}

describe('an Idempotency-Key whose record is past its retention but not yet deleted', () => {
  let org: TestOrganization;
  beforeAll(async () => {
    org = await createOrganization({ plan: 'custom', limits: { concurrent_video_jobs: 10 } });
  });

  const create = (key: string, prompt: string) =>
    call<{ id: string }>('POST', '/video-jobs', {
      key: org.key,
      headers: { 'idempotency-key': key },
      body: { prompt, duration_seconds: 5 },
    });

  it('takes another body as a new request (201, not 409), and the key then belongs to it', async () => {
    const first = await create('expired-other-body', '[fault:fail] first body');
    expect(first.status).toBe(201);
    await expireRecord(org.organizationId, 'expired-other-body');

    const second = await create('expired-other-body', '[fault:fail] second body');
    expect(second.status).toBe(201);
    expect(second.body.id).not.toBe(first.body.id);

    const replayed = await create('expired-other-body', '[fault:fail] second body');
    expect(replayed.status).toBe(201);
    expect(replayed.body.id).toBe(second.body.id);
  });

  it('creates a new job for the same body instead of replaying the first one', async () => {
    const first = await create('expired-same-body', '[fault:fail] same body');
    expect(first.status).toBe(201);
    await expireRecord(org.organizationId, 'expired-same-body');

    const again = await create('expired-same-body', '[fault:fail] same body');
    expect(again.status).toBe(201);
    expect(again.body.id).not.toBe(first.body.id);
  });
});
