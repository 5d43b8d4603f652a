import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { sortableId } from '#platform/ids';
import { runAdmin } from './support/stack-process';
import { call, createOrganization, type TestOrganization } from './support/stack';

interface JobList {
  data: { id: string; status: string }[];
  pagination: { next_cursor: string | null };
}

/** A job item as the service wrote it before the job list entries and usage aggregates existed. */
function legacyJob(
  organizationId: number,
  createdAt: string,
  status: string,
  charged: number,
  refunded: number,
  externalId?: string,
) {
  const jobId = sortableId('video_job_', Date.parse(createdAt));
  return {
    pk: `ORG#${organizationId}`,
    sk: `JOB#${jobId}`,
    gsi1pk: `ORG#${organizationId}#JOBS`,
    gsi1sk: `${createdAt}#${jobId}`,
    job_id: jobId,
    organization_id: organizationId,
    type: 'video',
    status,
    progress: status === 'completed' ? 100 : 0,
    created_at: createdAt,
    updated_at: createdAt,
    credits: { estimated: charged, charged, refunded },
    // Any restart of the processing one by the reconciler fails at once.
    input: {
      prompt: 'An old job [fault:fail]',
      duration_seconds: 5,
      aspect_ratio: '9:16',
      model: 'auto',
      mode: 'text_to_video',
    },
    ...(externalId ? { metadata_json: JSON.stringify({ external_id: externalId }), external_id: externalId } : {}),
    error: status === 'failed' ? { code: 'GENERATION_FAILED', message: 'The video could not be generated.' } : null,
  };
}

let org: TestOrganization;
let table: {
  put: (item: Record<string, unknown>) => Promise<unknown>;
  get: (key: Record<string, string>) => Promise<Record<string, unknown> | undefined>;
};

async function list(query: string) {
  const response = await call<JobList>('GET', `/jobs?${query}`, { key: org.key });
  expect(response.status).toBe(200);
  return response.body.data.map((item) => item.id);
}

beforeAll(async () => {
  org = await createOrganization({ plan: 'custom', credits: 1000 });
  const { dynamo, tableName } = await import('#platform/clients/dynamodb');
  table = {
    put: (item) => dynamo().send(new PutCommand({ TableName: tableName(), Item: item })),
    get: async (key) => (await dynamo().send(new GetCommand({ TableName: tableName(), Key: key }))).Item,
  };
});

it('tracks jobs written before the job list, once, so that they are listed and counted like new ones', async () => {
  const completed = legacyJob(org.organizationId, '2026-11-01T10:00:00.000Z', 'completed', 10, 0, 'legacy-1');
  const failed = legacyJob(org.organizationId, '2026-11-02T11:00:00.000Z', 'failed', 20, 20);
  const processing = legacyJob(org.organizationId, new Date().toISOString(), 'processing', 30, 0, 'legacy-1');
  for (const item of [completed, failed, processing]) await table.put(item);
  expect(await list('limit=100')).toEqual([]);

  const admin = (...args: string[]) => runAdmin(process.env.IT_DATA_DIR!, args);
  const first = await admin('migrate', '--json');
  expect(first.code).toBe(0);
  expect(JSON.parse(first.stdout)).toEqual({ jobs_examined: 3, jobs_tracked: 3 });

  expect(await list('limit=1')).toEqual([processing.job_id]);
  expect(await list('limit=100')).toEqual([processing.job_id, failed.job_id, completed.job_id]);
  expect(await list('status=failed')).toEqual([failed.job_id]);
  expect(await list('metadata_external_id=legacy-1')).toEqual([processing.job_id, completed.job_id]);
  expect(await list('type=video&status=processing&metadata_external_id=legacy-1')).toEqual([processing.job_id]);

  const stored = async (jobId: string) => (await table.get({ pk: `ORG#${org.organizationId}`, sk: `JOB#${jobId}` }))!;
  expect(await stored(completed.job_id)).toMatchObject({ tracked: true });
  expect(await stored(completed.job_id)).not.toHaveProperty('gsi1pk');
  expect(await stored(completed.job_id)).not.toHaveProperty('active_shard');
  expect(await stored(processing.job_id)).toMatchObject({
    tracked: true,
    active_shard: expect.stringMatching(/^ACTIVE#[0-7]$/),
    active_since: `${processing.created_at}#${processing.job_id}`,
  });

  const usage = await call<{ by_type: { video: { total: number; by_status: Record<string, number> } } }>(
    'GET',
    '/usage/jobs?period=custom&start_date=2026-11-01&end_date=2026-11-02',
    { key: org.key },
  );
  expect(usage.body.by_type.video).toEqual({
    total: 2,
    by_status: { queued: 0, processing: 0, completed: 1, failed: 1, cancelled: 0, expired: 0 },
  });
  const credits = await call<{ charged: number; refunded: number }>(
    'GET',
    '/usage/credits?period=custom&start_date=2026-11-01&end_date=2026-11-02',
    { key: org.key },
  );
  expect(credits.body).toMatchObject({ charged: 30, refunded: 20 });

  const again = await admin('migrate', '--json');
  expect(JSON.parse(again.stdout)).toEqual({ jobs_examined: 0, jobs_tracked: 0 });
});
