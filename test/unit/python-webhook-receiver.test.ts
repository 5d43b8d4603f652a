import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { deliveryHeaders, newSigningSecret } from '#domain/webhooks/signature';

/**
 * examples/webhook-receiver/receiver.py, run with the machine's python3 (which `npm test` makes
 * sure of), against deliveries signed by the service's own signer.
 */

const RECEIVER = join(__dirname, '../../examples/webhook-receiver/receiver.py');
const BODY = '{"id":"evt_1","type":"job.completed","created_at":"2026-03-01T12:00:00Z","data":{}}';

class PythonReceiver {
  readonly lines: string[] = [];
  readonly stderr: string[] = [];
  private readonly child: ChildProcessWithoutNullStreams;
  private waiters: (() => void)[] = [];

  constructor(webhookSecret: string) {
    this.child = spawn('python3', [RECEIVER], {
      env: { ...process.env, PORT: '0', WEBHOOK_SECRET: webhookSecret },
    });
    createInterface({ input: this.child.stdout }).on('line', (line) => {
      this.lines.push(line);
      for (const wake of this.waiters.splice(0)) wake();
    });
    this.child.stderr.on('data', (chunk: Buffer) => this.stderr.push(chunk.toString('utf8')));
  }

  /** The first line printed that matches, once it is printed. */
  async line(pattern: RegExp): Promise<RegExpMatchArray> {
    for (;;) {
      const match = this.lines.map((line) => line.match(pattern)).find((found) => found !== null);
      if (match) return match;
      if (this.child.exitCode !== null) throw new Error(`receiver.py exited: ${this.stderr.join('')}`);
      await new Promise<void>((wake) => this.waiters.push(wake));
    }
  }

  async url(): Promise<string> {
    const [, url] = await this.line(/^Receiving webhooks on (http:\/\/127\.0\.0\.1:\d+\/), verifying with /);
    return url!;
  }

  async exited(): Promise<number | null> {
    if (this.child.exitCode === null) await once(this.child, 'exit');
    return this.child.exitCode;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    this.child.kill('SIGTERM');
    await once(this.child, 'exit');
  }
}

/** A delivery signed as the service signs it, `secondsAgo` before now. */
function post(
  url: string,
  { secret, previousSecret, body = BODY, eventId = 'evt_1', secondsAgo = 0 }: DeliveryOptions,
) {
  const now = new Date(Date.now() - secondsAgo * 1000);
  const headers = deliveryHeaders({ eventId, eventType: 'job.completed', secret, previousSecret, rawBody: body, now });
  return fetch(url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body });
}

interface DeliveryOptions {
  secret: string;
  previousSecret?: string;
  body?: string;
  eventId?: string;
  secondsAgo?: number;
}

async function answered(response: Response): Promise<[number, unknown]> {
  const text = await response.text();
  return [response.status, text === '' ? null : JSON.parse(text)];
}

describe('the Python webhook receiver example', () => {
  const running: PythonReceiver[] = [];
  const start = (webhookSecret: string) => {
    const receiver = new PythonReceiver(webhookSecret);
    running.push(receiver);
    return receiver;
  };

  afterEach(async () => {
    await Promise.all(running.splice(0).map((receiver) => receiver.stop()));
  });

  it('acknowledges a genuine delivery with 204 and handles its event once, however often it comes', async () => {
    const secret = newSigningSecret();
    const receiver = start(secret);
    const url = await receiver.url();

    expect(await answered(await post(url, { secret }))).toEqual([204, null]);
    expect(await answered(await post(url, { secret }))).toEqual([204, null]);
    expect(await answered(await post(url, { secret, eventId: 'evt_2' }))).toEqual([204, null]);
    await receiver.line(/ job\.completed evt_2$/);
    expect(receiver.lines.filter((line) => / job\.completed evt_\d$/.test(line))).toEqual([
      expect.stringMatching(/^\S+Z job\.completed evt_1$/),
      expect.stringMatching(/^\S+Z job\.completed evt_2$/),
    ]);
  });

  it('refuses with 400 and the reason a delivery signed with another secret, changed, or too old', async () => {
    const secret = newSigningSecret();
    const url = await start(secret).url();

    expect(await answered(await post(url, { secret: newSigningSecret() }))).toEqual([
      400,
      { error: 'No matching signature found' },
    ]);
    const tampered = deliveryHeaders({ eventId: 'evt_1', eventType: 'job.completed', secret, rawBody: BODY });
    const changedBody = BODY.replace('evt_1', 'evt_9');
    expect(await answered(await fetch(url, { method: 'POST', headers: tampered, body: changedBody }))).toEqual([
      400,
      { error: 'No matching signature found' },
    ]);
    expect(await answered(await post(url, { secret, secondsAgo: 301 }))).toEqual([
      400,
      { error: 'Message timestamp too old' },
    ]);
    expect(await answered(await post(url, { secret, secondsAgo: -301 }))).toEqual([
      400,
      { error: 'Message timestamp too new' },
    ]);
    expect(await answered(await fetch(url, { method: 'POST', body: BODY }))).toEqual([
      400,
      { error: 'Missing required headers' },
    ]);
  });

  it('refuses a body over 1 MiB with 413', async () => {
    const secret = newSigningSecret();
    const url = await start(secret).url();
    const body = JSON.stringify({ padding: 'x'.repeat(1024 * 1024) });
    expect(await answered(await post(url, { secret, body }))).toEqual([413, { error: 'body_too_large' }]);
  });

  it('verifies with either of the secrets it is given while one is rotated', async () => {
    const [current, previous] = [newSigningSecret(), newSigningSecret()];
    const url = await start(`${current},${previous}`).url();

    expect((await post(url, { secret: current, previousSecret: previous, eventId: 'evt_1' })).status).toBe(204);
    expect((await post(url, { secret: previous, eventId: 'evt_2' })).status).toBe(204);
    expect((await post(url, { secret: current, eventId: 'evt_3' })).status).toBe(204);
    expect((await post(url, { secret: newSigningSecret(), eventId: 'evt_4' })).status).toBe(400);
  });

  it('refuses to start with a secret issued in base64url, saying how to convert it, then verifies with its conversion', async () => {
    const issuedBefore = 'whsec_8-_0b0JHcZ7oRk2Ha2tFVuKrZV5Gx-yL3UPLe_4q1Wo';
    const refusing = start(issuedBefore);
    expect(await refusing.exited()).toBe(1);
    const [conversion] = refusing.stderr
      .join('')
      .match(/^ {2}(python3 -c .*) whsec_\.\.\.$/m)!
      .slice(1);
    const converted = execFileSync('sh', ['-c', `${conversion} '${issuedBefore}'`], { encoding: 'utf8' }).trim();
    expect(converted).toBe('whsec_8+/0b0JHcZ7oRk2Ha2tFVuKrZV5Gx+yL3UPLe/4q1Wo=');

    const url = await start(converted).url();
    expect((await post(url, { secret: issuedBefore })).status).toBe(204);
  });

  it('refuses to start without a secret', async () => {
    const receiver = start('');
    expect(await receiver.exited()).toBe(1);
    expect(receiver.stderr.join('')).toContain('Set WEBHOOK_SECRET');
  });
});
