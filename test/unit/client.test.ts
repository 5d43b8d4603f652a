import { once } from 'node:events';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiError, createClient, type ClientOptions, type RateLimit } from '@video-automation/client';
import { pollDelayMs } from '../../client/src/client.ts';

/** What a fake answer is: a response, a network failure, or either made from the request. */
type Answer = Response | Error | ((request: Request) => Response | Error);

/** A fake `fetch` that answers in turn and keeps what it was sent. */
function fakeFetch(answers: Answer[]) {
  const requests: Request[] = [];
  const fetch = async (request: Request) => {
    requests.push(request);
    const next = answers.shift();
    if (next === undefined) throw new Error(`Unexpected request ${request.method} ${request.url}`);
    const answer = typeof next === 'function' ? next(request) : next;
    if (answer instanceof Error) throw answer;
    return answer;
  };
  return { fetch, requests };
}

const RATE_LIMIT_HEADERS = {
  'x-ratelimit-limit': '60',
  'x-ratelimit-remaining': '59',
  'x-ratelimit-reset': '1764000060',
  'x-ratelimit-limit-organization-day': '10000',
  'x-ratelimit-remaining-organization-day': '9990',
  'x-ratelimit-reset-organization-day': '1764028800',
};
const RATE_LIMIT: RateLimit = {
  key: { limit: 60, remaining: 59, reset: 1764000060 },
  organizationDay: { limit: 10000, remaining: 9990, reset: 1764028800 },
};

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...RATE_LIMIT_HEADERS, ...headers },
  });
}

function failure(status: number, code: string, headers: Record<string, string> = {}): Response {
  return json(status, { error: { code, message: `${code} happened`, request_id: 'req_1' } }, headers);
}

const networkFailure = () => new TypeError('fetch failed');

const job = (status: string) => ({ id: 'video_job_1', type: 'video', status, stage: null, progress: 0 });

function client(answers: Answer[], options: Partial<ClientOptions> = {}) {
  const fake = fakeFetch(answers);
  return {
    api: createClient({
      apiKey: 'svc_test_abc_def',
      baseUrl: 'https://api.test/api/v1/developer',
      ...options,
      ...fake,
    }),
    requests: fake.requests,
  };
}

const getJob = (api: ReturnType<typeof client>['api']) =>
  api.GET('/video-jobs/{id}', { params: { path: { id: 'video_job_1' } } });

describe('the client', () => {
  afterEach(() => {
    jest.useRealTimers();
    jest.restoreAllMocks();
  });

  it('answers the body, with the rate limits as numbers, and sends the key', async () => {
    const { api, requests } = client([json(200, job('queued'), { 'x-request-id': 'req_2' })]);

    const result = await getJob(api);

    expect(result.data).toEqual(job('queued'));
    expect(result.rateLimit).toEqual(RATE_LIMIT);
    expect(result.requestId).toBe('req_2');
    expect(requests[0]!.url).toBe('https://api.test/api/v1/developer/video-jobs/video_job_1');
    expect(requests[0]!.headers.get('authorization')).toBe('Bearer svc_test_abc_def');
  });

  it('throws ApiError with the envelope, the request id, Retry-After and the rate limits', async () => {
    const { api } = client([failure(429, 'RATE_LIMIT_EXCEEDED', { 'retry-after': '3600' })]);

    const error = await getJob(api).catch((thrown: unknown) => thrown);

    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      status: 429,
      code: 'RATE_LIMIT_EXCEEDED',
      requestId: 'req_1',
      retryAfter: 3600,
      rateLimit: RATE_LIMIT,
      message: 'GET /video-jobs/{id} answered 429 RATE_LIMIT_EXCEEDED: RATE_LIMIT_EXCEEDED happened',
    });
  });

  it('throws ApiError without a code for an answer that is not the envelope', async () => {
    const { api } = client([new Response('<html>Bad gateway</html>', { status: 502 })], { maxRetries: 0 });

    await expect(getJob(api)).rejects.toMatchObject({ status: 502, code: null, rateLimit: undefined });
  });

  it('tries a GET again on 5xx and on a network failure, then answers what succeeded', async () => {
    const { api, requests } = client([failure(503, 'INTERNAL_ERROR'), networkFailure(), json(200, job('queued'))]);
    jest.spyOn(Math, 'random').mockReturnValue(0);

    expect((await getJob(api)).data).toEqual(job('queued'));
    expect(requests).toHaveLength(3);
  });

  it('waits exactly the Retry-After of a 429 before trying again', async () => {
    jest.useFakeTimers();
    const { api, requests } = client([
      failure(429, 'RATE_LIMIT_EXCEEDED', { 'retry-after': '2' }),
      json(200, job('queued')),
    ]);

    const answered = getJob(api);
    await jest.advanceTimersByTimeAsync(1999);
    expect(requests).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(requests).toHaveLength(2);
    expect((await answered).data).toEqual(job('queued'));
  });

  it('backs off exponentially, with jitter, when no Retry-After says how long', async () => {
    jest.useFakeTimers();
    // The waits are this share of 500 ms, then of 1000 ms: 499 ms, then 998 ms.
    jest.spyOn(Math, 'random').mockReturnValue(0.998);
    const { api, requests } = client([
      failure(500, 'INTERNAL_ERROR'),
      failure(500, 'INTERNAL_ERROR'),
      json(200, job('queued')),
    ]);

    const answered = getJob(api);
    await jest.advanceTimersByTimeAsync(498);
    expect(requests).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(requests).toHaveLength(2);
    await jest.advanceTimersByTimeAsync(997);
    expect(requests).toHaveLength(2);
    await jest.advanceTimersByTimeAsync(1);
    expect(requests).toHaveLength(3);
    await answered;
  });

  it('gives up after maxRetries retries, throwing the last answer', async () => {
    jest.spyOn(Math, 'random').mockReturnValue(0);
    const { api, requests } = client(
      [failure(503, 'INTERNAL_ERROR'), failure(503, 'INTERNAL_ERROR'), failure(500, 'INTERNAL_ERROR')],
      { maxRetries: 2 },
    );

    await expect(getJob(api)).rejects.toMatchObject({ status: 500, code: 'INTERNAL_ERROR' });
    expect(requests).toHaveLength(3);
  });

  it('does not wait for a Retry-After longer than maxRetryAfterSeconds (the day limit): it throws at once', async () => {
    const { api, requests } = client([failure(429, 'RATE_LIMIT_EXCEEDED', { 'retry-after': '61' })]);

    await expect(getJob(api)).rejects.toMatchObject({ status: 429, retryAfter: 61 });
    expect(requests).toHaveLength(1);
  });

  it('does not try a 4xx other than 429 again', async () => {
    const { api, requests } = client([failure(404, 'JOB_NOT_FOUND')]);

    await expect(getJob(api)).rejects.toMatchObject({ status: 404, code: 'JOB_NOT_FOUND' });
    expect(requests).toHaveLength(1);
  });

  it('never tries a POST without idempotency again, on 5xx or on a network failure', async () => {
    const create = (api: ReturnType<typeof client>['api']) =>
      api.POST('/webhooks', { body: { url: 'https://hooks.test/', events: ['job.completed'] } });
    const failing = client([failure(503, 'INTERNAL_ERROR')]);
    await expect(create(failing.api)).rejects.toMatchObject({ status: 503 });
    expect(failing.requests).toHaveLength(1);

    const unreachable = client([networkFailure()]);
    await expect(create(unreachable.api)).rejects.toBeInstanceOf(TypeError);
    expect(unreachable.requests).toHaveLength(1);
  });

  it('never tries a PATCH again', async () => {
    const { api, requests } = client([failure(500, 'INTERNAL_ERROR')]);

    await expect(
      api.PATCH('/webhooks/{id}', { params: { path: { id: 'webhook_1' } }, body: { status: 'disabled' } }),
    ).rejects.toMatchObject({ status: 500 });
    expect(requests).toHaveLength(1);
  });

  it('tries a cancel again, which the document says is safe to repeat', async () => {
    jest.spyOn(Math, 'random').mockReturnValue(0);
    const { api, requests } = client([failure(503, 'INTERNAL_ERROR'), json(200, job('cancelled'))]);

    const cancelled = await api.POST('/video-jobs/{id}/cancel', { params: { path: { id: 'video_job_1' } } });

    expect(cancelled.data.status).toBe('cancelled');
    expect(requests).toHaveLength(2);
  });

  it('gives every create an Idempotency-Key, the same one on each retry, and a new one per create', async () => {
    jest.spyOn(Math, 'random').mockReturnValue(0);
    const { api, requests } = client([
      failure(500, 'INTERNAL_ERROR'),
      networkFailure(),
      json(201, job('queued')),
      json(201, { ...job('queued'), id: 'split_job_1', type: 'split' }),
    ]);

    await api.POST('/video-jobs', { body: { prompt: 'A lighthouse at dusk', duration_seconds: 5 } });
    await api.POST('/split-jobs', { body: { source_asset_id: 'asset_1' } });

    const keys = requests.map((request) => request.headers.get('idempotency-key'));
    expect(keys[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(keys.slice(0, 3)).toEqual([keys[0], keys[0], keys[0]]);
    expect(keys[3]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[3]).not.toBe(keys[0]);
    expect(await requests[2]!.json()).toEqual({ prompt: 'A lighthouse at dusk', duration_seconds: 5 });
  });

  it('sends the Idempotency-Key the caller gives, as a parameter or as a header, and no other', async () => {
    const { api, requests } = client([json(201, job('queued')), json(201, job('queued'))]);
    const body = { prompt: 'A lighthouse at dusk', duration_seconds: 5 } as const;

    await api.POST('/video-jobs', { params: { header: { 'Idempotency-Key': 'order-1' } }, body });
    await api.POST('/video-jobs', { headers: { 'idempotency-key': 'order-2' }, body });

    expect(requests.map((request) => request.headers.get('idempotency-key'))).toEqual(['order-1', 'order-2']);
  });

  it('stops waiting to retry when the call is aborted', async () => {
    const stop = new AbortController();
    const { api, requests } = client([failure(429, 'RATE_LIMIT_EXCEEDED', { 'retry-after': '30' })]);

    const answered = api.GET('/me', { signal: stop.signal });
    await new Promise((resolve) => setImmediate(resolve));
    stop.abort(new Error('stopped'));

    await expect(answered).rejects.toThrow('stopped');
    expect(requests).toHaveLength(1);
  });
});

describe('uploadFile', () => {
  it('asks for an upload URL, PUTs the bytes with its headers (again after a 503), then confirms', async () => {
    jest.spyOn(Math, 'random').mockReturnValue(0);
    const uploadUrl = 'https://storage.test/media/asset_1?X-Amz-Signature=secret';
    const asset = { id: 'asset_1', status: 'uploaded' };
    const { api, requests } = client([
      json(201, {
        asset_id: 'asset_1',
        upload_url: uploadUrl,
        upload_method: 'PUT',
        upload_headers: { 'Content-Type': 'video/mp4' },
        expires_at: '2026-11-27T12:00:00Z',
      }),
      new Response('<Error><Code>SlowDown</Code></Error>', { status: 503 }),
      new Response(null, { status: 200 }),
      json(200, asset),
    ]);

    const uploaded = await api.uploadFile({
      body: Buffer.from('mp4 bytes'),
      filename: 'talk.mp4',
      purpose: 'split_source',
    });

    expect(uploaded).toEqual(asset);
    expect(await requests[0]!.json()).toEqual({
      filename: 'talk.mp4',
      content_type: 'video/mp4',
      size_bytes: 9,
      purpose: 'split_source',
    });
    for (const put of requests.slice(1, 3)) {
      expect([put.method, put.url, put.headers.get('content-type'), await put.text()]).toEqual([
        'PUT',
        uploadUrl,
        'video/mp4',
        'mp4 bytes',
      ]);
    }
    expect(await requests[3]!.json()).toEqual({ asset_id: 'asset_1' });
  });

  it('throws ApiError for a refused PUT, without the signed query in its message', async () => {
    const { api } = client([
      json(201, {
        asset_id: 'asset_1',
        upload_url: 'https://storage.test/media/asset_1?X-Amz-Signature=secret',
        upload_method: 'PUT',
        upload_headers: { 'Content-Type': 'image/png' },
        expires_at: '2026-11-27T12:00:00Z',
      }),
      new Response('<Error><Code>SignatureDoesNotMatch</Code></Error>', { status: 403 }),
    ]);

    const error = await api
      .uploadFile({ body: new Blob(['png']), filename: 'Frame.PNG', purpose: 'image_source' })
      .catch((thrown: unknown) => thrown);

    expect(error).toMatchObject({ status: 403, code: null });
    expect((error as Error).message).toBe(
      'PUT https://storage.test/media/asset_1 answered 403 <Error><Code>SignatureDoesNotMatch</Code></Error>',
    );
  });

  it('streams the PUT itself when no fetch is given: the upload headers, the size, the bytes, again after a 503', async () => {
    jest.spyOn(Math, 'random').mockReturnValue(0);
    const puts: { headers: IncomingMessage['headers']; body: string }[] = [];
    const server = createServer(async (request, response) => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const { port } = server.address() as AddressInfo;
      if (request.url === '/api/assets/upload-url') {
        response.writeHead(201, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            asset_id: 'asset_1',
            upload_url: `http://127.0.0.1:${port}/media/asset_1?X-Amz-Signature=secret`,
            upload_method: 'PUT',
            upload_headers: { 'Content-Type': 'video/mp4' },
            expires_at: '2026-11-27T12:00:00Z',
          }),
        );
      } else if (request.url?.startsWith('/media/')) {
        puts.push({ headers: request.headers, body: Buffer.concat(chunks).toString() });
        response.writeHead(puts.length === 1 ? 503 : 200).end();
      } else {
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: 'asset_1' }));
      }
    });
    await once(server.listen(0, '127.0.0.1'), 'listening');
    try {
      const { port } = server.address() as AddressInfo;
      const api = createClient({ apiKey: 'svc_test_abc_def', baseUrl: `http://127.0.0.1:${port}/api` });

      const uploaded = await api.uploadFile({
        body: Buffer.from('mp4 bytes'),
        filename: 'talk.mp4',
        purpose: 'split_source',
      });

      expect(uploaded).toEqual({ id: 'asset_1' });
      expect(puts.map(({ headers, body }) => [headers['content-type'], headers['content-length'], body])).toEqual([
        ['video/mp4', '9', 'mp4 bytes'],
        ['video/mp4', '9', 'mp4 bytes'],
      ]);
    } finally {
      server.close();
    }
  });

  it('needs a content type it can tell from the file name, or one given', async () => {
    const { api, requests } = client([]);

    await expect(api.uploadFile({ body: new Blob(['?']), filename: 'notes.txt', purpose: 'general' })).rejects.toThrow(
      'No content type is known for notes.txt: give contentType',
    );
    expect(requests).toHaveLength(0);
  });
});

describe('waitForJob', () => {
  it('polls until the job has ended, every intervalMs, and answers it as it ended', async () => {
    const { api, requests } = client([
      json(200, job('queued')),
      json(200, job('processing')),
      json(200, job('failed')),
    ]);
    const polled: string[] = [];

    const ended = await api.waitForJob('video_job_1', { intervalMs: 1, onPoll: (seen) => polled.push(seen.status) });

    expect(ended.status).toBe('failed');
    expect(polled).toEqual(['queued', 'processing', 'failed']);
    expect(requests.map((request) => new URL(request.url).pathname)).toEqual(
      Array(3).fill('/api/v1/developer/video-jobs/video_job_1'),
    );
  });

  it('polls a split job at its own path', async () => {
    const { api, requests } = client([json(200, { ...job('completed'), id: 'split_job_1', type: 'split' })]);

    expect((await api.waitForJob('split_job_1')).type).toBe('split');
    expect(new URL(requests[0]!.url).pathname).toBe('/api/v1/developer/split-jobs/split_job_1');
  });

  it('spreads what is left of the key minute window over the rest of it', () => {
    const now = 1764000000_000;
    const window = (remaining: number) => ({ ...RATE_LIMIT, key: { limit: 60, remaining, reset: 1764000040 } });

    expect(pollDelayMs(5000, undefined, now)).toBe(5000);
    expect(pollDelayMs(5000, window(40), now)).toBe(5000);
    expect(pollDelayMs(5000, window(4), now)).toBe(10_000);
    expect(pollDelayMs(5000, window(0), now)).toBe(40_000);
  });
});
