import { eventually } from './support/eventually';
import { closeJobStateClients, domain, executionStatus, queuedJob, splitJobWithClipsDone } from './support/job-states';
import { waitForJob, type VideoJob } from './support/jobs';
import {
  call,
  createKey,
  createOrganization,
  errorOf,
  getOrganization,
  listDeliveries,
  listEvents,
  type ErrorBody,
  type TestOrganization,
} from './support/stack';
import { WebhookReceiver } from './support/webhook-receiver';

/**
 * Cancelling jobs against the running local stack: the route table's handlers, the job core's
 * transactions, the state machines stopped through the Step Functions emulator, and the webhook
 * pipeline.
 */

afterAll(closeJobStateClients);

async function stalledVideoJob(org: TestOrganization, body: Record<string, unknown> = {}): Promise<VideoJob> {
  const created = await call<VideoJob>('POST', '/video-jobs', {
    key: org.key,
    body: { prompt: 'Never done [fault:stall]', duration_seconds: 5, ...body },
  });
  expect(created.status).toBe(201);
  return created.body;
}

async function jobStatus(org: TestOrganization, jobId: string): Promise<string> {
  return (await call<VideoJob>('GET', `/jobs/${jobId}`, { key: org.key })).body.status;
}

describe('cancelling a job', () => {
  it('cancels a queued video job: 200 with the job cancelled, refunded in full, its slot freed', async () => {
    const org = await createOrganization({ credits: 100 });
    const jobId = await queuedJob(org, 'video', 10);
    expect(await getOrganization(org.organizationId)).toMatchObject({ creditsBalance: 90, activeVideoJobs: 1 });

    const cancelled = await call<VideoJob>('POST', `/video-jobs/${jobId}/cancel`, { key: org.key });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({
      id: jobId,
      type: 'video',
      status: 'cancelled',
      credits: { estimated: 10, charged: 10, refunded: 10 },
      result: { available: false, download_url_available: false },
      error: { code: 'JOB_CANCELLED', message: expect.any(String) },
    });
    expect(await getOrganization(org.organizationId)).toMatchObject({ creditsBalance: 100, activeVideoJobs: 0 });
    const listed = await call<{ data: { id: string; status: string }[] }>('GET', '/jobs?status=cancelled', {
      key: org.key,
    });
    expect(listed.body.data.map((job) => [job.id, job.status])).toEqual([[jobId, 'cancelled']]);
    const result = await call<ErrorBody>('GET', `/video-jobs/${jobId}/result`, { key: org.key });
    expect([result.status, result.body.error.code]).toEqual([409, 'JOB_FAILED']);
  });

  it('cancels a processing video job and stops its execution, which ends without failing the job', async () => {
    const org = await createOrganization({ credits: 100 });
    const job = await stalledVideoJob(org);
    expect(
      await eventually(
        () => jobStatus(org, job.id),
        (status) => status === 'processing',
      ),
    ).toBe('processing');

    const cancelled = await call<VideoJob>('POST', `/video-jobs/${job.id}/cancel`, { key: org.key });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', credits: { charged: 10, refunded: 10 } });
    // Stopped by the cancel, or, when its poll came between the cancel's transaction and the stop,
    // ended by that step, which finds its job no longer active (render-steps.ts).
    expect(['ABORTED', 'SUCCEEDED']).toContain(
      await eventually(
        () => executionStatus('video', job.id),
        (status) => status !== 'RUNNING',
      ),
    );

    // The execution-ended task has seen the ended execution by now, or will: it leaves the job as it is.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await jobStatus(org, job.id)).toBe('cancelled');
    expect((await listEvents(org.organizationId)).map((event) => event.type)).toEqual(['job.cancelled']);
    expect(await getOrganization(org.organizationId)).toMatchObject({ creditsBalance: 100, activeVideoJobs: 0 });
  });

  it('answers a repeated cancel with 200 and the same job, refunding once', async () => {
    const org = await createOrganization({ credits: 100 });
    const jobId = await queuedJob(org, 'video', 10);
    const first = await call<VideoJob>('POST', `/video-jobs/${jobId}/cancel`, { key: org.key });
    const again = await Promise.all([
      call<VideoJob>('POST', `/video-jobs/${jobId}/cancel`, { key: org.key }),
      call<VideoJob>('POST', `/jobs/${jobId}/cancel`, { key: org.key }),
      call<VideoJob>('POST', `/video-jobs/${jobId}/cancel`, { key: org.key }),
    ]);
    expect([first, ...again].map((response) => [response.status, response.body.status])).toEqual(
      Array(4).fill([200, 'cancelled']),
    );
    expect(again[0]!.body).toEqual(first.body);
    expect(await getOrganization(org.organizationId)).toMatchObject({ creditsBalance: 100, activeVideoJobs: 0 });
    expect(await listEvents(org.organizationId)).toHaveLength(1);
  });

  it('refunds a processing split job the share of its clips not completed, rounded up, and keeps its completed clips downloadable', async () => {
    const org = await createOrganization({ credits: 100 });
    const jobId = await splitJobWithClipsDone(org, 25, 1, 3);
    expect((await getOrganization(org.organizationId))?.creditsBalance).toBe(75);

    const cancelled = await call<VideoJob>('POST', `/split-jobs/${jobId}/cancel`, { key: org.key });
    expect(cancelled.status).toBe(200);
    // 25 credits for 3 clips: the completed one keeps floor(25 / 3) = 8, the other 17 come back.
    expect(cancelled.body).toMatchObject({
      type: 'split',
      status: 'cancelled',
      credits: { charged: 25, refunded: 17 },
      result: { available: false, clips_count: null },
    });
    expect(await getOrganization(org.organizationId)).toMatchObject({ creditsBalance: 92, activeSplitJobs: 0 });
    const clips = await call<{ clips: { status: string; download_url: string | null }[] }>(
      'GET',
      `/split-jobs/${jobId}/clips`,
      { key: org.key },
    );
    expect(clips.body.clips.map((clip) => [clip.status, clip.download_url !== null])).toEqual([
      ['completed', true],
      ['failed', false],
      ['failed', false],
    ]);
  });

  it('refunds a split job cancelled before its clips are chosen in full, through the unified route in its shape', async () => {
    const org = await createOrganization({ credits: 100 });
    const jobId = await queuedJob(org, 'split', 25);
    const cancelled = await call<Record<string, unknown>>('POST', `/jobs/${jobId}/cancel`, { key: org.key });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({
      id: jobId,
      type: 'split',
      status: 'cancelled',
      stage: null,
      credits: { charged: 25, refunded: 25 },
      result: { available: false, clips_url: `/api/v1/developer/split-jobs/${jobId}/clips` },
      input: { max_clips: 3 },
    });
    expect(Object.keys(cancelled.body).sort()).toEqual(
      [
        'created_at',
        'credits',
        'error',
        'id',
        'input',
        'metadata',
        'progress',
        'result',
        'stage',
        'status',
        'type',
        'updated_at',
      ].sort(),
    );
  });

  it('answers 409 JOB_ALREADY_ENDED naming the status for a completed job, and changes nothing', async () => {
    const org = await createOrganization({ credits: 100 });
    const created = await call<VideoJob>('POST', '/video-jobs', {
      key: org.key,
      body: { prompt: 'A lighthouse at dusk', duration_seconds: 5 },
    });
    const { job } = await waitForJob(org.key, created.body.id);
    expect(job.status).toBe('completed');
    for (const path of [`/video-jobs/${job.id}/cancel`, `/jobs/${job.id}/cancel`]) {
      const refused = await call<ErrorBody>('POST', path, { key: org.key });
      expect([refused.status, refused.body.error.code]).toEqual([409, 'JOB_ALREADY_ENDED']);
      expect(refused.body.error.message).toContain('completed');
    }
    expect(await jobStatus(org, job.id)).toBe('completed');
    expect((await getOrganization(org.organizationId))?.creditsBalance).toBe(90);
  });

  it('frees the slot: at the concurrency cap a create is refused, and admitted once a job is cancelled', async () => {
    const org = await createOrganization({ credits: 100 });
    const jobs = [await stalledVideoJob(org), await stalledVideoJob(org), await stalledVideoJob(org)];
    const refused = await call<ErrorBody>('POST', '/video-jobs', {
      key: org.key,
      body: { prompt: 'One too many [fault:stall]', duration_seconds: 5 },
    });
    expect([refused.status, refused.body.error.code]).toEqual([429, 'CONCURRENT_JOB_LIMIT_EXCEEDED']);
    expect((await call('POST', `/video-jobs/${jobs[0]!.id}/cancel`, { key: org.key })).status).toBe(200);
    const admitted = await stalledVideoJob(org);
    expect(admitted.status).toBe('queued');
    for (const job of [...jobs.slice(1), admitted])
      await call('POST', `/video-jobs/${job.id}/cancel`, { key: org.key });
  });

  it('resolves cancels racing the jobs’ own ends to one final status and one refund each, in the balance and usage', async () => {
    const { lifecycle } = await domain();
    const org = await createOrganization({ plan: 'custom', credits: 1000, limits: { concurrent_video_jobs: 20 } });
    const jobIds: string[] = [];
    for (let index = 0; index < 8; index += 1) {
      const jobId = await queuedJob(org, 'video', 10);
      await lifecycle.markProcessing(org.organizationId, jobId);
      jobIds.push(jobId);
    }
    const answers = await Promise.all(
      jobIds.map(async (jobId, index) => {
        const ownEnd =
          index % 2 === 0
            ? lifecycle.finishJob(org.organizationId, jobId, { status: 'completed', outputAssetId: null, outputs: [] })
            : lifecycle.finishJob(org.organizationId, jobId, {
                status: 'failed',
                error: { code: 'RENDER_FAILED', message: 'The render failed.' },
              });
        const [cancel] = await Promise.all([
          call<VideoJob>('POST', `/video-jobs/${jobId}/cancel`, { key: org.key }),
          ownEnd,
        ]);
        return cancel;
      }),
    );

    let expectedBalance = 1000;
    let refunded = 0;
    const byStatus: Record<string, number> = {};
    for (const [index, jobId] of jobIds.entries()) {
      const job = (await call<VideoJob>('GET', `/video-jobs/${jobId}`, { key: org.key })).body;
      const answer = answers[index]!;
      const ownEnd = index % 2 === 0 ? 'completed' : 'failed';
      // Whichever came first decided the status; the cancel answered it, and the refund follows it.
      const expected =
        job.status === 'cancelled'
          ? { status: 'cancelled', answer: [200, 'cancelled'], refunded: 10 }
          : { status: ownEnd, answer: [409, 'JOB_ALREADY_ENDED'], refunded: ownEnd === 'completed' ? 0 : 10 };
      const answered = [answer.status, answer.status === 200 ? answer.body.status : errorOf(answer).code];
      expect({ status: job.status, answer: answered, refunded: job.credits.refunded }).toEqual(expected);
      expectedBalance -= 10 - job.credits.refunded;
      refunded += job.credits.refunded;
      byStatus[job.status] = (byStatus[job.status] ?? 0) + 1;
    }
    expect(await getOrganization(org.organizationId)).toMatchObject({
      creditsBalance: expectedBalance,
      activeVideoJobs: 0,
    });
    const events = await listEvents(org.organizationId);
    expect(events).toHaveLength(jobIds.length);
    const credits = await call<{ by_job_type: { video: { charged: number; refunded: number; jobs: number } } }>(
      'GET',
      '/usage/credits?job_type=video',
      { key: org.key },
    );
    expect(credits.body.by_job_type.video).toEqual({ charged: 80, refunded, jobs: 8 });
    const usage = await call<{ by_type: { video: { total: number; by_status: Record<string, number> } } }>(
      'GET',
      '/usage/jobs?job_type=video',
      { key: org.key },
    );
    expect(usage.body.by_type.video.total).toBe(8);
    expect(
      Object.fromEntries(Object.entries(usage.body.by_type.video.by_status).filter(([, count]) => count > 0)),
    ).toEqual(byStatus);
  });
});

describe('job.cancelled', () => {
  const receiver = new WebhookReceiver();
  beforeAll(() => receiver.start());
  afterAll(() => receiver.stop());

  it('is delivered to an endpoint subscribed to it, and to no endpoint subscribed only to the other job events', async () => {
    const org = await createOrganization({ credits: 100 });
    for (const [path, events] of [
      ['/cancelled', ['job.cancelled']],
      ['/ended', ['job.completed', 'job.failed']],
    ] as const) {
      const endpoint = await call('POST', '/webhooks', {
        key: org.key,
        body: { url: `${receiver.url}${path}`, events },
      });
      expect(endpoint.status).toBe(201);
    }
    const jobId = await queuedJob(org, 'video', 10);
    await call('POST', `/video-jobs/${jobId}/cancel`, { key: org.key });

    const received = await receiver.waitFor((all) => all.some((delivery) => delivery.rawBody.includes(jobId)));
    const ours = received.filter((delivery) => delivery.rawBody.includes(jobId));
    expect(ours.map((delivery) => [delivery.path, delivery.headers['service-webhook-event']])).toEqual([
      ['/hooks/cancelled', 'job.cancelled'],
    ]);
    expect(JSON.parse(ours[0]!.rawBody)).toMatchObject({
      id: expect.stringMatching(/^evt_/),
      type: 'job.cancelled',
      data: {
        job: {
          id: jobId,
          type: 'video',
          status: 'cancelled',
          error: { code: 'JOB_CANCELLED', message: expect.any(String) },
        },
      },
    });
    const deliveries = await eventually(
      () => listDeliveries(org.organizationId),
      (all) => all.every((delivery) => delivery.status === 'succeeded'),
    );
    expect(deliveries).toHaveLength(1);
  });
});

describe('who may cancel', () => {
  it('answers 404 for another organization’s job on every cancel route, whatever the key’s scopes', async () => {
    const owner = await createOrganization({ credits: 100 });
    const stranger = await createOrganization({ credits: 100 });
    const videoJobId = await queuedJob(owner, 'video', 10);
    const splitJobId = await queuedJob(owner, 'split', 10);
    for (const path of [
      `/video-jobs/${videoJobId}/cancel`,
      `/jobs/${videoJobId}/cancel`,
      `/split-jobs/${splitJobId}/cancel`,
      `/jobs/${splitJobId}/cancel`,
    ]) {
      const response = await call<ErrorBody>('POST', path, { key: stranger.key });
      expect([path, response.status, response.body.error.code]).toEqual([path, 404, 'JOB_NOT_FOUND']);
    }
    const noScopes = await createKey(stranger.organizationId, { scopes: [] });
    const response = await call<ErrorBody>('POST', `/jobs/${videoJobId}/cancel`, { key: noScopes.key });
    expect([response.status, response.body.error.code]).toEqual([404, 'JOB_NOT_FOUND']);
    expect(await jobStatus(owner, videoJobId)).toBe('queued');
  });

  it('answers 404 on a typed route for a job of the other type, as its GET does', async () => {
    const org = await createOrganization({ credits: 100 });
    const videoJobId = await queuedJob(org, 'video', 10);
    const response = await call<ErrorBody>('POST', `/split-jobs/${videoJobId}/cancel`, { key: org.key });
    expect([response.status, response.body.error.code]).toEqual([404, 'JOB_NOT_FOUND']);
  });

  it('needs the create scope of the job’s type: on the typed routes, and on the unified route once the job is found', async () => {
    const org = await createOrganization({ credits: 100 });
    const videoJobId = await queuedJob(org, 'video', 10);
    const splitJobId = await queuedJob(org, 'split', 10);
    const readOnly = await createKey(org.organizationId, { scopes: ['video:read', 'split:read', 'jobs:read'] });
    const videoOnly = await createKey(org.organizationId, { scopes: ['video:create'] });
    for (const [key, path] of [
      [readOnly.key, `/video-jobs/${videoJobId}/cancel`],
      [readOnly.key, `/split-jobs/${splitJobId}/cancel`],
      [readOnly.key, `/jobs/${videoJobId}/cancel`],
      [videoOnly.key, `/jobs/${splitJobId}/cancel`],
    ]) {
      const response = await call<ErrorBody>('POST', path!, { key });
      expect([path, response.status, response.body.error.code]).toEqual([path, 403, 'INSUFFICIENT_SCOPE']);
    }
    const allowed = await call<VideoJob>('POST', `/jobs/${videoJobId}/cancel`, { key: videoOnly.key });
    expect([allowed.status, allowed.body.status]).toEqual([200, 'cancelled']);
    expect(await jobStatus(org, splitJobId)).toBe('queued');
  });
});
