import { startLocalStack } from './stack';
import { localDataDir } from './stack-info';
import { SCOPES } from '#domain/access/scopes';

const DEMO_CREDITS = 1000;

/** How often the stack checks that the process that started it is still there. */
const PARENT_CHECK_MS = 500;

/**
 * Calls `onGone` once the process that started this one has ended. `npm start` execs this process,
 * so npm's forwarded SIGINT and SIGTERM reach it; npm killed outright (SIGKILL) forwards nothing,
 * and the stack, handed to another parent, would go on serving with its emulators beside it.
 */
function whenParentGone(onGone: (parent: number) => void) {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    onGone(parent);
  }, PARENT_CHECK_MS);
  timer.unref();
}

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

async function main() {
  const port = Number(process.env.PORT ?? 3000);
  const dataDir = localDataDir();
  const stack = await startLocalStack({ port, dataDir, onFreshStart: seedDemoOrganization });
  console.log(stack.transcription);
  console.log(`Local stack ready: ${stack.apiUrl} (health: http://127.0.0.1:${stack.port}/healthz, data: ${dataDir})`);

  let stopping = false;
  const shutdown = async (reason: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${reason}: stopping the local stack`);
    await stack.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  whenParentGone((parent) => void shutdown(`Its parent process ${parent} ended`));
}

main().catch((error) => {
  console.error('The local stack failed to start:', error);
  process.exit(1);
});
