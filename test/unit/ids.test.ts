import { isSortableId, sortableId } from '#platform/ids';

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
