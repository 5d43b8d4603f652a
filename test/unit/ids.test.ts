import fc from 'fast-check';
import { isSortableId, SORTABLE_ID_LAST_MS, sortableId, sortableIdsAt, timeOfSortableId } from '#platform/ids';

const milliseconds = fc.integer({ min: 0, max: SORTABLE_ID_LAST_MS });

describe('sortable ids', () => {
  it('carry their prefix and sort by creation time', () => {
    const earlier = sortableId('video_job_', 1_700_000_000_000);
    const later = sortableId('video_job_', 1_700_000_000_001);
    expect(earlier.startsWith('video_job_')).toBe(true);
    expect(earlier < later).toBe(true);
  });

  it('are unique within the same millisecond', () => {
    const ids = new Set(Array.from({ length: 1000 }, () => sortableId('asset_', 1_700_000_000_000)));
    expect(ids.size).toBe(1000);
  });
});

describe('recognising a sortable id', () => {
  it('accepts what sortableId makes with the prefix', () => {
    expect(isSortableId('asset_', sortableId('asset_'))).toBe(true);
    expect(isSortableId('video_job_', sortableId('video_job_'))).toBe(true);
  });

  it.each([
    ['another prefix', sortableId('video_job_'), 'asset_'],
    ['a short id', 'asset_1', 'asset_'],
    ['an id far longer than any key', `asset_${'a'.repeat(2000)}`, 'asset_'],
    ['upper-case letters', sortableId('asset_').toUpperCase().replace('ASSET_', 'asset_'), 'asset_'],
    ['letters base 32 leaves out', `asset_${'u'.repeat(26)}`, 'asset_'],
    ['undecoded percent-escapes', `asset_${'%E0'.repeat(8)}%A`, 'asset_'],
  ])('refuses %s', (_, value, prefix) => {
    expect(isSortableId(prefix, value)).toBe(false);
  });
});

describe('the ids of a millisecond', () => {
  it('bound every id made in it, and sort after every earlier one and before every later one', () => {
    fc.assert(
      fc.property(milliseconds, fc.oneof(fc.constantFrom(-1, 0, 1), fc.integer()), (made, offset) => {
        const bound = made + offset;
        fc.pre(bound >= 0 && bound <= SORTABLE_ID_LAST_MS);
        const id = sortableId('evt_', made);
        const { first, last } = sortableIdsAt('evt_', bound);
        expect(isSortableId('evt_', first) && isSortableId('evt_', last)).toBe(true);
        expect(first <= id && id <= last).toBe(made === bound);
        expect(id < first).toBe(made < bound);
        expect(id > last).toBe(made > bound);
      }),
    );
  });

  it('are what timeOfSortableId reads the millisecond back from', () => {
    fc.assert(
      fc.property(milliseconds, (made) => {
        const { first, last } = sortableIdsAt('split_job_', made);
        expect([timeOfSortableId('split_job_', first), timeOfSortableId('split_job_', last)]).toEqual([made, made]);
        expect(timeOfSortableId('split_job_', sortableId('split_job_', made))).toBe(made);
      }),
    );
  });
});
