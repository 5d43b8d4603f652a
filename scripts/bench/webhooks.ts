import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { verifyWebhook } from '@video-automation/client';
import { callsBetween, snapshot, sum } from './call-counter';
import { call, expectStatus, inParallel } from './http';
import { seedCaller } from './seeding';
import { BENCH_SETTINGS } from './settings';
import { latencyPercentiles, round } from './statistics';

/** One request the receiver got. */
export interface WebhookReceipt {
  eventId: string;
  /** The event's `created_at`: for a job event, the instant `finishJob` took just before ending the job. */
  createdAtMs: number;
  /** The job a job event reports. */
  jobId?: string;
  /** When the last byte of the body arrived, by this process's clock (the one `created_at` was read from). */
  receivedAtMs: number;
  /** Verified with the secret of the endpoint its path belongs to, as an integrator's receiver would. */
  signatureVerified: boolean;
}

/** What the bench reads of a delivered body; one that is not the service's JSON reads as nothing (and fails verification). */
function deliveredEvent(rawBody: string): Pick<WebhookReceipt, 'eventId' | 'createdAtMs' | 'jobId'> {
  try {
    const event = JSON.parse(rawBody) as { id: string; created_at: string; data: { job?: { id: string } } };
    return { eventId: event.id, createdAtMs: Date.parse(event.created_at), jobId: event.data.job?.id };
  } catch {
    return { eventId: '', createdAtMs: NaN };
  }
}

/**
 * A real HTTP receiver on 127.0.0.1, in this process, that answers 204 at once and records each
 * request. `secretsByPath` is read at each receipt, so endpoints may be added while it runs.
 */
export async function startWebhookReceiver(secretsByPath: ReadonlyMap<string, string>) {
  const receipts: WebhookReceipt[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const receivedAtMs = Date.now();
      response.writeHead(204).end();
      const rawBody = Buffer.concat(chunks).toString('utf8');
      const secret = secretsByPath.get(request.url ?? '');
      receipts.push({
        ...deliveredEvent(rawBody),
        receivedAtMs,
        signatureVerified:
          secret !== undefined &&
          verifyWebhook({ headers: request.headers, rawBody, secrets: secret, now: receivedAtMs }).ok,
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    receipts,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Resolves once `received` holds; a delivery missing after `timeoutMs` ends the run. */
export async function waitForDeliveries(received: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!received()) {
    if (performance.now() > deadline) throw new Error(`${what}: not all received within ${timeoutMs} ms`);
    await sleep(25);
  }
}

/** The first receipt of each event: a later one is a duplicate. */
export function firstReceipts(receipts: readonly WebhookReceipt[]): WebhookReceipt[] {
  const first = new Map<string, WebhookReceipt>();
  for (const receipt of receipts) if (!first.has(receipt.eventId)) first.set(receipt.eventId, receipt);
  return [...first.values()];
}

/** Latency from each event's `created_at` to its first receipt; duplicates and failed verifications counted. */
function deliveryFigures(receipts: readonly WebhookReceipt[]) {
  const first = firstReceipts(receipts);
  return {
    ...latencyPercentiles(first.map((receipt) => receipt.receivedAtMs - receipt.createdAtMs)),
    duplicates: receipts.length - first.length,
    signature_failures: receipts.filter((receipt) => !receipt.signatureVerified).length,
  };
}

/**
 * The webhooks phase, in an organization of its own (so no other phase's job ends reach its
 * endpoints), against a receiver in this process. First, job ends: video jobs that fail at once,
 * each event timed from its `created_at` to its receipt. Then a burst of test events spread over
 * the endpoints, as fast as the API takes them: deliveries per second from the first request to
 * the last receipt. Both go through the table stream, the relay, the queue and the delivery worker.
 */
export async function measureWebhooks(apiUrl: string, progress: (message: string) => void) {
  const settings = BENCH_SETTINGS.webhooks;
  const { key } = await seedCaller(1_000_000, {
    requests_per_minute_per_key: 1_000_000,
    requests_per_day_per_organization: 100_000_000,
    concurrent_video_jobs: 100_000,
    webhook_endpoints: settings.endpoints,
  });
  const secretsByPath = new Map<string, string>();
  const receiver = await startWebhookReceiver(secretsByPath);
  try {
    const createEndpoint = async (index: number) => {
      const path = `/hooks/${index}`;
      const reply = expectStatus(
        await call(`${apiUrl}/webhooks`, 'POST', key, {
          url: `${receiver.url}${path}`,
          events: ['job.completed', 'job.failed'],
        }),
        201,
        'POST /webhooks',
      );
      const endpoint = JSON.parse(reply.body) as { id: string; secret: string };
      secretsByPath.set(path, endpoint.secret);
      return endpoint.id;
    };

    // --- Job end to receipt.
    const firstEndpointId = await createEndpoint(0);
    progress(
      `webhooks: ${settings.jobEnds} video jobs that fail at once, one created every ${settings.jobIntervalMs} ms; job end to receipt`,
    );
    const jobIds = new Set(
      await Promise.all(
        Array.from({ length: settings.jobEnds }, async (_, index) => {
          await sleep(index * settings.jobIntervalMs);
          const reply = expectStatus(
            await call(`${apiUrl}/video-jobs`, 'POST', key, {
              prompt: `Benchmark webhook ${index} [fault:fail]`,
              duration_seconds: 5,
            }),
            201,
            'POST /video-jobs (webhooks)',
          );
          return (JSON.parse(reply.body) as { id: string }).id;
        }),
      ),
    );
    const jobReceipts = () => receiver.receipts.filter((receipt) => jobIds.has(receipt.jobId ?? ''));
    await waitForDeliveries(
      () => new Set(jobReceipts().map((receipt) => receipt.jobId)).size === jobIds.size,
      settings.deliveryTimeoutMs,
      `the events of ${jobIds.size} job ends`,
    );

    // --- A burst of test events over every endpoint.
    const endpointIds = [
      firstEndpointId,
      ...(await inParallel(settings.endpoints - 1, 1, (index) => createEndpoint(index + 1))),
    ];
    progress(
      `webhooks: ${settings.testEvents} POST /webhooks/{id}/test over ${endpointIds.length} endpoints at concurrency ${settings.testConcurrency}; deliveries per second`,
    );
    const before = snapshot();
    const burstStartedAtMs = Date.now();
    const testEventIds = new Set(
      await inParallel(settings.testEvents, settings.testConcurrency, async (index) => {
        const endpointId = endpointIds[index % endpointIds.length]!;
        const reply = expectStatus(
          await call(`${apiUrl}/webhooks/${endpointId}/test`, 'POST', key),
          200,
          'POST /webhooks/{id}/test',
        );
        return (JSON.parse(reply.body) as { delivery: { event_id: string } }).delivery.event_id;
      }),
    );
    const requestsEndedAtMs = Date.now();
    const testReceipts = () => receiver.receipts.filter((receipt) => testEventIds.has(receipt.eventId));
    await waitForDeliveries(
      () => firstReceipts(testReceipts()).length === testEventIds.size,
      settings.deliveryTimeoutMs,
      `the deliveries of ${testEventIds.size} test events`,
    );
    const lastReceiptMs = Math.max(...firstReceipts(testReceipts()).map((receipt) => receipt.receivedAtMs));
    await sleep(500); // the worker records a delivery after the receiver has answered
    const burstCalls = callsBetween(before, snapshot(), 'background', testEventIds.size);

    const jobEnds = deliveryFigures(jobReceipts());
    const burstSeconds = (lastReceiptMs - burstStartedAtMs) / 1000;
    return {
      job_end_to_receipt: {
        jobs: jobIds.size,
        interval_ms: settings.jobIntervalMs,
        ...jobEnds,
        target_p99_ms: settings.targetP99Ms,
        p99_within_target: jobEnds.p99_ms <= settings.targetP99Ms,
      },
      test_burst: {
        endpoints: endpointIds.length,
        test_events: testEventIds.size,
        concurrency: settings.testConcurrency,
        test_requests_per_second: round(testEventIds.size / ((requestsEndedAtMs - burstStartedAtMs) / 1000)),
        first_request_to_last_receipt_s: round(burstSeconds, 2),
        deliveries_per_second: round(testEventIds.size / burstSeconds),
        ...deliveryFigures(testReceipts()),
        background_sdk_calls_per_delivery: sum(burstCalls),
        background_sdk_calls: burstCalls,
      },
    };
  } finally {
    await receiver.stop();
  }
}
