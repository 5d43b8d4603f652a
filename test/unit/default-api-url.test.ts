import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * With no API_URL, the examples, the console and listen call the local stack on the port it was
 * started with (PORT, as `npm start` reads it), so `PORT=3710 npm start` needs nothing more. A fake
 * API on a free port, given to each as PORT only, must see its first request.
 */

const PROJECT_ROOT = join(__dirname, '..', '..');

describe('the API the examples, the console and listen call without API_URL', () => {
  let api: Server;
  let port: number;
  let requests: string[];
  let work: string;
  let video: string;

  beforeAll(async () => {
    api = createServer((request, response) => {
      requests.push(`${request.method} ${request.url}`);
      response
        .writeHead(401, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { code: 'unauthorized', message: 'The fake API knows no key' } }));
    });
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
    port = (api.address() as AddressInfo).port;
    work = await mkdtemp(join(tmpdir(), 'default-api-url-'));
    video = join(work, 'talk.mp4');
    await writeFile(video, 'not really a video');
  });

  afterAll(async () => {
    api.closeAllConnections();
    await new Promise((resolve) => api.close(resolve));
    await rm(work, { recursive: true, force: true });
  });

  beforeEach(() => {
    requests = [];
  });

  /** Runs a command to its end (the fake API refuses the key, so each ends at its first call), with PORT and no API_URL. */
  function run(args: string[]): Promise<void> {
    const environment = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== 'API_URL'));
    return new Promise((resolve) => {
      execFile(
        process.execPath,
        args,
        {
          cwd: PROJECT_ROOT,
          env: { ...environment, PORT: String(port), API_KEY: 'svc_test_abc_secret' },
          timeout: 30_000,
        },
        () => resolve(),
      );
    });
  }

  it.each([
    [
      'examples/quick-start/list-jobs.mjs',
      () => ['examples/quick-start/list-jobs.mjs'],
      /^GET \/api\/v1\/developer\/jobs\?/,
    ],
    [
      'examples/quick-start/split-video.mjs',
      () => ['examples/quick-start/split-video.mjs', video, work],
      /^POST \/api\/v1\/developer\/assets\/upload-url$/,
    ],
    [
      'examples/quick-start/split-video-client.mjs',
      () => ['examples/quick-start/split-video-client.mjs', video, work],
      /^POST \/api\/v1\/developer\/assets\/upload-url$/,
    ],
    ['npm run console', () => ['--import', 'tsx', 'console/main.ts', '--port', '0'], /^GET \/api\/v1\/developer\/me$/],
    [
      'npm run listen',
      () => [
        '--import',
        'tsx',
        'client/src/cli/listen.ts',
        '--forward-to',
        'http://127.0.0.1:9/hooks',
        '--state-file',
        join(work, 'listen.json'),
      ],
      /^GET \/api\/v1\/developer\/events\?/,
    ],
  ])(
    '%s calls the local stack on PORT',
    async (_name, args, firstRequest) => {
      await run(args());
      expect(requests).toEqual([expect.stringMatching(firstRequest)]);
    },
    40_000,
  );
});
