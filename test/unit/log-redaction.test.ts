import { S3Client, GetObjectCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import fc from 'fast-check';
import { log, type LogFields } from '#platform/log';
import { REDACTED, redactText, redactValue } from '#platform/redaction';

/** A secret as it may reach a log call, and the texts that must not appear in the line written. */
interface Secret {
  text: string;
  forbidden: string[];
}

const chars = (alphabet: string, length: number) =>
  fc.string({ unit: fc.constantFrom(...alphabet), minLength: length, maxLength: length });
const BASE32 = '0123456789abcdefghjkmnpqrstvwxyz';
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const SIGNING_PARAMETERS = ['X-Amz-Signature', 'X-Amz-Credential', 'X-Amz-Security-Token'];

const apiKey: fc.Arbitrary<Secret> = fc
  .record({ environment: fc.constantFrom('live', 'test'), prefix: chars(BASE32, 16), secret: chars(BASE32, 32) })
  .map(({ environment, prefix, secret }) => {
    const key = `svc_${environment}_${prefix}_${secret}`;
    return { text: key, forbidden: [key, secret] };
  });

const webhookSecret: fc.Arbitrary<Secret> = chars(BASE64URL, 43).map((secret) => ({
  text: `whsec_${secret}`,
  forbidden: [secret],
}));

const authorization: fc.Arbitrary<Secret> = fc
  .record({
    scheme: fc.constantFrom('Bearer', 'Basic'),
    credentials: fc.string({ unit: fc.constantFrom(...`${BASE64URL}.~+/`), minLength: 20, maxLength: 80 }),
  })
  .map(({ scheme, credentials }) => ({ text: `${scheme} ${credentials}`, forbidden: [credentials] }));

/** A SigV4 presigned URL: the query's parameters in any order, with a session token or without. */
const signedUrl: fc.Arbitrary<Secret> = fc
  .record({
    origin: fc.constantFrom('https://media.s3.us-east-1.amazonaws.com', 'http://127.0.0.1:4566/video-api-media-local'),
    key: fc.constantFrom('/assets/7/asset_01j/original', '/renders/video_job_1/output.mp4', '/a%20b/c.png'),
    accessKeyId: fc.string({
      unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'),
      minLength: 16,
      maxLength: 16,
    }),
    signature: chars('0123456789abcdef', 64),
    token: fc.option(chars(BASE64URL, 60), { nil: undefined }),
    order: fc.shuffledSubarray([0, 1, 2, 3, 4, 5], { minLength: 6, maxLength: 6 }),
  })
  .map(({ origin, key, accessKeyId, signature, token, order }) => {
    const credential = `ASIA${accessKeyId}`;
    const parameters = [
      'X-Amz-Algorithm=AWS4-HMAC-SHA256',
      `X-Amz-Credential=${credential}%2F20260301%2Fus-east-1%2Fs3%2Faws4_request`,
      'X-Amz-Date=20260301T120000Z',
      'X-Amz-Expires=900',
      `X-Amz-Signature=${signature}`,
      token ? `X-Amz-Security-Token=${encodeURIComponent(token)}` : 'x-id=GetObject',
    ];
    return {
      text: `${origin}${key}?${order.map((index) => parameters[index]).join('&')}`,
      forbidden: [signature, credential, ...(token ? [token] : []), ...SIGNING_PARAMETERS],
    };
  });

const anySecret = fc.oneof(apiKey, webhookSecret, authorization, signedUrl);

/** Text that carries no secret: no underscore or equals sign, so no key, secret or query parameter. */
const ORDINARY = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,:;!?()[]{}\'"@#%&*+-/<>\n';
const ordinaryText = fc.string({ unit: fc.constantFrom(...ORDINARY), maxLength: 60 });
const separator = fc.constantFrom(' ', ': ', '"', '=', '\n', '(', ', ');

/** The secret inside a longer text: after and before ordinary text. */
const embedded = fc
  .record({ secret: anySecret, before: ordinaryText, after: ordinaryText, open: separator, close: separator })
  .map(({ secret, before, after, open, close }) => ({
    ...secret,
    text: `${before}${open}${secret.text}${close}${after}`,
  }));

const fieldName = fc.constantFrom('detail', 'reason', 'url', 'items', 'context', 'output', 'body');

/** Where a log call might carry a text: the message, a field, deep in objects and arrays, a key, an error. */
type Placement = (text: string) => { message: string; fields: LogFields };
const placement: fc.Arbitrary<Placement> = fc.oneof(
  fc.constant<Placement>((text) => ({ message: text, fields: {} })),
  fieldName.map<Placement>((name) => (text) => ({ message: 'm', fields: { [name]: text } })),
  fc.array(fc.oneof(fieldName, fc.constant('[]')), { minLength: 1, maxLength: 4 }).map<Placement>((path) => (text) => ({
    message: 'm',
    fields: path.reduceRight<LogFields>(
      (inner, step) => ({ wrapper: step === '[]' ? [1, inner, 'x'] : { [step]: inner } }),
      { value: text },
    ),
  })),
  fc.constant<Placement>((text) => ({ message: 'm', fields: { headers: { [text]: 'value' } } })),
  fc.constant<Placement>((text) => ({ message: 'm', fields: { error: new Error(`request failed: ${text}`) } })),
  fc.constant<Placement>((text) => ({
    message: 'm',
    fields: { error: new Error('outer', { cause: new TypeError(text) }) },
  })),
);

/** The line `log` writes for this call, as text. */
function written(level: 'info' | 'error', message: string, fields: LogFields): string {
  const lines: string[] = [];
  const capture = (line: string) => {
    lines.push(line);
  };
  const out = jest.spyOn(console, 'log').mockImplementation(capture);
  const err = jest.spyOn(console, 'error').mockImplementation(capture);
  try {
    log(level, message, fields);
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
  expect(lines).toHaveLength(1);
  return lines[0]!;
}

const previousLogLevel = process.env.LOG_LEVEL;
beforeAll(() => {
  process.env.LOG_LEVEL = 'debug';
});
afterAll(() => {
  process.env.LOG_LEVEL = previousLogLevel;
});

describe('a log line', () => {
  it('never carries an API key, a signing secret, credentials or a URL signature, wherever the call put it', () => {
    fc.assert(
      fc.property(
        embedded,
        placement,
        fc.constantFrom('info', 'error') as fc.Arbitrary<'info' | 'error'>,
        (secret, place, level) => {
          const { message, fields } = place(secret.text);
          const line = written(level, message, fields).toLowerCase();
          for (const forbidden of secret.forbidden) expect(line).not.toContain(forbidden.toLowerCase());
          expect(() => JSON.parse(line)).not.toThrow();
        },
      ),
      { numRuns: 300 },
    );
  });

  it('leaves ordinary text and values as they were', () => {
    const value = fc.oneof(
      ordinaryText,
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.array(ordinaryText, { maxLength: 3 }),
    );
    fc.assert(
      fc.property(ordinaryText, fc.dictionary(fieldName, value), (message, fields) => {
        const line = JSON.parse(written('info', message, fields)) as Record<string, unknown>;
        expect(line).toEqual({ level: 'info', message, time: expect.any(String), ...fields });
      }),
    );
  });

  it('keeps what says what happened: the key’s environment, the URL without its query, ordinary words', () => {
    expect(redactText('key svc_live_abcdefghjkmnpqrs_0123456789abcdefghjkmnpqrstvwxyz refused')).toBe(
      `key svc_live_${REDACTED} refused`,
    );
    expect(
      redactText('GET https://b.s3.amazonaws.com/assets/7/a?X-Amz-Signature=abc&X-Amz-Credential=AKIA failed'),
    ).toBe(`GET https://b.s3.amazonaws.com/assets/7/a?${REDACTED} failed`);
    expect(redactText('https://example.com/page?utm=1')).toBe('https://example.com/page?utm=1');
    expect(redactText('a basic plan, the bearer of news')).toBe('a basic plan, the bearer of news');
  });

  it('hides the whole value of a field named for a secret, whatever the value looks like', () => {
    expect(
      redactValue({ Authorization: 'anything', headers: { 'x-api-key': 'k', cookie: 'c' }, signing_secret: 's' }),
    ).toEqual({
      Authorization: REDACTED,
      headers: { 'x-api-key': REDACTED, cookie: REDACTED },
      signing_secret: REDACTED,
    });
  });

  it('hides a presigned URL of the SDK, session token included, in an error’s message and stack', async () => {
    const s3 = new S3Client({
      region: 'us-east-1',
      credentials: {
        accessKeyId: 'ASIAEXAMPLEKEY123456',
        secretAccessKey: 'secret',
        sessionToken: 'SESSIONTOKENVALUE0123456789',
      },
    });
    const url = await getSignedUrl(s3, new GetObjectCommand({ Bucket: 'media', Key: 'assets/7/asset_1/original' }), {
      expiresIn: 900,
    });
    expect(url).toContain('X-Amz-Signature=');
    const line = written('error', 'probe failed', { error: new Error(`ffprobe: ${url}: Invalid data found`) });
    for (const forbidden of ['ASIAEXAMPLEKEY123456', 'SESSIONTOKENVALUE0123456789', ...SIGNING_PARAMETERS]) {
      expect(line).not.toContain(forbidden);
    }
    expect(line).toContain('https://media.s3.us-east-1.amazonaws.com/assets/7/asset_1/original?[redacted]');
  });

  it('bounds what it writes: depth, entries, string length and cycles', () => {
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    const deep = { a: { b: { c: { d: { e: { f: { g: 'too far' } } } } } } };
    const redacted = redactValue({
      cyclic,
      deep,
      long: 'x'.repeat(100_000),
      many: Array.from({ length: 60 }, (_, index) => index),
      bytes: Buffer.from('abc'),
      big: 10n,
    }) as Record<string, unknown>;
    expect(redacted.cyclic).toEqual({ name: 'loop', self: '[circular]' });
    expect(JSON.stringify(redacted.deep)).not.toContain('too far');
    expect((redacted.long as string).length).toBeLessThan(8300);
    expect(redacted.many).toHaveLength(51);
    expect(redacted.bytes).toBe('[3 bytes]');
    expect(redacted.big).toBe('10');
  });
});
