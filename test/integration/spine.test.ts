import { request as httpRequest } from 'node:http';
import {
  apiUrl,
  call,
  createKey,
  createOrganization,
  revokeKey,
  updateOrganization,
  RATE_LIMIT_HEADERS,
  type TestOrganization,
} from './support/stack';

const expectEnvelope = (body: unknown, code: string) => {
  expect(body).toEqual({
    error: { code, message: expect.any(String), request_id: expect.stringMatching(/^req_[0-9a-z]{26}$/) },
  });
};

interface ApiContext {
  plan: string;
  limits: Record<string, number>;
  usage_snapshot: Record<string, number>;
  [field: string]: unknown;
}

describe('GET /me', () => {
  let org: TestOrganization;
  beforeAll(async () => {
    org = await createOrganization({ credits: 250 });
  });

  it('describes the caller, its limits and a real usage snapshot', async () => {
    const first = await call('GET', '/me', { key: org.key });
    const second = await call<ApiContext>('GET', '/me', { key: org.key });
    expect(first.status).toBe(200);
    expect(second.body).toEqual({
      organization_id: org.organizationId,
      plan: 'team',
      api_access: true,
      environment: 'test',
      key_prefix: org.keyPrefix,
      scopes: expect.arrayContaining(['assets:create', 'video:create', 'usage:read', 'webhooks:write']),
      limits: {
        requests_per_minute_per_key: 60,
        requests_per_day_per_organization: 10000,
        concurrent_video_jobs: 3,
        concurrent_split_jobs: 2,
        active_api_keys_per_organization: 10,
        webhook_endpoints: 3,
        max_asset_upload_size_bytes: 2147483648,
      },
      usage_snapshot: {
        requests_this_minute: expect.any(Number),
        requests_today: 2,
        active_video_jobs: 0,
        active_split_jobs: 0,
      },
    });
    expect(second.body.usage_snapshot.requests_this_minute).toBeGreaterThanOrEqual(1);
  });

  it('reports a live key as live: the same organization and billing, another environment', async () => {
    const live = await createKey(org.organizationId, { environment: 'live' });
    const response = await call<Record<string, unknown>>('GET', '/me', { key: live.key });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      organization_id: org.organizationId,
      environment: 'live',
      key_prefix: live.apiKey.keyPrefix,
    });
  });

  it('works for a key with no scopes at all', async () => {
    const bare = await createKey(org.organizationId, { scopes: [] });
    const response = await call<Record<string, unknown>>('GET', '/me', { key: bare.key });
    expect(response.status).toBe(200);
    expect(response.body.scopes).toEqual([]);
  });

  it('uses the negotiated limits of a Custom organization', async () => {
    const custom = await createOrganization({
      plan: 'custom',
      limits: { concurrent_video_jobs: 7, requests_per_minute_per_key: 120 },
    });
    const response = await call<ApiContext>('GET', '/me', { key: custom.key });
    expect(response.body.plan).toBe('custom');
    expect(response.body.limits).toMatchObject({
      concurrent_video_jobs: 7,
      requests_per_minute_per_key: 120,
      concurrent_split_jobs: 2,
    });
    expect(response.headers.get('x-ratelimit-limit')).toBe('120');
  });
});

describe('authentication failures', () => {
  let org: TestOrganization;
  beforeAll(async () => {
    org = await createOrganization();
  });

  const wrongSecret = () => `${org.key.slice(0, -4)}${org.key.endsWith('aaaa') ? 'bbbb' : 'aaaa'}`;

  it.each([
    ['no Authorization header', () => ({})],
    ['a Basic scheme', () => ({ authorization: `Basic ${Buffer.from('a:b').toString('base64')}` })],
    ['a malformed key', () => ({ authorization: 'Bearer svc_test_nope_nope' })],
    ['an unknown prefix', () => ({ authorization: `Bearer svc_test_${'a'.repeat(16)}_${'b'.repeat(32)}` })],
    [
      "an unknown prefix naming a real key's organization",
      () => ({ authorization: `Bearer ${org.key.replace(/^(svc_test_.{7}).{9}/, `$1${'a'.repeat(9)}`)}` }),
    ],
    ['a wrong secret for a real prefix', () => ({ authorization: `Bearer ${wrongSecret()}` })],
    [
      'the right secret under the wrong environment',
      () => ({ authorization: `Bearer ${org.key.replace('svc_test_', 'svc_live_')}` }),
    ],
  ])('answers 401 API_KEY_INVALID for %s, without rate-limit headers', async (_, headers) => {
    const response = await call('GET', '/me', { headers: headers() as Record<string, string> });
    expect(response.status).toBe(401);
    expectEnvelope(response.body, 'API_KEY_INVALID');
    expect(response.headers.get('x-ratelimit-limit')).toBeNull();
    expect(response.headers.get('x-request-id')).toBe(
      (response.body as { error: { request_id: string } }).error.request_id,
    );
  });

  it('refuses a revoked key', async () => {
    const doomed = await createKey(org.organizationId);
    expect((await call('GET', '/me', { key: doomed.key })).status).toBe(200);
    await revokeKey(doomed.apiKey.keyPrefix);
    const response = await call('GET', '/me', { key: doomed.key });
    expect(response.status).toBe(401);
    expectEnvelope(response.body, 'API_KEY_INVALID');
  });

  it('refuses an expired key', async () => {
    const expired = await createKey(org.organizationId, { expiresAt: new Date(Date.now() - 1000).toISOString() });
    const response = await call('GET', '/me', { key: expired.key });
    expect(response.status).toBe(401);
    expectEnvelope(response.body, 'API_KEY_INVALID');
  });

  it('refuses a key on the first request after its expiry passes', async () => {
    const expiresAt = Date.now() + 2000;
    const expiring = await createKey(org.organizationId, { expiresAt: new Date(expiresAt).toISOString() });
    expect((await call('GET', '/me', { key: expiring.key })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt + 1 - Date.now())));
    const response = await call('GET', '/me', { key: expiring.key });
    expect(response.status).toBe(401);
    expectEnvelope(response.body, 'API_KEY_INVALID');
  });
});

describe("an operator's change to the organization applies to the very next request", () => {
  it.each([
    ['a move to a plan without API access', { plan: 'pro' }],
    ['API access switched off', { apiAccess: false }],
  ] as const)('refuses the request after %s', async (_, changes) => {
    const changing = await createOrganization();
    expect((await call('GET', '/me', { key: changing.key })).status).toBe(200);
    await updateOrganization(changing.organizationId, changes);
    const response = await call('GET', '/me', { key: changing.key });
    expect(response.status).toBe(403);
    expectEnvelope(response.body, 'API_ACCESS_DENIED');
  });

  it('admits again the request after API access is switched back on', async () => {
    const off = await createOrganization({ apiAccess: false });
    expect((await call('GET', '/me', { key: off.key })).status).toBe(403);
    await updateOrganization(off.organizationId, { apiAccess: true });
    expect((await call('GET', '/me', { key: off.key })).status).toBe(200);
  });

  it('judges the request after a change of negotiated limits by the new limits', async () => {
    const custom = await createOrganization({ plan: 'custom', limits: { requests_per_minute_per_key: 100 } });
    const before = await call('GET', '/me', { key: custom.key });
    expect(before.headers.get('x-ratelimit-limit')).toBe('100');
    await updateOrganization(custom.organizationId, { negotiatedLimits: { requests_per_minute_per_key: 1 } });
    const after = await call('GET', '/me', { key: custom.key });
    expect(after.status).toBe(429);
    expect(after.headers.get('x-ratelimit-limit')).toBe('1');
    expectEnvelope(after.body, 'RATE_LIMIT_EXCEEDED');
  });
});

describe('plan and scope checks', () => {
  it('denies an organization outside the Team and Custom plans, with rate-limit headers', async () => {
    const pro = await createOrganization({ plan: 'pro' });
    const response = await call('GET', '/me', { key: pro.key });
    expect(response.status).toBe(403);
    expectEnvelope(response.body, 'API_ACCESS_DENIED');
    for (const header of RATE_LIMIT_HEADERS) expect(response.headers.get(header)).toMatch(/^\d+$/);
  });

  it('denies a Team organization whose API access is switched off', async () => {
    const off = await createOrganization({ apiAccess: false });
    const response = await call('GET', '/me', { key: off.key });
    expect(response.status).toBe(403);
    expectEnvelope(response.body, 'API_ACCESS_DENIED');
  });

  it('denies a route whose scope the key lacks, naming the scope', async () => {
    const org = await createOrganization({ scopes: ['video:read'] });
    const response = await call<{ error: { message: string } }>('GET', '/assets/asset_00000000000000000000000000', {
      key: org.key,
    });
    expect(response.status).toBe(403);
    expectEnvelope(response.body, 'INSUFFICIENT_SCOPE');
    expect(response.body.error.message).toContain('assets:read');
  });
});

describe('rate limits', () => {
  it('admits exactly the per-minute allowance of parallel requests on one key', async () => {
    const org = await createOrganization({ plan: 'custom', limits: { requests_per_minute_per_key: 5 } });
    const responses = await Promise.all(Array.from({ length: 14 }, () => call('GET', '/me', { key: org.key })));
    const admitted = responses.filter((response) => response.status === 200);
    const refused = responses.filter((response) => response.status === 429);
    expect(admitted.length + refused.length).toBe(14);
    // Requests that straddle a minute boundary count in the next window: judge each window alone.
    const perWindow = new Map<string, number>();
    for (const response of admitted) {
      const window = response.headers.get('x-ratelimit-reset') as string;
      perWindow.set(window, (perWindow.get(window) ?? 0) + 1);
    }
    for (const count of perWindow.values()) expect(count).toBeLessThanOrEqual(5);
    expect(admitted.length).toBe(perWindow.size === 1 ? 5 : admitted.length);
    expect(admitted.length).toBeGreaterThanOrEqual(5);
    for (const response of refused) {
      expectEnvelope(response.body, 'RATE_LIMIT_EXCEEDED');
      expect(response.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
      expect(Number(response.headers.get('retry-after'))).toBeLessThanOrEqual(60);
      expect(response.headers.get('x-ratelimit-remaining')).toBe('0');
      for (const header of RATE_LIMIT_HEADERS) expect(response.headers.get(header)).toMatch(/^\d+$/);
    }
  });

  it("admits exactly the organization's daily allowance across several keys, and no more", async () => {
    const org = await createOrganization({
      plan: 'custom',
      limits: { requests_per_day_per_organization: 9, requests_per_minute_per_key: 100 },
    });
    const second = await createKey(org.organizationId);
    const third = await createKey(org.organizationId);
    const keys = [org.key, second.key, third.key];
    const responses = await Promise.all(
      Array.from({ length: 24 }, (_, index) => call('GET', '/me', { key: keys[index % 3] })),
    );
    expect(responses.filter((response) => response.status === 200)).toHaveLength(9);
    const refused = responses.filter((response) => response.status === 429);
    expect(refused).toHaveLength(15);
    for (const response of refused) {
      expect(response.headers.get('x-ratelimit-remaining-organization-day')).toBe('0');
      const retryAfter = Number(response.headers.get('retry-after'));
      const dayReset = Number(response.headers.get('x-ratelimit-reset-organization-day'));
      expect(Math.abs(Date.now() / 1000 + retryAfter - dayReset)).toBeLessThan(5);
    }
  });

  it('reports the windows on every response: success and error', async () => {
    const org = await createOrganization();
    const ok = await call('GET', '/me', { key: org.key });
    const missing = await call('GET', '/assets/asset_00000000000000000000000000', { key: org.key });
    expect(missing.status).toBe(404);
    for (const response of [ok, missing]) {
      for (const header of RATE_LIMIT_HEADERS) expect(response.headers.get(header)).toMatch(/^\d+$/);
      expect(response.headers.get('x-ratelimit-limit')).toBe('60');
      expect(response.headers.get('x-ratelimit-limit-organization-day')).toBe('10000');
      const reset = Number(response.headers.get('x-ratelimit-reset'));
      expect(reset % 60).toBe(0);
      expect(reset - Date.now() / 1000).toBeLessThanOrEqual(60);
      expect(Number(response.headers.get('x-ratelimit-reset-organization-day')) % 86400).toBe(0);
    }
    expect(Number(missing.headers.get('x-ratelimit-remaining'))).toBeLessThan(
      Number(ok.headers.get('x-ratelimit-remaining')),
    );
  });
});

describe('errors', () => {
  let org: TestOrganization;
  beforeAll(async () => {
    org = await createOrganization();
  });

  it('answers an unknown route with the 404 envelope', async () => {
    const response = await call('GET', '/nothing-here', { key: org.key });
    expect(response.status).toBe(404);
    expectEnvelope(response.body, 'ROUTE_NOT_FOUND');
  });

  it('answers a known path with the wrong method with 405 and Allow', async () => {
    const response = await call('DELETE', '/me', { key: org.key });
    expect(response.status).toBe(405);
    expectEnvelope(response.body, 'METHOD_NOT_ALLOWED');
    expect(response.headers.get('allow')).toBe('GET');
  });

  it('rejects malformed JSON with VALIDATION_FAILED', async () => {
    const response = await call('POST', '/assets/upload-url', {
      key: org.key,
      rawBody: '{"filename": ',
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status).toBe(400);
    expectEnvelope(response.body, 'VALIDATION_FAILED');
  });

  it('ignores a body sent to an operation that takes none, JSON or not', async () => {
    // fetch refuses a body on GET; the raw request is what an HTTP client may still send.
    const body = '{"not json';
    const { status, text } = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const request = httpRequest(
        `${apiUrl()}/me`,
        {
          method: 'GET',
          headers: {
            authorization: `Bearer ${org.key}`,
            'content-type': 'application/json',
            'content-length': String(Buffer.byteLength(body)),
          },
        },
        (response) => {
          let text = '';
          response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
        },
      );
      request.on('error', reject);
      request.end(body);
    });
    expect(status).toBe(200);
    expect(JSON.parse(text)).toMatchObject({ organization_id: org.organizationId });
  });

  it('rejects an oversize body with VALIDATION_FAILED', async () => {
    const response = await call('POST', '/video-jobs', {
      key: org.key,
      body: { prompt: 'x', duration_seconds: 5, metadata: { blob: 'x'.repeat(70 * 1024) } },
    });
    expect(response.status).toBe(400);
    expectEnvelope(response.body, 'VALIDATION_FAILED');
  });

  it('names an unknown field', async () => {
    const response = await call<{ error: { message: string } }>('POST', '/video-jobs', {
      key: org.key,
      body: { prompt: 'x', duration_seconds: 5, colour: 'red' },
    });
    expect(response.status).toBe(400);
    expectEnvelope(response.body, 'VALIDATION_FAILED');
    expect(response.body.error.message).toContain('colour');
  });

  it('serves /healthz outside the API', async () => {
    const response = await fetch(`${process.env.IT_BASE_URL}/healthz`);
    expect(response.status).toBe(200);
  });

  it('keeps an idle connection for 60 s, so a pooling client always closes it first', async () => {
    const response = await call('GET', '/me', { key: org.key });
    expect(response.headers.get('keep-alive')).toBe('timeout=60');
  });
});
