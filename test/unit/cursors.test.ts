import fc from 'fast-check';
import { openCursor, sealCursor, type CursorScope } from '#platform/cursors';
import type { CursorKeyRing } from '#platform/cursor-keys';
import { ApiError } from '#platform/errors';

const key = (id: string, fill: number) => ({ id, secret: Buffer.alloc(32, fill) });
const RING: CursorKeyRing = { signing: key('k2', 2), verifying: [key('k2', 2), key('k1', 1)] };
const SCOPE: CursorScope = { operation: 'listJobs', organizationId: 7, filters: { status: 'failed', type: 'video' } };

function refused(scope: CursorScope, cursor: string, ring = RING) {
  try {
    openCursor(ring, scope, cursor);
  } catch (error) {
    return error instanceof ApiError && error.code === 'VALIDATION_FAILED' && error.message.includes('cursor');
  }
  return false;
}

const positions = fc.string({ unit: 'binary', minLength: 1, maxLength: 120 });
const filters = fc.dictionary(
  fc.constantFrom('type', 'status', 'metadata_external_id', 'created_after', 'created_before'),
  fc.string({ unit: 'binary', maxLength: 40 }),
);

describe('page cursors', () => {
  it('open to the position they were sealed with, for the same scope, whatever the filter order', () => {
    fc.assert(
      fc.property(positions, filters, fc.integer({ min: 1 }), (position, chosen, organizationId) => {
        const scope = { operation: 'listJobs', organizationId, filters: chosen };
        const reordered = { ...scope, filters: Object.fromEntries(Object.entries(chosen).reverse()) };
        expect(openCursor(RING, reordered, sealCursor(RING, scope, position))).toBe(position);
      }),
    );
  });

  it('refuse any change of one character', () => {
    fc.assert(
      fc.property(positions, fc.nat(), fc.integer({ min: 32, max: 126 }), (position, at, code) => {
        const cursor = sealCursor(RING, SCOPE, position);
        const index = at % cursor.length;
        fc.pre(cursor[index] !== String.fromCharCode(code));
        const altered = cursor.slice(0, index) + String.fromCharCode(code) + cursor.slice(index + 1);
        expect(refused(SCOPE, altered)).toBe(true);
      }),
    );
  });

  it('refuse every truncation and extension', () => {
    fc.assert(
      fc.property(positions, fc.nat(), fc.string({ minLength: 1, maxLength: 5 }), (position, at, tail) => {
        const cursor = sealCursor(RING, SCOPE, position);
        expect(refused(SCOPE, cursor.slice(0, at % cursor.length))).toBe(true);
        expect(refused(SCOPE, cursor + tail)).toBe(true);
      }),
    );
  });

  it('refuse a cursor of another organization, operation or filters', () => {
    const cursor = sealCursor(RING, SCOPE, '2026-11-23T10:00:00.000Z#video_job_x');
    expect(refused({ ...SCOPE, organizationId: 8 }, cursor)).toBe(true);
    expect(refused({ ...SCOPE, operation: 'listWebhooks' }, cursor)).toBe(true);
    expect(refused({ ...SCOPE, filters: { status: 'failed' } }, cursor)).toBe(true);
    expect(
      refused({ ...SCOPE, filters: { ...SCOPE.filters, created_after: '2026-01-01T00:00:00.000Z' } }, cursor),
    ).toBe(true);
  });

  it('are verified with the previous key after a rotation, and refused once that key is retired', () => {
    const before: CursorKeyRing = { signing: key('k1', 1), verifying: [key('k1', 1)] };
    const cursor = sealCursor(before, SCOPE, 'position');
    expect(openCursor(RING, SCOPE, cursor)).toBe('position');
    const retired: CursorKeyRing = { signing: key('k3', 3), verifying: [key('k3', 3), key('k2', 2)] };
    expect(refused(SCOPE, cursor, retired)).toBe(true);
  });

  it('refuse a cursor whose key id names a key with another secret', () => {
    const impostor: CursorKeyRing = { signing: key('k2', 9), verifying: [key('k2', 9)] };
    expect(refused(SCOPE, sealCursor(impostor, SCOPE, 'position'))).toBe(true);
  });
});
