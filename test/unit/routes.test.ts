import { matchPath, methodsAt, ROUTES } from '#routes';

describe('route path templates', () => {
  it('takes one segment per parameter, decoded', () => {
    expect(matchPath('/assets/{id}/download-url', '/assets/asset_%41b/download-url')).toEqual({ id: 'asset_Ab' });
    expect(matchPath('/me', '/me')).toEqual({});
  });

  it.each(['%E0%A4%A', '%', '%ZZ', 'asset_%C0%AF'])(
    'still matches a parameter that is not valid percent-encoding (%s), passing it as it came',
    (raw) => {
      expect(matchPath('/assets/{id}', `/assets/${raw}`)).toEqual({ id: raw });
      expect(matchPath('/assets/{id}/download-url', `/assets/${raw}/download-url`)).toEqual({ id: raw });
      expect(methodsAt(`/video-jobs/${raw}`)).toEqual(['GET']);
    },
  );

  it('matches no path with more or fewer segments', () => {
    expect(matchPath('/assets/{id}', '/assets/a/b')).toBeUndefined();
    expect(matchPath('/assets/{id}', '/assets/')).toBeUndefined();
    expect(matchPath('/me', '/me/')).toBeUndefined();
  });

  it('lists the methods served at a path, for 405 answers', () => {
    expect(methodsAt('/me')).toEqual(['GET']);
    expect(methodsAt('/video-jobs/video_job_1')).toEqual(['GET']);
    expect(methodsAt('/nowhere')).toEqual([]);
  });

  it('has one route per method and path template', () => {
    const keys = ROUTES.map((route) => `${route.method} ${route.path}`);
    expect(new Set(keys).size).toBe(keys.length);
  });
});
