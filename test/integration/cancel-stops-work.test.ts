import { readdir, readFile, rm } from 'node:fs/promises';
import { eventually } from './support/eventually';
import { makePodcastSource } from './support/media';
import { adminJson, startStackProcess, stopStackProcess, type StackProcess } from './support/stack-process';
import { stackDataDir } from '../support/stack-data-dir';
import { readStackInfo } from '../../local/stack-info';

/**
 * A cancelled job stops using the machine: on a stack of its own (so that the media processes
 * counted are this test's), two split jobs of a 3:46 talk are cancelled while the first one's
 * speech is being recognized and the second waits its turn. Within seconds no ffmpeg and no
 * recognizer of the stack runs. (That a waiting transcription never starts is the adapter's
 * test, in test/unit/pocketsphinx.test.ts.)
 */

let dataDir: string;
let stack: StackProcess | undefined;

beforeAll(async () => {
  dataDir = await stackDataDir('cancel-stops-work-');
});

afterAll(async () => {
  if (stack) await stopStackProcess(stack);
  await rm(dataDir, { recursive: true, force: true });
});

const admin = (...args: string[]) => adminJson(dataDir, ...args);

/** The names of the programs running under `pid`, at any depth, read from /proc. */
async function descendants(pid: number): Promise<string[]> {
  const parents = new Map<number, number>();
  const names = new Map<number, string>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => undefined);
    // pid (comm) state ppid …: the name may hold spaces and parentheses, so read from the last ')'.
    const match = stat && /^(\d+) \((.*)\) \S+ (\d+)/s.exec(stat);
    if (!match) continue;
    names.set(Number(match[1]), match[2]!);
    parents.set(Number(match[1]), Number(match[3]));
  }
  const under = (child: number): boolean => {
    for (let current = parents.get(child); current !== undefined && current > 1; current = parents.get(current)) {
      if (current === pid) return true;
    }
    return false;
  };
  return [...names].filter(([child]) => under(child)).map(([, name]) => name);
}

const media = (names: string[]) => names.filter((name) => /ffmpeg|pocketsphinx/.test(name));

async function upload(apiUrl: string, key: string, bytes: Buffer): Promise<string> {
  const headers = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
  const upload = (await (
    await fetch(`${apiUrl}/assets/upload-url`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        filename: 'talk.mp4',
        content_type: 'video/mp4',
        size_bytes: bytes.length,
        purpose: 'split_source',
      }),
    })
  ).json()) as { asset_id: string; upload_url: string };
  const put = await fetch(upload.upload_url, { method: 'PUT', headers: { 'Content-Type': 'video/mp4' }, body: bytes });
  expect(put.status).toBe(200);
  const confirmed = await fetch(`${apiUrl}/assets/confirm-upload`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ asset_id: upload.asset_id }),
  });
  expect(confirmed.status).toBe(200);
  return upload.asset_id;
}

test('cancelling split jobs stops their ffmpeg and their speech recognizer within seconds', async () => {
  stack = await startStackProcess(dataDir);
  const stackPid = (await readStackInfo(dataDir))!.pid;
  const organization = await admin('org', 'create', '--plan', 'team', '--credits', '100');
  const { key } = (await admin('key', 'create', '--org', String(organization.organization_id))) as { key: string };
  const sourceId = await upload(
    stack.apiUrl,
    key,
    makePodcastSource({ durationSeconds: 226, width: 640, height: 360 }),
  );

  const jobIds: string[] = [];
  for (let index = 0; index < 2; index += 1) {
    const created = await fetch(`${stack.apiUrl}/split-jobs`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ source_asset_id: sourceId }),
    });
    expect(created.status).toBe(201);
    jobIds.push(((await created.json()) as { id: string }).id);
  }
  const recognizing = await eventually(
    () => descendants(stackPid),
    (names) => names.some((name) => name.startsWith('pocketsphinx')),
    { timeoutMs: 60_000, everyMs: 200 },
  );
  expect(recognizing.some((name) => name.startsWith('pocketsphinx'))).toBe(true);

  for (const jobId of jobIds) {
    const cancelled = await fetch(`${stack.apiUrl}/jobs/${jobId}/cancel`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}` },
    });
    expect(cancelled.status).toBe(200);
  }

  const afterCancel = await eventually(
    async () => media(await descendants(stackPid)),
    (running) => running.length === 0,
    { timeoutMs: 8_000, everyMs: 200 },
  );
  expect(afterCancel).toEqual([]);
}, 180_000);
