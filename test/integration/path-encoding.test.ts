import { call, createOrganization, RATE_LIMIT_HEADERS, type ErrorBody, type TestOrganization } from './support/stack';

/**
 * A path id that is not valid percent-encoding still matches its route; the id is passed as it
 * came and, being no id of ours, is that resource's 404 like any other unknown id.
 */
describe('path ids that do not percent-decode', () => {
  let org: TestOrganization;
  beforeAll(async () => {
    org = await createOrganization();
  });

  it.each([
    ['/assets/%E0%A4%A', 'ASSET_NOT_FOUND'],
    ['/video-jobs/%', 'JOB_NOT_FOUND'],
    ['/assets/%/download-url', 'ASSET_NOT_FOUND'],
    ['/video-jobs/%ZZ/result', 'JOB_NOT_FOUND'],
  ])('GET %s answers 404 %s in the error envelope, with the rate-limit headers', async (path, code) => {
    const response = await call<ErrorBody>('GET', path, { key: org.key });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({
      error: { code, message: expect.any(String), request_id: expect.stringMatching(/^req_[0-9a-z]{26}$/) },
    });
    for (const header of RATE_LIMIT_HEADERS) expect(response.headers.get(header)).toMatch(/^\d+$/);
  });

  it('authenticates first: without a key the same path is 401 in the envelope', async () => {
    const response = await call<ErrorBody>('GET', '/assets/%E0%A4%A', { key: null });
    expect(response.status).toBe(401);
    expect(response.body.error.code).toBe('API_KEY_INVALID');
  });

  it('answers 405 with Allow for another method on such a path', async () => {
    const response = await call<ErrorBody>('POST', '/video-jobs/%', { key: org.key });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET');
    expect(response.body.error.code).toBe('METHOD_NOT_ALLOWED');
  });

  it.each([
    ['an asset id far longer than any key', `/assets/asset_${'a'.repeat(2000)}`, 'ASSET_NOT_FOUND'],
    ['a video job id far longer than any key', `/video-jobs/video_job_${'a'.repeat(2000)}`, 'JOB_NOT_FOUND'],
  ])('answers 404 for %s', async (_, path, code) => {
    const response = await call<ErrorBody>('GET', path, { key: org.key });
    expect(response.status).toBe(404);
    expect(response.body.error.code).toBe(code);
  });
});
