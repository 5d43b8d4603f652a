import { rm } from 'node:fs/promises';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { SFNServiceException, StartExecutionCommand, StopExecutionCommand } from '@aws-sdk/client-sfn';
import { TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { startLocalStack, type LocalStack } from '../../local/stack';
import { stackDataDir } from '../support/stack-data-dir';

/**
 * Faults injected into a real local stack (the emulators, the route table's handlers, the video
 * job state machine and its workers, all in this process) at the SDK clients the code shares:
 * whatever fails, each job ends terminal or completed, refunded once where due, its slot released.
 */

type Domain = {
  clients: {
    dynamo: ReturnType<typeof import('#platform/clients/dynamodb').dynamo>;
    stepFunctions: ReturnType<typeof import('#domain/jobs/executions').stepFunctions>;
  };
  organizations: typeof import('#domain/access/organizations');
  apiKeys: typeof import('#domain/access/api-keys');
  jobStore: typeof import('#domain/jobs/job-store');
  reconciler: typeof import('#domain/jobs/reconciler');
  clipStore: typeof import('#domain/split-jobs/clip-store');
  localRenderer: typeof import('#domain/video-jobs/providers/local-renderer');
  port: typeof import('#domain/video-jobs/providers/port');
};

let dataDir: string;
let stack: LocalStack;
let domain: Domain;
const restoreAll: (() => void)[] = [];

beforeAll(async () => {
  dataDir = await stackDataDir('job-faults-');
  process.env.LOG_LEVEL = 'silent';
  process.env.VIDEO_RENDER_POLL_SECONDS = '1';
  // The stand-in for the video model at its cheapest, as in the integration tests' stack.
  process.env.LOCAL_RENDERER_PRESET = 'ultrafast';
  stack = await startLocalStack({ port: 0, dataDir });
  // Imported once the stack has set the emulator endpoints, which the clients read when created.
  domain = {
    clients: {
      dynamo: (await import('#platform/clients/dynamodb')).dynamo(),
      stepFunctions: (await import('#domain/jobs/executions')).stepFunctions(),
    },
    organizations: await import('#domain/access/organizations'),
    apiKeys: await import('#domain/access/api-keys'),
    jobStore: await import('#domain/jobs/job-store'),
    reconciler: await import('#domain/jobs/reconciler'),
    clipStore: await import('#domain/split-jobs/clip-store'),
    localRenderer: await import('#domain/video-jobs/providers/local-renderer'),
    port: await import('#domain/video-jobs/providers/port'),
  };
}, 120_000);

afterEach(() => {
  for (const restore of restoreAll.splice(0)) restore();
});

afterAll(async () => {
  await stack?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

const CREDITS = 100;

async function newOrganization() {
  const organization = await domain.organizations.createOrganization({ plan: 'team', credits: CREDITS });
  const { SCOPES } = await import('#domain/access/scopes');
  const { key } = await domain.apiKeys.createApiKey({
    organizationId: organization.organizationId,
    environment: 'test',
    scopes: SCOPES,
  });
  return { organizationId: organization.organizationId, key };
}

type Organization = Awaited<ReturnType<typeof newOrganization>>;

async function createVideoJob(organization: Organization, options: { prompt?: string; idempotencyKey?: string } = {}) {
  const response = await fetch(`${stack.apiUrl}/video-jobs`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${organization.key}`,
      'Content-Type': 'application/json',
      ...(options.idempotencyKey ? { 'Idempotency-Key': options.idempotencyKey } : {}),
    },
    body: JSON.stringify({ prompt: options.prompt ?? 'A lighthouse at dusk', duration_seconds: 5 }),
  });
  return { status: response.status, body: (await response.json()) as { id?: string; error?: { code: string } } };
}

async function jobOf(organization: Organization, jobId: string) {
  const job = await domain.jobStore.findJob(organization.organizationId, jobId);
  if (!job) throw new Error(`No job ${jobId}`);
  return job;
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const terminal = (job: { status: string }) => !['queued', 'processing'].includes(job.status);

/** What the organization holds after its jobs: balance and the active video jobs counted against its cap. */
async function ledgerOf(organization: Organization) {
  const { creditsBalance, activeVideoJobs } = (await domain.organizations.getOrganization(
    organization.organizationId,
  ))!;
  return { creditsBalance, activeVideoJobs };
}

/**
 * Replaces `client.send` for the commands `fault` claims (it returns a rejection), passing the rest
 * through; answers the spy, which sees every command sent.
 */
function injectFault(client: object, fault: (command: unknown) => Error | undefined) {
  const sender = client as { send: (command: unknown) => Promise<unknown> };
  const original = sender.send.bind(sender);
  const spy = jest.spyOn(sender, 'send').mockImplementation((command) => {
    const error = fault(command);
    return error ? Promise.reject(error) : original(command);
  });
  restoreAll.push(() => spy.mockRestore());
  return spy;
}

type Sends = ReturnType<typeof injectFault>;

/** A fault that strikes the first `times` matching commands only. */
function firstTimes(times: number, matches: (command: unknown) => boolean, error: () => Error) {
  let left = times;
  return (command: unknown) => {
    if (left === 0 || !matches(command)) return undefined;
    left -= 1;
    return error();
  };
}

const isStart = (command: unknown): command is StartExecutionCommand => command instanceof StartExecutionCommand;
const startRefused = () =>
  new SFNServiceException({ name: 'ServiceUnavailable', $fault: 'server', $metadata: {}, message: 'down' });

/** The finish transaction of a job, recognised by the status it writes. */
function isEnding(status: string) {
  return (command: unknown) =>
    command instanceof TransactWriteCommand &&
    ((command.input as TransactWriteCommandInput).TransactItems ?? []).some(
      (item) =>
        item.Update?.Key?.sk?.startsWith('JOB#') && item.Update.ExpressionAttributeValues?.[':status'] === status,
    );
}

/** The job id the create request tried to start (the response of a failed create carries none), as `sends` saw it. */
function startedJobId(sends: Sends): string {
  const [start] = sends.mock.calls.map(([command]) => command).filter(isStart);
  if (!start?.input.name) throw new Error('No execution was started');
  return start.input.name;
}

/**
 * A create whose start Step Functions refuses and whose compensating finish fails too: it answers
 * 500 and leaves its job queued, charged and holding a slot.
 */
async function createJobLeftQueued(organization: Organization, idempotencyKey?: string): Promise<string> {
  const sends = injectFault(domain.clients.stepFunctions, firstTimes(1, isStart, startRefused));
  injectFault(
    domain.clients.dynamo,
    firstTimes(1, isEnding('failed'), () => new Error('table unavailable')),
  );
  const created = await createVideoJob(organization, { idempotencyKey });
  expect(created.status).toBe(500);
  const jobId = startedJobId(sends);
  expect(await jobOf(organization, jobId)).toMatchObject({ status: 'queued' });
  return jobId;
}

describe('job faults', () => {
  test('StartExecution failing after the commit ends the job failed, refunded once, its slot released', async () => {
    const organization = await newOrganization();
    const sends = injectFault(domain.clients.stepFunctions, firstTimes(1, isStart, startRefused));

    const created = await createVideoJob(organization);
    expect(created.status).toBe(500);
    expect(created.body.error?.code).toBe('INTERNAL_ERROR');

    const jobId = startedJobId(sends);
    const job = await jobOf(organization, jobId);
    expect(job).toMatchObject({ status: 'failed', error: { code: 'START_FAILED' } });
    expect(job.credits.refunded).toBe(job.credits.charged);
    expect(await ledgerOf(organization)).toEqual({ creditsBalance: CREDITS, activeVideoJobs: 0 });
  });

  test('when the compensation fails too, a replay of the create starts the job and it completes, charged once', async () => {
    const organization = await newOrganization();
    const jobId = await createJobLeftQueued(organization, 'retry-me');

    const replay = await createVideoJob(organization, { idempotencyKey: 'retry-me' });
    expect(replay).toMatchObject({ status: 201, body: { id: jobId } });
    const job = await until(() => jobOf(organization, jobId), terminal);
    expect(job.status).toBe('completed');
    expect(await ledgerOf(organization)).toEqual({
      creditsBalance: CREDITS - job.credits.charged,
      activeVideoJobs: 0,
    });
  });

  test('when the compensation fails too and nobody replays, the reconciler starts the job and it completes', async () => {
    const organization = await newOrganization();
    const jobId = await createJobLeftQueued(organization);
    const report = await until(
      () => domain.reconciler.reconcileJobs(domain.clipStore.JOB_CLIPS, { now: new Date(Date.now() + 120_000) }),
      (result) => result.started > 0,
    );
    expect(report.errors).toBe(0);
    const job = await until(() => jobOf(organization, jobId), terminal);
    expect(job.status).toBe('completed');
    expect(await ledgerOf(organization)).toEqual({
      creditsBalance: CREDITS - job.credits.charged,
      activeVideoJobs: 0,
    });
  });

  test('a job left active past its bound is ended by the reconciler, refunded once', async () => {
    const organization = await newOrganization();
    const jobId = await createJobLeftQueued(organization);

    const farFuture = new Date(Date.now() + 10 * 3600_000);
    await until(
      () => domain.reconciler.reconcileJobs(domain.clipStore.JOB_CLIPS, { now: farFuture }),
      (report) => report.ended > 0,
    );
    const job = await jobOf(organization, jobId);
    expect(job).toMatchObject({ status: 'failed', error: { code: 'START_FAILED' } });
    expect(await ledgerOf(organization)).toEqual({ creditsBalance: CREDITS, activeVideoJobs: 0 });
    // A second run finds nothing more to refund.
    await domain.reconciler.reconcileJobs(domain.clipStore.JOB_CLIPS, { now: farFuture });
    expect(await ledgerOf(organization)).toEqual({ creditsBalance: CREDITS, activeVideoJobs: 0 });
  });

  test('an aborted execution ends its job failed through the execution-ended task, refunded, slot released', async () => {
    const organization = await newOrganization();
    const created = await createVideoJob(organization, { prompt: 'A render that never ends [fault:stall]' });
    expect(created.status).toBe(201);
    const jobId = created.body.id!;
    await until(
      () => jobOf(organization, jobId),
      (job) => job.status === 'processing',
    );

    await domain.clients.stepFunctions.send(
      new StopExecutionCommand({
        executionArn: `${process.env.VIDEO_JOB_STATE_MACHINE_ARN!.replace(':stateMachine:', ':execution:')}:${jobId}`,
      }),
    );
    const job = await until(() => jobOf(organization, jobId), terminal, 10_000);
    expect(job).toMatchObject({ status: 'failed', error: { code: 'INTERNAL_ERROR' } });
    expect(job.credits.refunded).toBe(job.credits.charged);
    expect(await ledgerOf(organization)).toEqual({ creditsBalance: CREDITS, activeVideoJobs: 0 });
  });

  test('a TransactionConflict on the finish is retried: the job completes, not refunded, with its video', async () => {
    const organization = await newOrganization();
    const conflict = () =>
      new TransactionCanceledException({
        message: 'Transaction cancelled',
        $metadata: {},
        CancellationReasons: [{ Code: 'TransactionConflict' }],
      });
    injectFault(domain.clients.dynamo, firstTimes(3, isEnding('completed'), conflict));

    const created = await createVideoJob(organization);
    const job = await until(() => jobOf(organization, created.body.id!), terminal);
    expect(job).toMatchObject({ status: 'completed', credits: { refunded: 0 } });
    expect(job.outputAssetId).toMatch(/^asset_/);
    const { findAsset } = await import('#domain/assets/asset-store');
    expect(await findAsset(organization.organizationId, job.outputAssetId!)).toMatchObject({ status: 'uploaded' });
    expect(await ledgerOf(organization)).toEqual({
      creditsBalance: CREDITS - job.credits.charged,
      activeVideoJobs: 0,
    });
  });

  test('a throttled provider poll is retried with backoff and the job completes', async () => {
    const organization = await newOrganization();
    const { LocalRenderer } = domain.localRenderer;
    const originalPoll = LocalRenderer.prototype.poll;
    let throttled = 0;
    const spy = jest.spyOn(LocalRenderer.prototype, 'poll').mockImplementation(function (this: unknown, id: string) {
      if (throttled < 2) {
        throttled += 1;
        return Promise.reject(new domain.port.ProviderBusy('Rate exceeded'));
      }
      return originalPoll.call(this, id);
    });
    restoreAll.push(() => spy.mockRestore());

    const created = await createVideoJob(organization);
    const job = await until(() => jobOf(organization, created.body.id!), terminal);
    expect(throttled).toBe(2);
    expect(job).toMatchObject({ status: 'completed', credits: { refunded: 0 } });
    expect(await ledgerOf(organization)).toEqual({
      creditsBalance: CREDITS - job.credits.charged,
      activeVideoJobs: 0,
    });
  });
});
