import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeStackInfo } from '../../local/stack-info';
import { findRunningLocalStack, LocalStackNotRunning } from '../../scripts/admin/local-stack';

let dataDir: string;
beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'admin-local-stack-'));
});
afterEach(() => rm(dataDir, { recursive: true, force: true }));

/** The pid of a process that has ended. */
async function endedPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid as number;
}

/** A loopback server answering /healthz with `status`; its port is free again once closed. */
async function healthServer(status: number): Promise<{ server: Server; apiUrl: string }> {
  const server = createServer((_, response) => response.writeHead(status).end());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, apiUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/developer` };
}

const close = (server: Server) => new Promise((resolve) => server.close(resolve));

/** Expects the data dir's stack to be reported as not running, for `reason`, in the words an operator reads. */
async function expectNotRunning(reason: RegExp) {
  const error = await findRunningLocalStack(dataDir).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(LocalStackNotRunning);
  expect((error as Error).message).toMatch(
    new RegExp(
      `^The local stack in ${dataDir} is not running \\(${reason.source}\\); start it with npm start, or set TABLE_NAME for a deployed stack\\.$`,
    ),
  );
}

describe('finding the running local stack', () => {
  it('answers the stack info when its process lives and /healthz answers 200', async () => {
    const { server, apiUrl } = await healthServer(200);
    try {
      const info = { pid: process.pid, apiUrl, environment: { TABLE_NAME: 'video-api-local' } };
      await writeStackInfo(dataDir, info);
      await expect(findRunningLocalStack(dataDir)).resolves.toEqual(info);
    } finally {
      await close(server);
    }
  });

  it('says no stack has started in a data dir without stack info', async () => {
    await expectNotRunning(/no stack has started there: .*stack\.json is missing/);
  });

  it("says the stack's process has ended when the stack info outlived it", async () => {
    const pid = await endedPid();
    await writeStackInfo(dataDir, { pid, apiUrl: 'http://127.0.0.1:1/api/v1/developer', environment: {} });
    await expectNotRunning(new RegExp(`its process ${pid} has ended`));
  });

  it('says /healthz does not answer when the pid now belongs to something else', async () => {
    const { server, apiUrl } = await healthServer(200);
    await close(server);
    await writeStackInfo(dataDir, { pid: process.pid, apiUrl, environment: {} });
    await expectNotRunning(/http:\/\/127\.0\.0\.1:\d+\/healthz does not answer/);
  });

  it('says what /healthz answered when it is not 200', async () => {
    const { server, apiUrl } = await healthServer(503);
    try {
      await writeStackInfo(dataDir, { pid: process.pid, apiUrl, environment: {} });
      await expectNotRunning(/.*\/healthz answers 503/);
    } finally {
      await close(server);
    }
  });
});
