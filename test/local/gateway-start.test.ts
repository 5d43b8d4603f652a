import { readdir, rm } from 'node:fs/promises';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { createGateway, type HandlerLoader } from '../../local/http-gateway';
import { startLocalStack } from '../../local/stack';
import { stackDataDir } from '../support/stack-data-dir';

/**
 * The local gateway takes its port before anything else of the stack starts: a tool that picks a
 * free PORT by asking the OS for one gets it from the same ephemeral range as the emulators' ports
 * and the stack's own connections to them.
 */

async function listening(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

async function closed(server: Server): Promise<void> {
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

describe('the local gateway while the stack starts', () => {
  let ready: boolean;
  let loads: string[];
  let gateway: ReturnType<typeof createGateway>;
  let base: string;

  beforeEach(async () => {
    ready = false;
    loads = [];
    const loadHandler: HandlerLoader = async (name) => {
      loads.push(name);
      return async () => ({ statusCode: 200, body: '{"ok":true}' });
    };
    gateway = createGateway({
      loadHandler,
      extraRoutes: {
        '/healthz': (response) => {
          response.writeHead(ready ? 200 : 503).end();
        },
      },
      isReady: () => ready,
    });
    base = `http://127.0.0.1:${await listening(gateway)}`;
  });

  afterEach(async () => {
    gateway.closeAllConnections();
    await closed(gateway);
  });

  it("answers API requests with API Gateway's 503 and loads no handler until the stack is ready", async () => {
    const health = await fetch(`${base}/healthz`);
    expect(health.status).toBe(503);
    const early = await fetch(`${base}/api/v1/developer/me`, { headers: { authorization: 'Bearer x' } });
    expect(early.status).toBe(503);
    expect(await early.json()).toEqual({ message: 'Service Unavailable' });
    expect(loads).toEqual([]);

    ready = true;
    const later = await fetch(`${base}/api/v1/developer/me`, { headers: { authorization: 'Bearer x' } });
    expect(later.status).toBe(200);
    expect(loads).toHaveLength(1);
  });
});

describe('a local stack asked for a port something else holds', () => {
  it('fails with EADDRINUSE before any emulator starts', async () => {
    const holder = createServer();
    const port = await listening(holder);
    const dataDir = await stackDataDir('gateway-start-');
    try {
      await expect(startLocalStack({ port, dataDir })).rejects.toMatchObject({ code: 'EADDRINUSE' });
      // Each emulator keeps its files under a folder of its own here; none was made or written.
      expect(await readdir(dataDir)).toEqual(['dynamodb']);
      expect(await readdir(`${dataDir}/dynamodb`)).toEqual([]);
    } finally {
      await closed(holder);
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
