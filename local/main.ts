import { mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { startLocalStack } from './stack';
import { localDataDir, processExists } from './stack-info';
import { SCOPES } from '#domain/access/scopes';

const DEMO_CREDITS = 1000;

async function seedDemoOrganization() {
  // Imported only now: their AWS clients read the emulator endpoints from the environment.
  const { createOrganization } = await import('#domain/access/organizations');
  const { createApiKey } = await import('#domain/access/api-keys');
  const organization = await createOrganization({ plan: 'team', credits: DEMO_CREDITS });
  const { key } = await createApiKey({
    organizationId: organization.organizationId,
    environment: 'test',
    scopes: SCOPES,
  });
  console.log(
    [
      '',
      `Seeded demo Team organization ${organization.organizationId} with ${DEMO_CREDITS} credits.`,
      `Demo test key (shown once, store it now): ${key}`,
      '',
    ].join('\n'),
  );
}

/**
 * The functions' temporary files go to a directory of this process's own, as a Lambda container's
 * /tmp is its own. The directories of stacks no longer running go at the next start, with what
 * their unfinished work left in them.
 */
async function useOwnTemporaryDirectory(dataDir: string) {
  const root = join(dataDir, 'tmp');
  const owners = await readdir(root).catch(() => []);
  for (const owner of owners.filter((pid) => !processExists(Number(pid)))) {
    await rm(join(root, owner), { recursive: true, force: true });
  }
  const directory = join(root, String(process.pid));
  await mkdir(directory, { recursive: true });
  process.env.TMPDIR = directory;
}

async function main() {
  const port = Number(process.env.PORT ?? 3000);
  const dataDir = localDataDir();
  await useOwnTemporaryDirectory(dataDir);
  const stack = await startLocalStack({ port, dataDir, onFreshStart: seedDemoOrganization });
  console.log(stack.transcription);
  console.log(`Local stack ready: ${stack.apiUrl} (health: http://127.0.0.1:${stack.port}/healthz, data: ${dataDir})`);

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: stopping the local stack`);
    await stack.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

main().catch((error) => {
  console.error('The local stack failed to start:', error);
  process.exit(1);
});
