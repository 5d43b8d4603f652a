import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { parse } from 'yaml';
import { ApiError } from '#platform/errors';
import type { OperationContract } from '#contract/types';
import { operations, sourceSha256, validators } from '#contract/operations/index';
import { pathParametersOf, validateRequest as validateOperation, type RequestInput } from '#http/validation';

const operationsById = new Map<string, OperationContract>(Object.entries(operations));

/** Validates a request of the operation named, as its handler does. */
function validateRequest(operationId: string, input: RequestInput) {
  const operation = operationsById.get(operationId);
  if (!operation) throw new Error(`The contract has no operation ${operationId}`);
  return validateOperation(operation, input);
}

const documentSource = readFileSync(path.join(__dirname, '../../docs/openapi.yaml'), 'utf8');

/** The VALIDATION_FAILED message validateRequest throws, or fails the test when it accepts. */
function rejection(operationId: string, input: RequestInput): string {
  try {
    validateRequest(operationId, input);
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: 'VALIDATION_FAILED', status: 400 });
    return (error as ApiError).message;
  }
  throw new Error(`${operationId} accepted ${JSON.stringify(input)}`);
}

const bodyOf = (operationId: string, body: unknown) => validateRequest(operationId, { body }).body;
const queryOf = (operationId: string, query: Record<string, string>) => validateRequest(operationId, { query }).query;

describe('generated validators', () => {
  it('were built from the current docs/openapi.yaml (run scripts/build-contract.ts)', () => {
    expect(sourceSha256).toBe(createHash('sha256').update(documentSource).digest('hex'));
  });

  it('exist for every operation: query always, body iff a request body, headers iff header parameters', () => {
    interface Operation {
      operationId?: string;
      requestBody?: unknown;
      parameters?: { $ref?: string; in?: string }[];
    }
    const document = parse(documentSource) as { paths: Record<string, Record<string, Operation>> };
    const expected: Record<string, string[]> = {};
    for (const item of Object.values(document.paths)) {
      for (const operation of Object.values(item)) {
        if (!operation?.operationId) continue;
        const hasHeader = (operation.parameters ?? []).some(
          (parameter) => parameter.$ref === '#/components/parameters/IdempotencyKey' || parameter.in === 'header',
        );
        expected[operation.operationId] = [
          ...(operation.requestBody ? ['body'] : []),
          'query',
          ...(hasHeader ? ['headers'] : []),
        ];
      }
    }
    const generated = Object.fromEntries(
      Object.entries(validators).map(([operationId, parts]) => [operationId, Object.keys(parts)]),
    );
    expect(generated).toEqual(expected);
  });
});

describe('request bodies', () => {
  it.each([undefined, null, [], 'text', 42])('requires a JSON object body (%p)', (body) => {
    expect(rejection('createVideoJob', { body })).toBe('Request body must be a JSON object');
  });

  it('ignores a body sent to an operation that has none', () => {
    expect(validateRequest('getMe', { body: { anything: true } }).body).toBeUndefined();
    expect(validateRequest('testWebhook', { body: { anything: true } }).body).toBeUndefined();
  });

  it('does not write defaults into the caller’s object', () => {
    const body = { prompt: 'A lighthouse at dusk', duration_seconds: 5 };
    validateRequest('createVideoJob', { body });
    expect(body).toEqual({ prompt: 'A lighthouse at dusk', duration_seconds: 5 });
  });
});

describe('POST /video-jobs (createVideoJob)', () => {
  const valid = { prompt: 'A lighthouse at dusk', duration_seconds: 10 };

  it('applies the defaults aspect_ratio 9:16 and model auto', () => {
    expect(bodyOf('createVideoJob', valid)).toEqual({ ...valid, aspect_ratio: '9:16', model: 'auto' });
  });

  it('keeps values that were sent', () => {
    const body = {
      prompt: 'p',
      duration_seconds: 15,
      source_asset_id: 'asset_01h',
      aspect_ratio: '1:1',
      model: 'auto',
      style: 'cinematic',
      metadata: { external_id: 'order-42', nested: { any: ['thing'] } },
    };
    expect(bodyOf('createVideoJob', body)).toEqual(body);
  });

  it.each([5, 10, 15])('accepts duration_seconds %d', (duration_seconds) => {
    expect(bodyOf('createVideoJob', { ...valid, duration_seconds })).toMatchObject({ duration_seconds });
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['a duration outside 5/10/15', { ...valid, duration_seconds: 7 }, 'duration_seconds must be one of 5, 10, 15'],
    ['a duration as a string', { ...valid, duration_seconds: '5' }, 'duration_seconds must be an integer'],
    ['a prompt over 1000 characters', { ...valid, prompt: 'x'.repeat(1001) }, 'prompt must be at most 1000 characters'],
    ['an empty prompt', { ...valid, prompt: '' }, 'prompt must not be empty'],
    ['no prompt', { duration_seconds: 5 }, "Missing required field 'prompt'"],
    ['no duration', { prompt: 'p' }, "Missing required field 'duration_seconds'"],
    ['a model other than auto', { ...valid, model: 'veo-3' }, 'model must be auto'],
    ['an unknown aspect ratio', { ...valid, aspect_ratio: '4:3' }, 'aspect_ratio must be one of 9:16, 16:9, 1:1'],
    ['an unknown style', { ...valid, style: 'noir' }, 'style must be one of realistic, cinematic, animated'],
    [
      'a source that is not an asset id',
      { ...valid, source_asset_id: 'img_1' },
      'source_asset_id must be an asset id (asset_...)',
    ],
    ['metadata that is not an object', { ...valid, metadata: 'x' }, 'metadata must be an object'],
    ['a non-string external_id', { ...valid, metadata: { external_id: 7 } }, 'metadata.external_id must be a string'],
    [
      'an external_id over 255 characters',
      { ...valid, metadata: { external_id: 'e'.repeat(256) } },
      'metadata.external_id must be at most 255 characters',
    ],
    ['an unknown field', { ...valid, webhook_url: 'https://example.com' }, "Unknown field 'webhook_url'"],
  ])('rejects %s', (_case, body, message) => {
    expect(rejection('createVideoJob', { body })).toBe(message);
  });

  it('accepts a prompt of exactly 1000 characters', () => {
    expect(bodyOf('createVideoJob', { ...valid, prompt: 'x'.repeat(1000) })).toMatchObject({
      prompt: 'x'.repeat(1000),
    });
  });

  it('limits Idempotency-Key to 1..120 characters, whatever the header name case', () => {
    const body = valid;
    expect(() =>
      validateRequest('createVideoJob', { body, headers: { 'idempotency-key': 'k'.repeat(120) } }),
    ).not.toThrow();
    expect(() => validateRequest('createVideoJob', { body, headers: {} })).not.toThrow();
    expect(rejection('createVideoJob', { body, headers: { 'Idempotency-Key': 'k'.repeat(121) } })).toBe(
      'Header Idempotency-Key must be at most 120 characters',
    );
    expect(
      rejection('createSplitJob', { body: { source_asset_id: 'asset_1' }, headers: { 'idempotency-key': '' } }),
    ).toBe('Header Idempotency-Key must not be empty');
  });
});

describe('POST /split-jobs (createSplitJob)', () => {
  it('accepts every documented field', () => {
    const body = {
      source_asset_id: 'asset_01h',
      target_platforms: ['tiktok', 'instagram_reels', 'youtube_shorts', 'facebook_reels', 'linkedin', 'x'],
      clip_length_preset: 'under_60',
      aspect_ratio: '16:9',
      caption_style: 'karaoke',
      clip_style: 'podcast',
      max_clips: 10,
      language: 'pt-BR',
      metadata: { external_id: 'ep-12' },
    };
    expect(bodyOf('createSplitJob', body)).toEqual(body);
  });

  it('adds no defaults the spec does not define', () => {
    expect(bodyOf('createSplitJob', { source_asset_id: 'asset_1' })).toEqual({ source_asset_id: 'asset_1' });
  });

  it.each(['url', 'youtube_url', 'source_url'])(
    'rejects the URL input field %s (only uploaded assets are accepted)',
    (field) => {
      expect(
        rejection('createSplitJob', { body: { source_asset_id: 'asset_1', [field]: 'https://youtube.com/watch?v=x' } }),
      ).toBe(`Unknown field '${field}'`);
    },
  );

  it('rejects a URL given instead of an asset', () => {
    expect(rejection('createSplitJob', { body: { youtube_url: 'https://youtu.be/x' } })).toBe(
      "Missing required field 'source_asset_id'",
    );
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['max_clips 0', { max_clips: 0 }, 'max_clips must be at least 1'],
    ['max_clips 11', { max_clips: 11 }, 'max_clips must be at most 10'],
    ['a fractional max_clips', { max_clips: 2.5 }, 'max_clips must be an integer'],
    [
      'an unknown platform',
      { target_platforms: ['snapchat'] },
      'target_platforms[0] must be one of tiktok, instagram_reels, youtube_shorts, facebook_reels, linkedin, x',
    ],
    [
      'a repeated platform',
      { target_platforms: ['x', 'x'] },
      'target_platforms must not contain duplicates (items 0 and 1 are equal)',
    ],
    [
      'an unknown clip length',
      { clip_length_preset: 'under_120' },
      'clip_length_preset must be one of under_30, under_60, under_90, auto',
    ],
    [
      'an unknown caption style',
      { caption_style: 'comic' },
      'caption_style must be one of none, clean, bold_center, karaoke, platform_native',
    ],
    [
      'an unknown clip style',
      { clip_style: 'funny' },
      'clip_style must be one of viral_hooks, educational, podcast, highlights, balanced',
    ],
    [
      'a language that is not a BCP 47 tag',
      { language: 'English' + '!' },
      'language must be a BCP 47 language tag such as en or pt-BR',
    ],
    [
      'a source that is not an asset id',
      { source_asset_id: 'https://example.com/a.mp4' },
      'source_asset_id must be an asset id (asset_...)',
    ],
  ])('rejects %s', (_case, fields, message) => {
    expect(rejection('createSplitJob', { body: { source_asset_id: 'asset_1', ...fields } })).toBe(message);
  });
});

describe('POST /assets/upload-url (createAssetUploadUrl)', () => {
  const upload = (fields: Record<string, unknown>) => ({
    filename: 'clip.mp4',
    content_type: 'video/mp4',
    size_bytes: 1024,
    purpose: 'general',
    ...fields,
  });
  const VIDEO = ['video/mp4', 'video/quicktime', 'video/webm'];
  const IMAGE = ['image/jpeg', 'image/png', 'image/webp'];

  it.each([
    ...VIDEO.map((type) => ['split_source', type]),
    ...VIDEO.map((type) => ['video_source', type]),
    ...IMAGE.map((type) => ['image_source', type]),
    ...[...VIDEO, ...IMAGE].map((type) => ['general', type]),
  ])('accepts purpose %s with %s', (purpose, content_type) => {
    expect(bodyOf('createAssetUploadUrl', upload({ purpose, content_type }))).toMatchObject({ purpose, content_type });
  });

  it.each([
    ...IMAGE.map((type) => ['split_source', type]),
    ...IMAGE.map((type) => ['video_source', type]),
    ...VIDEO.map((type) => ['image_source', type]),
  ])('rejects purpose %s with %s, naming content_type', (purpose, content_type) => {
    expect(rejection('createAssetUploadUrl', { body: upload({ purpose, content_type }) })).toBe(
      `content_type '${content_type}' is not allowed for purpose '${purpose}'`,
    );
  });

  it.each<[string, Record<string, unknown>, string]>([
    [
      'a type outside the six',
      { content_type: 'application/pdf' },
      'content_type must be one of image/jpeg, image/png, image/webp, video/mp4, video/quicktime, video/webm',
    ],
    [
      'an unknown purpose',
      { purpose: 'avatar' },
      'purpose must be one of split_source, video_source, image_source, general',
    ],
    ['size_bytes 0', { size_bytes: 0 }, 'size_bytes must be at least 1'],
    ['a fractional size', { size_bytes: 1.5 }, 'size_bytes must be an integer'],
    ['a size as a string', { size_bytes: '1024' }, 'size_bytes must be an integer'],
    [
      'a filename with a slash',
      { filename: '../etc/passwd' },
      'filename must be a file name without path separators ("/" or "\\") or control characters',
    ],
    [
      'a filename with a backslash',
      { filename: 'C:\\clip.mp4' },
      'filename must be a file name without path separators ("/" or "\\") or control characters',
    ],
    [
      'a filename with a control character',
      { filename: 'clip\n.mp4' },
      'filename must be a file name without path separators ("/" or "\\") or control characters',
    ],
    ['an empty filename', { filename: '' }, 'filename must not be empty'],
    [
      'a filename over 255 characters',
      { filename: `${'a'.repeat(252)}.mp4` },
      'filename must be at most 255 characters',
    ],
    ['metadata that is not an object', { metadata: ['a'] }, 'metadata must be an object'],
    ['an unknown field', { checksum: 'abc' }, "Unknown field 'checksum'"],
  ])('rejects %s', (_case, fields, message) => {
    expect(rejection('createAssetUploadUrl', { body: upload(fields) })).toBe(message);
  });

  it.each(['filename', 'content_type', 'size_bytes', 'purpose'])('requires %s', (field) => {
    const body: Record<string, unknown> = upload({});
    delete body[field];
    expect(rejection('createAssetUploadUrl', { body })).toBe(`Missing required field '${field}'`);
  });

  it('accepts a filename with spaces and non-ASCII letters, and free-form metadata', () => {
    const body = upload({ filename: 'Résumé final (v2).mp4', metadata: { project: { id: 1 } } });
    expect(bodyOf('createAssetUploadUrl', body)).toEqual(body);
  });

  it('leaves the organization size limit to the handler', () => {
    expect(bodyOf('createAssetUploadUrl', upload({ size_bytes: 50 * 1024 ** 3 }))).toMatchObject({
      size_bytes: 50 * 1024 ** 3,
    });
  });
});

describe('POST /assets/confirm-upload (confirmAssetUpload)', () => {
  it('accepts an asset id', () => {
    expect(bodyOf('confirmAssetUpload', { asset_id: 'asset_01h' })).toEqual({ asset_id: 'asset_01h' });
  });

  it.each<[unknown, string]>([
    [{}, "Missing required field 'asset_id'"],
    [{ asset_id: 'video_job_1' }, 'asset_id must be an asset id (asset_...)'],
    [{ asset_id: 'asset_1', size_bytes: 3 }, "Unknown field 'size_bytes'"],
  ])('rejects %p', (body, message) => {
    expect(rejection('confirmAssetUpload', { body })).toBe(message);
  });
});

describe('webhooks', () => {
  const valid = { url: 'https://hooks.example.com/video', events: ['job.completed'] };

  it('accepts an HTTPS endpoint with events and a description', () => {
    const body = { ...valid, events: ['job.completed', 'job.failed'], description: 'Production' };
    expect(bodyOf('createWebhook', body)).toEqual(body);
  });

  it.each<[string, Record<string, unknown>, string]>([
    [
      'a plain-HTTP URL',
      { url: 'http://hooks.example.com' },
      'url must be an https:// URL (http:// only to 127.0.0.1 or localhost, on the local stack)',
    ],
    ['a URL that is not a URI', { url: 'https://exa mple.com' }, 'url must be an absolute URI'],
    ['no events', { events: [] }, 'events must not be empty'],
    [
      'an event that cannot be subscribed',
      { events: ['webhook.test'] },
      'events[0] must be one of job.completed, job.failed, job.cancelled',
    ],
    [
      'a repeated event',
      { events: ['job.failed', 'job.failed'] },
      'events must not contain duplicates (items 0 and 1 are equal)',
    ],
    ['a null description', { description: null }, 'description must be a string'],
    [
      'a description over 500 characters',
      { description: 'd'.repeat(501) },
      'description must be at most 500 characters',
    ],
    ['a secret chosen by the client', { secret: 's' }, "Unknown field 'secret'"],
  ])('POST /webhooks rejects %s', (_case, fields, message) => {
    expect(rejection('createWebhook', { body: { ...valid, ...fields } })).toBe(message);
  });

  it('POST /webhooks requires url and events', () => {
    expect(rejection('createWebhook', { body: { events: ['job.failed'] } })).toBe("Missing required field 'url'");
    expect(rejection('createWebhook', { body: { url: valid.url } })).toBe("Missing required field 'events'");
  });

  it('PATCH /webhooks/{id} accepts any one field, none, and null to clear the description', () => {
    for (const body of [
      {},
      { url: valid.url },
      { description: null },
      { description: 'x' },
      { events: ['job.failed'] },
      { status: 'disabled' },
      { status: 'active' },
    ]) {
      expect(bodyOf('updateWebhook', body)).toEqual(body);
    }
  });

  it.each<[unknown, string]>([
    [{ status: 'deleted' }, 'status must be one of active, disabled'],
    [
      { url: 'http://insecure.example.com' },
      'url must be an https:// URL (http:// only to 127.0.0.1 or localhost, on the local stack)',
    ],
    [{ events: [] }, 'events must not be empty'],
    [{ description: 5 }, 'description must be a string or null'],
    [{ id: 'webhook_1' }, "Unknown field 'id'"],
  ])('PATCH /webhooks/{id} rejects %p', (body, message) => {
    expect(rejection('updateWebhook', { body })).toBe(message);
  });
});

describe('POST /webhooks/{id}/rotate-secret body (rotateWebhookSecret)', () => {
  it('reads a request without a body as {}, with the day of overlap by default', () => {
    expect(bodyOf('rotateWebhookSecret', undefined)).toEqual({ overlap_seconds: 86_400 });
    expect(bodyOf('rotateWebhookSecret', {})).toEqual({ overlap_seconds: 86_400 });
    expect(bodyOf('rotateWebhookSecret', { overlap_seconds: 0 })).toEqual({ overlap_seconds: 0 });
    expect(bodyOf('rotateWebhookSecret', { overlap_seconds: 604_800 })).toEqual({ overlap_seconds: 604_800 });
  });

  it.each<[unknown, string]>([
    [{ overlap_seconds: -1 }, 'overlap_seconds must be at least 0'],
    [{ overlap_seconds: 604_801 }, 'overlap_seconds must be at most 604800'],
    [{ overlap_seconds: 2.5 }, 'overlap_seconds must be an integer'],
    [{ secret: 'whsec_mine' }, "Unknown field 'secret'"],
    [[], 'Request body must be a JSON object'],
  ])('rejects %p', (body, message) => {
    expect(rejection('rotateWebhookSecret', { body })).toBe(message);
  });
});

describe('GET /jobs query (listJobs)', () => {
  it('coerces limit to an integer and defaults it to 25', () => {
    expect(queryOf('listJobs', { limit: '50' })).toEqual({ limit: 50 });
    expect(queryOf('listJobs', {})).toEqual({ limit: 25 });
  });

  it('accepts every documented filter', () => {
    const query = {
      type: 'split',
      status: 'completed',
      created_after: '2025-01-01T00:00:00Z',
      created_before: '2025-02-01T00:00:00+01:00',
      limit: '100',
      cursor: 'opaque',
      metadata_external_id: 'order-42',
    };
    expect(queryOf('listJobs', query)).toEqual({ ...query, limit: 100 });
  });

  it('drops parameters whose value is undefined', () => {
    expect(validateRequest('listJobs', { query: { cursor: undefined } }).query).toEqual({ limit: 25 });
  });

  it.each<[Record<string, string>, string]>([
    [{ limit: '0' }, 'Query parameter limit must be at least 1'],
    [{ limit: '101' }, 'Query parameter limit must be at most 100'],
    [{ limit: 'ten' }, 'Query parameter limit must be an integer'],
    [{ limit: '2.5' }, 'Query parameter limit must be an integer'],
    // Number syntaxes JavaScript reads but a decimal integer parameter is not written in.
    ...['Infinity', '-Infinity', '1e2', '0x10', '0b1', ' 5', '5 ', '5.0', '+5', ''].map(
      (limit): [Record<string, string>, string] => [{ limit }, 'Query parameter limit must be an integer'],
    ),
    [{ type: 'image' }, 'Query parameter type must be one of video, split'],
    [
      { status: 'done' },
      'Query parameter status must be one of queued, processing, completed, failed, cancelled, expired',
    ],
    [
      { created_after: 'yesterday' },
      'Query parameter created_after must be a valid ISO 8601 date-time with a time zone, e.g. 2025-01-31T09:30:00Z',
    ],
    [
      { created_before: '2025-01-01' },
      'Query parameter created_before must be a valid ISO 8601 date-time with a time zone, e.g. 2025-01-31T09:30:00Z',
    ],
    [{ sort: 'asc' }, "Unknown query parameter 'sort'"],
  ])('rejects %p', (query, message) => {
    expect(rejection('listJobs', { query })).toBe(message);
  });

  it('rejects unknown query parameters on operations that take none', () => {
    expect(rejection('getMe', { query: { verbose: 'true' } })).toBe("Unknown query parameter 'verbose'");
    expect(validateRequest('getMe', { query: {} }).query).toEqual({});
  });
});

describe('usage query', () => {
  const USAGE = ['getUsage', 'getUsageCredits', 'getUsageRateLimits', 'getUsageJobs', 'getUsageWebhooks'];

  it.each(USAGE)('%s defaults period to current_billing_period', (operationId) => {
    expect(queryOf(operationId, {})).toEqual({ period: 'current_billing_period' });
  });

  it.each(USAGE)('%s accepts a custom period with both dates', (operationId) => {
    const query = { period: 'custom', start_date: '2025-01-01', end_date: '2025-03-31' };
    expect(queryOf(operationId, query)).toEqual(query);
  });

  it('requires both dates with a custom period', () => {
    expect(rejection('getUsage', { query: { period: 'custom', end_date: '2025-01-31' } })).toBe(
      "Missing required query parameter 'start_date' (required when period is 'custom')",
    );
    expect(rejection('getUsageJobs', { query: { period: 'custom', start_date: '2025-01-01' } })).toBe(
      "Missing required query parameter 'end_date' (required when period is 'custom')",
    );
  });

  it('refuses dates without a custom period', () => {
    expect(rejection('getUsageCredits', { query: { start_date: '2025-01-01', end_date: '2025-01-31' } })).toBe(
      "Query parameter start_date is only allowed when period is 'custom'",
    );
    expect(rejection('getUsageCredits', { query: { period: 'last_7_days', end_date: '2025-01-31' } })).toBe(
      "Query parameter end_date is only allowed when period is 'custom'",
    );
  });

  it.each<[Record<string, string>, string]>([
    [
      { period: 'custom', start_date: '2025-02-30', end_date: '2025-03-01' },
      'Query parameter start_date must be a valid date in the form YYYY-MM-DD',
    ],
    [
      { period: 'custom', start_date: '2025-01-01', end_date: '2025-01-31T00:00:00Z' },
      'Query parameter end_date must be a valid date in the form YYYY-MM-DD',
    ],
    [
      { period: 'this_year' },
      'Query parameter period must be one of current_billing_period, last_7_days, last_30_days, custom',
    ],
  ])('rejects %p', (query, message) => {
    expect(rejection('getUsage', { query })).toBe(message);
  });

  it('accepts api_key_id (a key prefix) on /usage and /usage/rate-limits only', () => {
    const query = { api_key_id: '0123456789abcdef' };
    expect(queryOf('getUsage', query)).toMatchObject(query);
    expect(queryOf('getUsageRateLimits', query)).toMatchObject(query);
    for (const operationId of ['getUsageCredits', 'getUsageJobs', 'getUsageWebhooks']) {
      expect(rejection(operationId, { query })).toBe("Unknown query parameter 'api_key_id'");
    }
    expect(rejection('getUsage', { query: { api_key_id: 'svc_live_0123' } })).toBe(
      'Query parameter api_key_id must match the pattern ^[0-9a-z]{16}$',
    );
  });

  it('accepts job_type on /usage, /usage/credits and /usage/jobs only', () => {
    for (const operationId of ['getUsage', 'getUsageCredits', 'getUsageJobs']) {
      expect(queryOf(operationId, { job_type: 'split' })).toMatchObject({ job_type: 'split' });
      expect(rejection(operationId, { query: { job_type: 'image' } })).toBe(
        'Query parameter job_type must be one of video, split',
      );
    }
    for (const operationId of ['getUsageRateLimits', 'getUsageWebhooks']) {
      expect(rejection(operationId, { query: { job_type: 'video' } })).toBe("Unknown query parameter 'job_type'");
    }
  });
});

describe('text: strings with an unpaired surrogate, in any part', () => {
  const upload = { filename: 'clip.mp4', content_type: 'video/mp4', size_bytes: 1024, purpose: 'general' };
  const job = { prompt: 'A lighthouse at dusk', duration_seconds: 5 };
  const webhook = { url: 'https://hooks.example.com/video', events: ['job.completed'] };
  const notText = (subject: string, code: string) =>
    `${subject} must be Unicode text: it holds an unpaired surrogate (${code})`;

  it.each<[string, string, Record<string, unknown>, string]>([
    [
      'a filename with a lone high surrogate',
      'createAssetUploadUrl',
      { ...upload, filename: 'a\ud800.mp4' },
      notText('filename', 'U+D800'),
    ],
    [
      'a filename with a lone low surrogate',
      'createAssetUploadUrl',
      { ...upload, filename: 'a\udc00.mp4' },
      notText('filename', 'U+DC00'),
    ],
    [
      'a filename with the pair reversed',
      'createAssetUploadUrl',
      { ...upload, filename: '\ude00\ud83d' },
      notText('filename', 'U+DE00'),
    ],
    ['a prompt', 'createVideoJob', { ...job, prompt: 'dusk \udbff' }, notText('prompt', 'U+DBFF')],
    [
      'a metadata value deep down',
      'createVideoJob',
      { ...job, metadata: { notes: ['fine', { text: '\udfff' }] } },
      notText('metadata.notes[1].text', 'U+DFFF'),
    ],
    [
      'a metadata member name',
      'createAssetUploadUrl',
      { ...upload, metadata: { ok: 1, ['k\ud800']: 1 } },
      notText('A field name in metadata', 'U+D800'),
    ],
    ['a field name of the body', 'createVideoJob', { ...job, ['\udc00']: 1 }, notText('A field name', 'U+DC00')],
    [
      'a webhook description',
      'createWebhook',
      { ...webhook, description: 'prod \ud800' },
      notText('description', 'U+D800'),
    ],
    ['a webhook description on PATCH', 'updateWebhook', { description: '\udc00' }, notText('description', 'U+DC00')],
    ['an enum value', 'createVideoJob', { ...job, style: 'noir\ud800' }, notText('style', 'U+D800')],
  ])('refuses %s with 400 naming the field', (_case, operationId, body, message) => {
    expect(rejection(operationId, { body })).toBe(message);
  });

  it('names the first such string in document order', () => {
    const body = { ...job, metadata: { a: 'x\udc01', ['b\ud801']: 1 }, prompt: '\ud802' };
    expect(rejection('createVideoJob', { body })).toBe(notText('prompt', 'U+D802'));
    expect(rejection('createVideoJob', { body: { ...job, metadata: { a: 'x\udc01', ['b\ud801']: 1 } } })).toBe(
      notText('metadata.a', 'U+DC01'),
    );
  });

  it('refuses them in query parameters, values and names', () => {
    expect(rejection('listJobs', { query: { metadata_external_id: 'order-\ud800' } })).toBe(
      notText('Query parameter metadata_external_id', 'U+D800'),
    );
    expect(rejection('listJobs', { query: { ['\udc00']: '1' } })).toBe(notText('A query parameter name', 'U+DC00'));
  });

  it('refuses them in headers, documented or not, before their own rules', () => {
    expect(rejection('createVideoJob', { body: job, headers: { 'Idempotency-Key': 'k\ud800' } })).toBe(
      notText('Header Idempotency-Key', 'U+D800'),
    );
    expect(rejection('getMe', { headers: { 'x-trace': '\udc00' } })).toBe(notText('Header x-trace', 'U+DC00'));
  });

  it('refuses them in path parameters, which are otherwise the handler’s to judge', () => {
    const refusal = (() => {
      try {
        pathParametersOf(operations.getAsset, { id: 'asset_\udc00' });
      } catch (error) {
        return error;
      }
    })();
    expect(refusal).toBeInstanceOf(ApiError);
    expect(refusal).toMatchObject({ code: 'VALIDATION_FAILED', message: notText('Path parameter id', 'U+DC00') });
    expect(pathParametersOf(operations.getAsset, { id: 'not-an-asset-😀' })).toEqual({ id: 'not-an-asset-😀' });
  });

  it('ignores the body of an operation that takes none, whatever it holds', () => {
    expect(validateRequest('getMe', { body: { ['\ud800']: '\udc00' } }).body).toBeUndefined();
  });

  it('accepts text beyond the BMP, whose surrogates come in pairs', () => {
    const body = { ...upload, filename: '😀 clip 𝄞.mp4', metadata: { ['🎬']: ['𝒳'] } };
    expect(bodyOf('createAssetUploadUrl', body)).toEqual(body);
  });

  it('refuses any text with one unpaired surrogate put between its characters, and no text without', () => {
    // Characters of one, two and three UTF-8 bytes, and of four, which JavaScript writes as a surrogate pair.
    const text = fc.string({
      unit: fc.constantFrom('a', ' ', 'é', '€', '\uFFFD', '😀', '𝄞'),
      minLength: 1,
      maxLength: 40,
    });
    const surrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code));
    fc.assert(
      fc.property(text, surrogate, fc.nat(), (prompt, lone, at) => {
        const characters = [...prompt];
        const position = at % (characters.length + 1);
        const broken = [...characters.slice(0, position), lone, ...characters.slice(position)].join('');
        expect(bodyOf('createVideoJob', { ...job, prompt })).toMatchObject({ prompt });
        expect(rejection('createVideoJob', { body: { ...job, prompt: broken } })).toMatch(
          /^prompt must be Unicode text/,
        );
      }),
    );
  });
});
