import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a receiver got, as it came over the wire. */
export interface ReceivedDelivery {
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: string;
  receivedAtMs: number;
  /** What the receiver answered. */
  status: number;
}

/** How the receiver answers the n-th request (1-based) carrying an event id, sent to `path`. */
export type Answer = (
  attempt: number,
  eventId: string,
  path: string,
) => { status: number; headers?: Record<string, string>; body?: string };

/** A real HTTP receiver on 127.0.0.1 that records every request and answers as told. */
export class WebhookReceiver {
  readonly received: ReceivedDelivery[] = [];
  private readonly server: Server;
  private answer: Answer = () => ({ status: 204 });
  private waiters: (() => void)[] = [];

  constructor() {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const eventId = String(request.headers['service-webhook-id'] ?? '');
        const attempt =
          this.received.filter((delivery) => delivery.headers['service-webhook-id'] === eventId).length + 1;
        const { status, headers, body } = this.answer(attempt, eventId, request.url ?? '');
        this.received.push({
          path: request.url ?? '',
          headers: request.headers,
          rawBody: Buffer.concat(chunks).toString('utf8'),
          receivedAtMs: Date.now(),
          status,
        });
        response.writeHead(status, headers).end(body);
        for (const wake of this.waiters.splice(0)) wake();
      });
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks`;
  }

  answerWith(answer: Answer): void {
    this.answer = answer;
  }

  /** The requests that carried this event id. */
  of(eventId: string): ReceivedDelivery[] {
    return this.received.filter((delivery) => delivery.headers['service-webhook-id'] === eventId);
  }

  /** Waits until `done` holds for what was received, or the time is up (then answers what there is). */
  async waitFor(done: (received: ReceivedDelivery[]) => boolean, timeoutMs = 20_000): Promise<ReceivedDelivery[]> {
    const deadline = Date.now() + timeoutMs;
    while (!done(this.received) && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(250, Math.max(0, deadline - Date.now())));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.received;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
