import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { baseUrl, call, RATE_LIMIT_HEADERS, type ErrorBody } from './support/stack';

const DOCUMENT = parse(readFileSync('docs/openapi.yaml', 'utf8')) as Record<string, unknown>;

describe('the contract, served at GET /openapi.json', () => {
  it('answers docs/openapi.yaml as JSON to anyone, with no key and no rate-limit headers', async () => {
    for (const key of [undefined, 'svc_test_nope_nope']) {
      const response = await call('GET', '/openapi.json', { key });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/json');
      expect(response.body).toEqual(DOCUMENT);
      expect(response.headers.get('cache-control')).toBe('public, max-age=300');
      expect(response.headers.get('etag')).toMatch(/^"[0-9a-f]{32}"$/);
      expect(RATE_LIMIT_HEADERS.filter((name) => response.headers.has(name))).toEqual([]);
    }
  });

  it('answers 304 without a body to a client whose copy is current, and the document to one whose copy is not', async () => {
    const first = await call('GET', '/openapi.json');
    const etag = first.headers.get('etag')!;
    const current = await call('GET', '/openapi.json', { headers: { 'if-none-match': etag } });
    expect([current.status, current.body, current.headers.get('etag')]).toEqual([304, undefined, etag]);
    const stale = await call('GET', '/openapi.json', {
      headers: { 'if-none-match': '"0123456789abcdef0123456789abcdef"' },
    });
    expect(stale.status).toBe(200);
  });

  it('refuses an unknown query parameter, and answers 405 to another method', async () => {
    const unknown = await call<ErrorBody>('GET', '/openapi.json?format=yaml');
    expect([unknown.status, unknown.body.error.code]).toEqual([400, 'VALIDATION_FAILED']);
    const posted = await call<ErrorBody>('POST', '/openapi.json', { key: 'svc_test_nope_nope' });
    expect(posted.status).toBe(401);
  });
});

describe('the rendered reference of the local stack, at /reference', () => {
  it('is a page whose every part comes from the stack itself, under a policy that allows no other host', async () => {
    const page = await fetch(`${baseUrl()}/reference`);
    expect([page.status, page.headers.get('content-type')]).toEqual([200, 'text/html; charset=utf-8']);
    const policy = page.headers.get('content-security-policy') ?? '';
    expect(policy).toContain("default-src 'none'");
    for (const directive of policy.split(';').map((part) => part.trim().split(/\s+/))) {
      expect([
        directive[0],
        directive.slice(1).filter((source) => /^(https?:|\*|[\w-]+\.[\w.-]+)/.test(source)),
      ]).toEqual([directive[0], []]);
    }
    const html = await page.text();
    const parts = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);
    expect(parts.sort()).toEqual([
      '/reference/assets/init.js',
      '/reference/assets/swagger-ui-bundle.js',
      '/reference/assets/swagger-ui.css',
    ]);
    const types = await Promise.all(
      parts.map(async (part) => {
        const response = await fetch(`${baseUrl()}${part}`);
        await response.arrayBuffer();
        return [part, response.status, response.headers.get('content-type')];
      }),
    );
    expect(types).toEqual([
      ['/reference/assets/init.js', 200, 'text/javascript; charset=utf-8'],
      ['/reference/assets/swagger-ui-bundle.js', 200, 'text/javascript; charset=utf-8'],
      ['/reference/assets/swagger-ui.css', 200, 'text/css; charset=utf-8'],
    ]);
    expect(html).toContain('data-openapi="/api/v1/developer/openapi.json"');
    const init = await (await fetch(`${baseUrl()}/reference/assets/init.js`)).text();
    expect(init).toContain('validatorUrl: null');
  });
});
