import { call, createOrganization, type ErrorBody, type TestOrganization } from './support/stack';

/**
 * Metadata is the client's JSON, returned as sent. Each body is sent as raw JSON text: building it
 * as a JavaScript object first would already turn `__proto__` into a prototype on this side.
 */
const NESTING_DEPTH = 35;
const METADATA_TEXTS: [string, string][] = [
  ['a number beyond the safe integers', '{"n":1e20}'],
  ['a number smaller than DynamoDB can hold', '{"n":1e-200}'],
  ['a __proto__ key', '{"__proto__":{"a":1}}'],
  [`${NESTING_DEPTH} levels of nesting`, `${'{"n":'.repeat(NESTING_DEPTH)}1${'}'.repeat(NESTING_DEPTH)}`],
  ['an empty key', '{"":1}'],
];

function postRaw<T>(org: TestOrganization, path: string, fields: string, metadataText: string) {
  return call<T>('POST', path, {
    key: org.key,
    headers: { 'content-type': 'application/json' },
    rawBody: `{${fields},"metadata":${metadataText}}`,
  });
}

function expectSameMetadata(actual: unknown, metadataText: string) {
  expect(actual).toEqual(JSON.parse(metadataText));
  if (metadataText.includes('__proto__')) {
    const metadata = actual as Record<string, unknown>;
    expect(Object.getPrototypeOf(metadata)).toBe(Object.prototype);
    expect(Object.keys(metadata)).toEqual(['__proto__']);
    expect(Object.getOwnPropertyDescriptor(metadata, '__proto__')?.value).toEqual({ a: 1 });
  }
}

describe('metadata round trip', () => {
  let org: TestOrganization;
  beforeAll(async () => {
    org = await createOrganization({ plan: 'custom', limits: { concurrent_video_jobs: 10 } });
  });

  it.each(METADATA_TEXTS)('stores a video job whose metadata has %s and returns it as sent', async (_, text) => {
    // A failing render ends the job quickly; its metadata must survive every status change.
    const created = await postRaw<{ id: string; metadata: unknown }>(
      org,
      '/video-jobs',
      '"prompt":"[fault:fail] metadata round trip","duration_seconds":5',
      text,
    );
    expect(created.status).toBe(201);
    expectSameMetadata(created.body.metadata, text);

    const fetched = await call<{ metadata: unknown }>('GET', `/video-jobs/${created.body.id}`, { key: org.key });
    expect(fetched.status).toBe(200);
    expectSameMetadata(fetched.body.metadata, text);
  });

  it.each(METADATA_TEXTS)('stores an asset whose metadata has %s and returns it as sent', async (_, text) => {
    const created = await postRaw<{ asset_id: string }>(
      org,
      '/assets/upload-url',
      '"filename":"clip.mp4","content_type":"video/mp4","size_bytes":1000,"purpose":"general"',
      text,
    );
    expect(created.status).toBe(201);

    const fetched = await call<{ metadata: unknown }>('GET', `/assets/${created.body.asset_id}`, { key: org.key });
    expect(fetched.status).toBe(200);
    expectSameMetadata(fetched.body.metadata, text);
  });

  it('replays an idempotent create only for the same metadata, __proto__ key included', async () => {
    const fields = '"prompt":"[fault:fail] replay","duration_seconds":5';
    const send = (metadataText: string) =>
      call<{ id: string } & ErrorBody>('POST', '/video-jobs', {
        key: org.key,
        headers: { 'content-type': 'application/json', 'idempotency-key': 'metadata-proto-replay' },
        rawBody: `{${fields},"metadata":${metadataText}}`,
      });
    const first = await send('{"__proto__":{"a":1}}');
    expect(first.status).toBe(201);
    const replayed = await send('{"__proto__":{"a":1}}');
    expect(replayed.status).toBe(201);
    expect(replayed.body.id).toBe(first.body.id);
    const different = await send('{}');
    expect(different.status).toBe(409);
    expect(different.body.error.code).toBe('IDEMPOTENCY_CONFLICT');
  });

  it('refuses asset metadata over 8 KB as JSON, naming the field', async () => {
    const response = await call<ErrorBody>('POST', '/assets/upload-url', {
      key: org.key,
      body: {
        filename: 'clip.mp4',
        content_type: 'video/mp4',
        size_bytes: 1000,
        purpose: 'general',
        metadata: { notes: 'x'.repeat(8200) },
      },
    });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('VALIDATION_FAILED');
    expect(response.body.error.message).toContain('metadata');
  });

  it('accepts asset metadata of exactly 8192 bytes as JSON', async () => {
    const notes = 'x'.repeat(8192 - JSON.stringify({ notes: '' }).length);
    const response = await call('POST', '/assets/upload-url', {
      key: org.key,
      body: {
        filename: 'clip.mp4',
        content_type: 'video/mp4',
        size_bytes: 1000,
        purpose: 'general',
        metadata: { notes },
      },
    });
    expect(response.status).toBe(201);
  });
});
