import { hashSecret, parseApiKey, secretMatches } from '#domain/access/api-keys';

describe('API key format', () => {
  const prefix = 'abcdefghjkmnpqrs';
  const secret = '0123456789abcdefghjkmnpqrstvwxyz';

  it('parses live and test keys into environment, prefix and secret', () => {
    expect(parseApiKey(`svc_live_${prefix}_${secret}`)).toEqual({ environment: 'live', prefix, secret });
    expect(parseApiKey(`svc_test_${prefix}_${secret}`)).toEqual({ environment: 'test', prefix, secret });
  });

  it.each([
    ['an unknown environment', `svc_prod_${prefix}_${secret}`],
    ['a short prefix', `svc_test_abc_${secret}`],
    ['a short secret', `svc_test_${prefix}_abc`],
    ['upper-case characters', `svc_test_${prefix.toUpperCase()}_${secret}`],
    ['trailing text', `svc_test_${prefix}_${secret}x`],
    ['another vendor prefix', `sk_test_${prefix}_${secret}`],
    ['an empty string', ''],
  ])('rejects %s', (_, presented) => {
    expect(parseApiKey(presented)).toBeUndefined();
  });
});

describe('secret hashing', () => {
  it('stores a SHA-256 hex digest, never the secret', () => {
    const hash = hashSecret('secret-value');
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hash).not.toContain('secret-value');
  });

  it('matches only the secret it was made from', () => {
    const stored = hashSecret('right');
    expect(secretMatches('right', stored)).toBe(true);
    expect(secretMatches('wrong', stored)).toBe(false);
  });

  it('treats a malformed stored hash as no match instead of throwing', () => {
    expect(secretMatches('right', 'abc')).toBe(false);
  });
});
