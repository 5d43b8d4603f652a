import { requestFingerprint } from '#platform/idempotency';

describe('request fingerprint', () => {
  it('ignores key order at every depth', () => {
    expect(requestFingerprint({ a: 1, b: { c: 2, d: [1, { e: 1, f: 2 }] } })).toBe(
      requestFingerprint({ b: { d: [1, { f: 2, e: 1 }], c: 2 }, a: 1 }),
    );
  });

  it('distinguishes different values and array orders', () => {
    expect(requestFingerprint({ prompt: 'a' })).not.toBe(requestFingerprint({ prompt: 'b' }));
    expect(requestFingerprint({ list: [1, 2] })).not.toBe(requestFingerprint({ list: [2, 1] }));
  });
});
