import { readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { eventually } from './support/eventually';
import { adminJson, startStackProcess, stopStackProcess, type StackProcess } from './support/stack-process';
import { stackDataDir } from '../support/stack-data-dir';
import { readStackInfo } from '../../local/stack-info';

/**
 * A local stack killed while a job is between two workflow steps, then started again on the same
 * data: the job must not stay active (holding its charge and its concurrency slot), and the files
 * its functions were writing must not pile up.
 */

let dataDir: string;
let stack: StackProcess | undefined;

beforeAll(async () => {
  dataDir = await stackDataDir('crash-recovery-');
});

afterAll(async () => {
  if (stack) await stopStackProcess(stack);
  await rm(dataDir, { recursive: true, force: true });
});

const admin = (...args: string[]) => adminJson(dataDir, ...args);

async function get(path: string, key: string) {
  const response = await fetch(`${stack!.apiUrl}${path}`, { headers: { Authorization: `Bearer ${key}` } });
  return (await response.json()) as Record<string, unknown>;
}

/** The stack's own temporary directory for its functions, under the data dir (local/main.ts). */
const temporaryDirectories = () => readdir(join(dataDir, 'tmp'));
const stackPid = async () => String((await readStackInfo(dataDir))!.pid);

test("a job under way when the stack is killed ends, refunded once, when the stack starts again, and the killed stack's temporary files are gone", async () => {
  stack = await startStackProcess(dataDir);
  const organization = await admin('org', 'create', '--plan', 'team', '--credits', '100');
  const { key } = (await admin('key', 'create', '--org', String(organization.organization_id))) as { key: string };

  const created = await fetch(`${stack.apiUrl}/video-jobs`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ prompt: 'A render cut short [fault:stall]', duration_seconds: 5 }),
  });
  expect(created.status).toBe(201);
  const { id, credits } = (await created.json()) as { id: string; credits: { charged: number } };
  const processing = await eventually(
    () => get(`/video-jobs/${id}`, key),
    (job) => job.status === 'processing',
    { timeoutMs: 60_000 },
  );
  expect(processing.status).toBe('processing');

  const killedPid = await stackPid();
  expect(await temporaryDirectories()).toEqual([killedPid]);
  await writeFile(join(dataDir, 'tmp', killedPid, 'render-in-progress.mp4'), 'a file its work never removed');
  await stopStackProcess(stack, 'SIGKILL');
  stack = await startStackProcess(dataDir);
  expect(await temporaryDirectories()).toEqual([await stackPid()]);

  const ended = await eventually(
    () => get(`/video-jobs/${id}`, key),
    (job) => job.status !== 'processing' && job.status !== 'queued',
    { timeoutMs: 60_000 },
  );
  expect(ended).toMatchObject({ status: 'failed', credits: { charged: credits.charged, refunded: credits.charged } });
  expect(await admin('org', 'show', '--org', String(organization.organization_id))).toMatchObject({
    credits_balance: 100,
    active_video_jobs: 0,
  });
});
