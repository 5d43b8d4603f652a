import { Agent, request as httpRequest } from 'node:http';

export const agent = new Agent({ keepAlive: true, maxSockets: 16 });

export interface Reply {
  status: number;
  body: string;
  ms: number;
}

export function call(url: string, method: string, key: string, body?: unknown): Promise<Reply> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const startedAt = performance.now();
    const outgoing = httpRequest(
      url,
      {
        method,
        agent,
        headers: {
          Authorization: `Bearer ${key}`,
          ...(payload === undefined
            ? {}
            : { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) }),
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            body: Buffer.concat(chunks).toString('utf8'),
            ms: performance.now() - startedAt,
          }),
        );
      },
    );
    outgoing.on('error', reject);
    outgoing.end(payload);
  });
}

export function expectStatus(reply: Reply, status: number, what: string): Reply {
  if (reply.status !== status) throw new Error(`${what}: expected ${status}, got ${reply.status}: ${reply.body}`);
  return reply;
}

/** Runs `total` tasks, `concurrency` at a time; resolves with each task's result in order. */
export async function inParallel<T>(
  total: number,
  concurrency: number,
  task: (index: number) => Promise<T>,
): Promise<T[]> {
  const results: T[] = new Array<T>(total);
  let next = 0;
  const worker = async () => {
    while (next < total) {
      const index = next;
      next += 1;
      results[index] = await task(index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, worker));
  return results;
}
