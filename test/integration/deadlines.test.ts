import { eventually } from './support/eventually';
import { closeJobStateClients, domain, executionStatus, queuedJob, splitJobWithClipsDone } from './support/job-states';
import type { VideoJob } from './support/jobs';
import { call, createOrganization, getOrganization, listEvents, type ErrorBody } from './support/stack';

/**
 * `deadline_seconds` on the running local stack: validated and echoed by the creates, and applied
 * by the reconciler, run here as its schedule would run it once the deadline has passed.
 */

afterAll(closeJobStateClients);

/** One reconciler run at `secondsLater` after the job's creation; its metrics are not this test's output. */
async function reconcileAfter(job: { created_at: string }, secondsLater: number) {
  const { reconciler, clipStore } = await domain();
  const { setMetricWriter } = await import('#platform/metrics');
  setMetricWriter(() => undefined);
  return reconciler.reconcileJobs(clipStore.JOB_CLIPS, {
    now: new Date(Date.parse(job.created_at) + secondsLater * 1000),
  });
}

async function jobOf(key: string, jobId: string): Promise<VideoJob & { created_at: string }> {
  const path = `/${jobId.startsWith('split_job_') ? 'split-jobs' : 'video-jobs'}/${jobId}`;
  return (await call<VideoJob & { created_at: string }>('GET', path, { key })).body;
}

describe('deadline_seconds on the creates', () => {
  it.each([59, 86_401, 90.5, '600', null])(
    'refuses %p with 400 VALIDATION_FAILED naming it, on both creates',
    async (value) => {
      const org = await createOrganization({ credits: 100 });
      const requests = [
        ['/video-jobs', { prompt: 'p', duration_seconds: 5, deadline_seconds: value }],
        ['/split-jobs', { source_asset_id: 'asset_00000000000000000000000000', deadline_seconds: value }],
      ] as const;
      for (const [path, body] of requests) {
        const response = await call<ErrorBody>('POST', path, { key: org.key, body });
        expect([path, response.status, response.body.error.code]).toEqual([path, 400, 'VALIDATION_FAILED']);
        expect(response.body.error.message).toContain('deadline_seconds');
      }
      expect((await getOrganization(org.organizationId))?.creditsBalance).toBe(100);
    },
  );

  it('echoes the deadline in the job’s input when it was given, and nothing when it was not', async () => {
    const org = await createOrganization({ credits: 100 });
    const bounds = await Promise.all(
      [60, 86_400].map((deadline) =>
        call<VideoJob>('POST', '/video-jobs', {
          key: org.key,
          body: { prompt: `Bounded [fault:stall]`, duration_seconds: 5, deadline_seconds: deadline },
        }),
      ),
    );
    expect(
      bounds.map((response) => [response.status, (response.body.input as Record<string, unknown>).deadline_seconds]),
    ).toEqual([
      [201, 60],
      [201, 86_400],
    ]);
    const plain = await call<VideoJob>('POST', '/video-jobs', {
      key: org.key,
      body: { prompt: 'Unbounded [fault:stall]', duration_seconds: 5 },
    });
    expect(plain.body.input).not.toHaveProperty('deadline_seconds');
    for (const job of [...bounds, plain]) await call('POST', `/video-jobs/${job.body.id}/cancel`, { key: org.key });
  });
});

describe('a job past its deadline', () => {
  it('is left alone before its deadline, then expires: refunded, slot freed, job.failed with status expired, execution stopped', async () => {
    const org = await createOrganization({ credits: 100 });
    const created = await call<VideoJob>('POST', '/video-jobs', {
      key: org.key,
      body: { prompt: 'Stalled for ever [fault:stall]', duration_seconds: 5, deadline_seconds: 120 },
    });
    expect(created.status).toBe(201);
    await eventually(
      () => jobOf(org.key, created.body.id),
      (job) => job.status === 'processing',
    );

    await reconcileAfter(await jobOf(org.key, created.body.id), 119);
    expect((await jobOf(org.key, created.body.id)).status).toBe('processing');

    await reconcileAfter(await jobOf(org.key, created.body.id), 121);
    const job = await jobOf(org.key, created.body.id);
    expect(job).toMatchObject({
      status: 'expired',
      credits: { charged: 10, refunded: 10 },
      error: { code: 'JOB_DEADLINE_EXCEEDED', message: expect.any(String) },
    });
    expect(await getOrganization(org.organizationId)).toMatchObject({ creditsBalance: 100, activeVideoJobs: 0 });
    // Stopped by the reconciler, or, when its poll came between the expiry and the stop, ended by
    // that step, which finds its job no longer active (render-steps.ts): either way, not running.
    expect(['ABORTED', 'SUCCEEDED']).toContain(
      await eventually(
        () => executionStatus('video', job.id),
        (status) => status !== 'RUNNING',
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const events = await listEvents(org.organizationId);
    expect(events.map((event) => event.payload)).toEqual([
      expect.objectContaining({
        type: 'job.failed',
        data: { job: { id: job.id, type: 'video', status: 'expired', error: job.error } },
      }),
    ]);
    const cancel = await call<ErrorBody>('POST', `/video-jobs/${job.id}/cancel`, { key: org.key });
    expect([cancel.status, cancel.body.error.code]).toEqual([409, 'JOB_ALREADY_ENDED']);
  });

  it('refunds a split job by the cancel’s rules: the share of its clips not completed, rounded up', async () => {
    const org = await createOrganization({ credits: 100 });
    const jobId = await splitJobWithClipsDone(org, 25, 2, 3, { deadline_seconds: 60 });
    const queuedId = await queuedJob(org, 'split', 10, { deadline_seconds: 60 });
    const created = await jobOf(org.key, jobId);
    await reconcileAfter(created, 120);
    // 25 credits for 3 clips: the two completed keep floor(50 / 3) = 16, the third's 9 come back.
    expect(await jobOf(org.key, jobId)).toMatchObject({ status: 'expired', credits: { charged: 25, refunded: 9 } });
    expect(await jobOf(org.key, queuedId)).toMatchObject({ status: 'expired', credits: { charged: 10, refunded: 10 } });
    expect(await getOrganization(org.organizationId)).toMatchObject({ creditsBalance: 84, activeSplitJobs: 0 });
  });
});
