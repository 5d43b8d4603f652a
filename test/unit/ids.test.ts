import { sortableId } from '#platform/ids';

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
