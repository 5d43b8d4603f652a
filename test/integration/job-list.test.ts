import { call, createKey, createOrganization, errorOf, type ErrorBody, type TestOrganization } from './support/stack';
import { waitForJob } from './support/jobs';

interface ListItem {
  id: string;
  type: string;
  status: string;
  progress: number;
  credits: { estimated: number; charged: number; refunded: number };
  result: {
    available: boolean;
    asset_id: string | null;
    clips_count: number | null;
    result_url: string;
    clips_url: string | null;
  };
  error: { code: string; message: string } | null;
  input?: Record<string, unknown>;
}

interface JobList {
  data: ListItem[];
  pagination: { next_cursor: string | null };
}

interface CreatedJob {
  id: string;
  status: string;
  createdAt: string;
  externalId?: string;
}

const EXTERNAL_IDS = ['order-1', 'ord#é/1 ✓', undefined] as const;
/**
 * Each outcome the local renderer can be asked for, by prompt marker, and how many jobs of it each
 * external id gets. A stalled render expires at the stack's render deadline (40 s in these tests),
 * so every job ends in a stable status. A completed job is a whole render and finishing encode,
 * many times the cost of the others, so there is one of those for each external id.
 */
const OUTCOMES = [
  { marker: ' [fault:stall]', status: 'expired', rounds: 2 },
  { marker: ' [fault:fail]', status: 'failed', rounds: 6 },
  { marker: '', status: 'completed', rounds: 1 },
] as const;

let org: TestOrganization;
let jobs: CreatedJob[];

async function createJob(prompt: string, externalId: string | undefined) {
  const response = await call<{ id: string; created_at: string }>('POST', '/video-jobs', {
    key: org.key,
    body: {
      prompt,
      duration_seconds: 5,
      ...(externalId === undefined ? {} : { metadata: { external_id: externalId } }),
    },
  });
  expect(response.status).toBe(201);
  return response.body;
}

beforeAll(async () => {
  org = await createOrganization({
    plan: 'custom',
    credits: 100_000,
    limits: { concurrent_video_jobs: 50, requests_per_minute_per_key: 100_000 },
  });
  const created: CreatedJob[] = [];
  // Every outcome with every external id: 27 jobs, more than a default page. Renders that complete
  // run one at a time, so that none is slow enough to reach the deadline.
  for (const outcome of OUTCOMES) {
    for (let round = 0; round < outcome.rounds; round += 1) {
      for (const externalId of EXTERNAL_IDS) {
        const job = await createJob(`A lighthouse at dusk ${round}${outcome.marker}`, externalId);
        created.push({ id: job.id, status: outcome.status, createdAt: job.created_at, externalId });
        if (outcome.status === 'completed') await waitForJob(org.key, job.id);
      }
    }
  }
  for (const job of created) {
    const { status } = (await waitForJob(org.key, job.id)).job;
    if (status !== job.status) throw new Error(`Job ${job.id} ended ${status}, not ${job.status}`);
  }
  jobs = created.sort((a, b) =>
    a.createdAt === b.createdAt ? b.id.localeCompare(a.id) : b.createdAt.localeCompare(a.createdAt),
  );
}, 240_000);

async function list(query: Record<string, string | number>, key = org.key) {
  const search = new URLSearchParams(
    Object.entries(query).map(([name, value]): [string, string] => [name, String(value)]),
  );
  return call<JobList>('GET', `/jobs?${search}`, { key });
}

/** Every page of a listing, checking each page's bound and that only the last has no cursor. */
async function listAll(query: Record<string, string | number>, limit: number) {
  const ids: string[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 100; page += 1) {
    const response = await list({ ...query, limit, ...(cursor ? { cursor } : {}) });
    expect(response.status).toBe(200);
    expect(response.body.data.length).toBeLessThanOrEqual(limit);
    ids.push(...response.body.data.map((item) => item.id));
    cursor = response.body.pagination.next_cursor;
    if (cursor === null) return ids;
    expect(response.body.data).toHaveLength(limit);
  }
  throw new Error('The listing never ended');
}

const FILTERS = {
  type: [undefined, 'video', 'split'],
  status: [undefined, 'completed', 'failed', 'expired', 'processing', 'queued'],
  metadata_external_id: [undefined, 'order-1', 'ord#é/1 ✓', 'no-such-order'],
} as const;

describe('GET /jobs', () => {
  it('returns every job matching each combination of filters exactly once, newest first, in pages of any size', async () => {
    for (const type of FILTERS.type) {
      for (const status of FILTERS.status) {
        for (const externalId of FILTERS.metadata_external_id) {
          const query = Object.fromEntries(
            Object.entries({ type, status, metadata_external_id: externalId }).filter(([, value]) => value),
          ) as Record<string, string>;
          const expected = jobs
            .filter(
              (job) =>
                (type === undefined || type === 'video') &&
                (status === undefined || job.status === status) &&
                (externalId === undefined || job.externalId === externalId),
            )
            .map((job) => job.id);
          for (const limit of [1, 4, 100]) {
            expect({ query, limit, ids: await listAll(query, limit) }).toEqual({ query, limit, ids: expected });
          }
        }
      }
    }
  }, 120_000);

  it('serves the creation range in the key condition: created_after inclusive, created_before exclusive, any offset', async () => {
    const pivot = jobs[6]!;
    const [date, time] = pivot.createdAt.split('T') as [string, string];
    const hours = Number(time.slice(0, 2));
    // The same instant written at UTC+01:00 (or UTC−01:00 near midnight).
    const shifted =
      hours < 23
        ? `${date}T${String(hours + 1).padStart(2, '0')}${time.slice(2, -1)}+01:00`
        : `${date}T${String(hours - 1).padStart(2, '0')}${time.slice(2, -1)}-01:00`;
    for (const instant of [pivot.createdAt, shifted]) {
      expect(await listAll({ created_after: instant }, 3)).toEqual(
        jobs.filter((job) => job.createdAt >= pivot.createdAt).map((job) => job.id),
      );
      expect(await listAll({ created_before: instant }, 3)).toEqual(
        jobs.filter((job) => job.createdAt < pivot.createdAt).map((job) => job.id),
      );
    }
    const [newest, oldest] = [jobs[2]!, jobs[9]!];
    expect(
      await listAll({ created_after: oldest.createdAt, created_before: newest.createdAt, status: 'failed' }, 1),
    ).toEqual(
      jobs
        .filter(
          (job) => job.createdAt >= oldest.createdAt && job.createdAt < newest.createdAt && job.status === 'failed',
        )
        .map((job) => job.id),
    );
    // A range that holds nothing, even one whose bounds are reversed, is an empty last page.
    const empty = await list({ created_after: newest.createdAt, created_before: oldest.createdAt });
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({ data: [], pagination: { next_cursor: null } });
    // Instants past year 9999 (which toISOString writes +010000-…) are after every job.
    for (const beyond of ['9999-12-31T23:59:59.9991Z', '9999-12-31T23:00:00-01:00']) {
      expect(await listAll({ created_after: beyond }, 100)).toEqual([]);
      expect(await listAll({ created_before: beyond }, 100)).toEqual(jobs.map((job) => job.id));
    }
  });

  it('gives each job its creation time, metadata and stage, availability flags and API paths, never signed URLs', async () => {
    const response = await list({ limit: 100 });
    const itemOf = (job: CreatedJob) => response.body.data.find((item) => item.id === job.id);
    const common = (job: CreatedJob) => ({
      id: job.id,
      type: 'video',
      status: job.status,
      stage: null,
      created_at: job.createdAt,
      updated_at: expect.any(String),
      metadata: job.externalId === undefined ? null : { external_id: job.externalId },
      credits: { estimated: 10, charged: 10, refunded: expect.any(Number) },
      result: expect.objectContaining({
        clips_count: null,
        result_url: `/api/v1/developer/video-jobs/${job.id}/result`,
        clips_url: null,
      }),
    });
    for (const job of jobs.filter(({ status }) => status === 'completed')) {
      expect(itemOf(job)).toMatchObject({
        ...common(job),
        progress: 100,
        credits: { estimated: 10, charged: 10, refunded: 0 },
        result: { available: true, asset_id: expect.stringMatching(/^asset_/) },
        error: null,
      });
    }
    for (const job of jobs.filter(({ status }) => status !== 'completed')) {
      expect(itemOf(job)).toMatchObject({
        ...common(job),
        credits: { estimated: 10, charged: 10, refunded: 10 },
        result: { available: false, asset_id: null },
        error: { code: expect.any(String), message: expect.any(String) },
      });
    }
    expect(response.body.data).toHaveLength(jobs.length);
    expect(JSON.stringify(response.body)).not.toMatch(/https?:|X-Amz/i);
  });

  it('pages 25 jobs by default', async () => {
    const first = await list({});
    expect(first.body.data.map((item) => item.id)).toEqual(jobs.map((job) => job.id).slice(0, 25));
    const second = await list({ cursor: first.body.pagination.next_cursor! });
    expect(second.body.data.map((item) => item.id)).toEqual(jobs.map((job) => job.id).slice(25));
    expect(second.body.pagination.next_cursor).toBeNull();
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=ten', 'limit'],
    ['status=done', 'status'],
    ['type=clip', 'type'],
    ['created_after=yesterday', 'created_after'],
    ['created_before=2026-02-30T00:00:00Z', 'created_before'],
    ['metadata_external_id=', 'metadata_external_id'],
    ['sort=asc', 'sort'],
  ])('refuses %s with 400 naming the parameter', async (query, name) => {
    const response = await call<ErrorBody>('GET', `/jobs?${query}`, { key: org.key });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('VALIDATION_FAILED');
    expect(response.body.error.message).toContain(name);
  });
});

describe('GET /jobs cursors', () => {
  let cursor: string;

  beforeAll(async () => {
    const first = await list({ status: 'failed', limit: 2 });
    if (!first.body.pagination.next_cursor) throw new Error('A first page of two failed jobs has no next cursor');
    cursor = first.body.pagination.next_cursor;
  });

  async function expectCursorRefused(query: Record<string, string | number>, key = org.key) {
    const response = await list(query, key);
    expect(response.status).toBe(400);
    expect(errorOf(response)).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: expect.stringContaining('cursor'),
    });
  }

  it('continues the same listing, whatever the page size', async () => {
    const rest = await list({ status: 'failed', limit: 100, cursor });
    expect(rest.body.data.map((item) => item.id)).toEqual(
      jobs
        .filter((job) => job.status === 'failed')
        .map((job) => job.id)
        .slice(2),
    );
  });

  it('refuses a cursor made for other filters', async () => {
    await expectCursorRefused({ status: 'completed', cursor });
    await expectCursorRefused({ cursor });
    await expectCursorRefused({ status: 'failed', type: 'video', cursor });
    await expectCursorRefused({ status: 'failed', created_after: '2020-01-01T00:00:00Z', cursor });
  });

  it('refuses a forged, altered or truncated cursor', async () => {
    const [version, keyId, position, mac] = cursor.split('.') as [string, string, string, string];
    const decoded = Buffer.from(position, 'base64url').toString();
    const otherPosition = Buffer.from(decoded.replace(/.$/, (last) => (last === '0' ? '1' : '0'))).toString(
      'base64url',
    );
    const flipped = mac.replace(/^./, (first) => (first === 'A' ? 'B' : 'A'));
    for (const forged of [
      [version, keyId, otherPosition, mac].join('.'),
      [version, keyId, position, flipped].join('.'),
      ['2', keyId, position, mac].join('.'),
      [version, 'other-key', position, mac].join('.'),
      [version, keyId, position].join('.'),
      cursor.slice(0, -1),
      `${cursor}.x`,
      `${cursor}=`,
      'not-a-cursor',
    ]) {
      await expectCursorRefused({ status: 'failed', cursor: forged });
    }
  });

  it("refuses another organization's cursor, and lists none of its jobs", async () => {
    const other = await createOrganization({ plan: 'custom', limits: { requests_per_minute_per_key: 10_000 } });
    await expectCursorRefused({ status: 'failed', cursor }, other.key);
    const theirs = await list({ limit: 100 }, other.key);
    expect(theirs.body).toEqual({ data: [], pagination: { next_cursor: null } });
    const detail = await call<ErrorBody>('GET', `/jobs/${jobs[0]!.id}`, { key: other.key });
    expect(detail.status).toBe(404);
    expect(detail.body.error.code).toBe('JOB_NOT_FOUND');
  });

  it('accepts the cursor from another key of the same organization', async () => {
    const second = await createKey(org.organizationId);
    const rest = await list({ status: 'failed', limit: 100, cursor }, second.key);
    expect(rest.status).toBe(200);
    expect(rest.body.data).toHaveLength(jobs.filter((job) => job.status === 'failed').length - 2);
  });
});

describe('GET /jobs/{id}', () => {
  it('answers the unified detail with the input, for any status', async () => {
    for (const job of [jobs[0]!, jobs[3]!, jobs[8]!]) {
      const response = await call<ListItem>('GET', `/jobs/${job.id}`, { key: org.key });
      expect(response.status).toBe(200);
      const item = (await list({ limit: 100 })).body.data.find((candidate) => candidate.id === job.id);
      expect(response.body).toEqual({
        ...item,
        progress: expect.any(Number),
        input: {
          mode: 'text_to_video',
          prompt: expect.stringContaining('A lighthouse at dusk'),
          duration_seconds: 5,
          aspect_ratio: '9:16',
          model: 'auto',
        },
      });
    }
  });

  it.each(['split_job_01jz0000000000000000000000', 'video_job_01jz0000000000000000000000', 'asset_x', 'x'.repeat(300)])(
    'answers 404 JOB_NOT_FOUND for %s',
    async (id) => {
      const response = await call<ErrorBody>('GET', `/jobs/${id}`, { key: org.key });
      expect(response.status).toBe(404);
      expect(response.body.error.code).toBe('JOB_NOT_FOUND');
    },
  );

  it('needs the jobs:read scope, on the list and the detail', async () => {
    const narrow = await createKey(org.organizationId, { scopes: ['video:read'] });
    for (const path of ['/jobs', `/jobs/${jobs[0]!.id}`]) {
      const response = await call<ErrorBody>('GET', path, { key: narrow.key });
      expect(response.status).toBe(403);
      expect(response.body.error.code).toBe('INSUFFICIENT_SCOPE');
    }
  });
});
