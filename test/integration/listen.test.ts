import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { verifyWebhook } from '@video-automation/client';
import { apiUrl, call, createOrganization, type TestOrganization } from './support/stack';
import { WebhookReceiver } from './support/webhook-receiver';

/** The client package's bin as npm links it, built by `npm test` (or `npm run build:client`). */
const LISTEN_BIN = join(__dirname, '../../node_modules/.bin/video-api-listen');

/** `video-api-listen` as a user runs it, and what it printed so far. */
class Listener {
  readonly output: string[] = [];
  private readonly child: ChildProcessWithoutNullStreams;

  constructor(args: string[]) {
    this.child = spawn(LISTEN_BIN, args, { env: process.env });
    this.child.stdout.on('data', (chunk: Buffer) => this.output.push(...chunk.toString().split('\n').filter(Boolean)));
    this.child.stderr.on('data', (chunk: Buffer) => this.output.push(chunk.toString()));
  }

  async line(pattern: RegExp, timeoutMs = 30_000): Promise<RegExpMatchArray> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      for (const line of this.output) {
        const match = pattern.exec(line);
        if (match) return match;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`No line matched ${pattern} in:\n${this.output.join('\n')}`);
  }

  /** The exit code, once it has exited by itself. */
  exited(): Promise<number | null> {
    if (this.child.exitCode !== null) return Promise.resolve(this.child.exitCode);
    return new Promise((resolve) => this.child.once('exit', (code) => resolve(code)));
  }

  /** Ctrl-C; answers the exit code. */
  interrupt(): Promise<number | null> {
    return new Promise((resolve) => {
      this.child.once('exit', (code) => resolve(code));
      this.child.kill('SIGINT');
    });
  }
}

describe('video-api-listen', () => {
  const directory = mkdtempSync(join(tmpdir(), 'listen-'));
  const receiver = new WebhookReceiver();
  const sink = new WebhookReceiver();
  let org: TestOrganization;
  let endpointId: string;

  beforeAll(async () => {
    await Promise.all([receiver.start(), sink.start()]);
    org = await createOrganization();
    const endpoint = await call<{ id: string }>('POST', '/webhooks', {
      key: org.key,
      body: { url: sink.url, events: ['job.completed'] },
    });
    endpointId = endpoint.body.id;
  });

  afterAll(async () => {
    await Promise.all([receiver.stop(), sink.stop()]);
    rmSync(directory, { recursive: true, force: true });
  });

  /** A new event of the organization: a webhook test. */
  async function newEvent(): Promise<string> {
    const tested = await call<{ delivery: { event_id: string } }>('POST', `/webhooks/${endpointId}/test`, {
      key: org.key,
    });
    return tested.body.delivery.event_id;
  }

  const start = () =>
    new Listener([
      ...['--forward-to', receiver.url, '--api-url', apiUrl(), '--api-key', org.key],
      ...['--interval', '1', '--state-file', join(directory, 'state.json')],
    ]);

  it('forwards new events signed with the secret it prints, stops on Ctrl-C, and goes on after the last one', async () => {
    const before = await newEvent();
    const first = start();
    const [, secret] = await first.line(/signed with (whsec_\S+)/);
    await first.line(/Going on after/);
    const during = await newEvent();
    await receiver.waitFor(() => receiver.of(during).length > 0);
    const delivery = receiver.of(during)[0]!;
    expect(verifyWebhook({ headers: delivery.headers, rawBody: delivery.rawBody, secrets: secret! })).toMatchObject({
      ok: true,
      eventId: during,
      eventType: 'webhook.test',
    });
    const pulled = await call('GET', `/events/${during}`, { key: org.key });
    expect(JSON.parse(delivery.rawBody)).toEqual(pulled.body);
    expect(delivery.headers['webhook-id']).toBe(during);
    const standardHeaders = Object.fromEntries(
      ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => [name, String(delivery.headers[name])]),
    );
    expect(new Webhook(secret!).verify(delivery.rawBody, standardHeaders)).toEqual(pulled.body);
    await first.line(new RegExp(`webhook\\.test ${during} → 204 in \\d+ ms`));
    expect(receiver.of(before)).toEqual([]);
    expect(await first.interrupt()).toBe(0);
    await first.line(new RegExp(`Stopped; the next start goes on after ${during}`));

    const whileStopped = await newEvent();
    const second = start();
    const [, sameSecret] = await second.line(/signed with (whsec_\S+)/);
    expect(sameSecret).toBe(secret);
    await receiver.waitFor(() => receiver.of(whileStopped).length > 0);
    expect([receiver.of(before).length, receiver.of(during).length, receiver.of(whileStopped).length]).toEqual([
      0, 1, 1,
    ]);
    expect(await second.interrupt()).toBe(0);
  }, 90_000);

  it('refuses a command line without --forward-to, with the usage and exit status 2', async () => {
    const listener = new Listener(['--api-key', org.key]);
    expect(await listener.exited()).toBe(2);
    await listener.line(/--forward-to is required/);
    await listener.line(/Usage: video-api-listen/);
  });
});
