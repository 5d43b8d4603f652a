import fc from 'fast-check';
import { RESPONSE_EXCERPT_BYTES, responseExcerpt } from '#domain/webhooks/response-excerpt';
import { REDACTED } from '#platform/redaction';

const SIGNING_SECRET = 'whsec_dGhpcy1pcy1hLXRlc3Qtc2VjcmV0LW9mLTMyLWJ5dGVz';
/**
 * The secret a rotation replaced, which signs beside the current one during the overlap; one
 * issued in base64url, whose receiver may hold it in its standard base64 form.
 */
const PREVIOUS_SECRET = 'whsec_8-_0b0JHcZ7oRk2Ha2tFVuKrZV5Gx-yL3UPLe_4q1Wo';
const excerpt = (text: string) => responseExcerpt(Buffer.from(text, 'utf8'), [SIGNING_SECRET, PREVIOUS_SECRET]);

/** Secrets of every shape the excerpt must not show, each with the text that must not survive. */
const SECRETS: [label: string, written: string, hidden: string][] = [
  ['the signing secret', SIGNING_SECRET, SIGNING_SECRET.slice('whsec_'.length)],
  ['the signing secret without its prefix', SIGNING_SECRET.slice('whsec_'.length), 'dGhpcy1pcy1hLXRlc3Qt'],
  ['the previous signing secret without its prefix', PREVIOUS_SECRET.slice('whsec_'.length), '8-_0b0JHcZ7oRk2Ha2tF'],
  [
    'the previous signing secret in standard base64',
    '8+/0b0JHcZ7oRk2Ha2tFVuKrZV5Gx+yL3UPLe/4q1Wo=',
    '8+/0b0JHcZ7oRk2Ha2tF',
  ],
  ['another signing secret', 'whsec_b3RoZXItc2VjcmV0LXZhbHVlLWZvci10ZXN0cw', 'b3RoZXItc2VjcmV0'],
  ['an API key', 'svc_live_abcdefghjkmnpqrs_0123456789abcdefghjkmnpqrstvwxyz', '0123456789abcdefghjkmnpq'],
  ['a bearer token', 'Bearer sk_live_Zm9vYmFyYmF6cXV4', 'sk_live_Zm9vYmFyYmF6cXV4'],
  ['a JSON token field', '{"access_token": "t0k3n-v4lue-123456"}', 't0k3n-v4lue-123456'],
  ['a JSON password field', '{"password":"hunter2-but-longer"}', 'hunter2-but-longer'],
  ['a form field', 'client_secret=cs_9f8e7d6c5b4a&x=1', 'cs_9f8e7d6c5b4a'],
  ['a header line', 'X-Api-Key: ak-5566778899aabb', 'ak-5566778899aabb'],
  ['a cookie', 'Set-Cookie: session=abcdef0123456789', 'abcdef0123456789'],
  [
    'a JWT',
    'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
    'dozjgNryP4J3jVmNHl0w5N',
  ],
  [
    'a presigned URL',
    'https://bucket.s3.amazonaws.com/a.mp4?X-Amz-Credential=AKIA123&X-Amz-Signature=abcdef0123',
    'X-Amz-Signature=abcdef0123',
  ],
];

/**
 * Text around a secret: anything, a receiver's answer being anything, with separators at its
 * edges; short enough that the secret always starts within the excerpt's 1 KB.
 */
const surrounding = fc.string({ unit: 'binary', maxLength: 150 }).map((text) => `${text} `);

describe('the response excerpt of the delivery log', () => {
  it('keeps a short plain answer as it is, and nothing of an empty one', () => {
    expect(excerpt('{"received":true}')).toBe('{"received":true}');
    expect(excerpt('Internal Server Error')).toBe('Internal Server Error');
    expect(responseExcerpt(Buffer.alloc(0), [SIGNING_SECRET])).toBeUndefined();
  });

  it.each(SECRETS)('takes out %s, wherever it sits in the answer', (_, written, hidden) => {
    fc.assert(
      fc.property(surrounding, surrounding, (before, after) => {
        const kept = excerpt(`${before}${written} ${after}`) ?? '';
        expect(kept).not.toContain(hidden);
        expect(kept).toContain(REDACTED);
      }),
      { numRuns: 50 },
    );
  });

  it('is the longest start of the answer that fits 1 KB, never cutting a character', () => {
    const characters = fc.constantFrom('a', ' ', '{', '"', 'é', '☕', '😀');
    fc.assert(
      fc.property(fc.array(characters, { minLength: 1, maxLength: 1500 }), (written) => {
        let expected = '';
        for (const character of written) {
          if (Buffer.byteLength(expected + character) > RESPONSE_EXCERPT_BYTES) break;
          expected += character;
        }
        expect(excerpt(written.join(''))).toBe(expected);
      }),
    );
  });
});
