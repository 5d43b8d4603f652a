import fc from 'fast-check';
import type { Asset } from '#domain/assets/asset-store';
import type * as Media from '#domain/assets/media';

let assets: typeof Media;

beforeAll(async () => {
  Object.assign(process.env, {
    AWS_REGION: 'eu-west-1',
    AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
    AWS_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
    MEDIA_BUCKET_NAME: 'media-bucket',
  });
  delete process.env.AWS_ENDPOINT_URL_S3;
  delete process.env.S3_FORCE_PATH_STYLE;
  assets = await import('#domain/assets/media');
});

describe('presigned upload URL', () => {
  const url = async () => new URL(await assets.presignUpload('incoming/7/asset_x', 'video/mp4', 2147483648));

  it('signs content-type and content-length, so S3 refuses any other type or size', async () => {
    const signed = (await url()).searchParams.get('X-Amz-SignedHeaders')?.split(';');
    expect(signed).toEqual(expect.arrayContaining(['content-length', 'content-type', 'host']));
  });

  it('expires after the documented hour', async () => {
    expect((await url()).searchParams.get('X-Amz-Expires')).toBe(String(assets.UPLOAD_URL_TTL_SECONDS));
    expect(assets.UPLOAD_URL_TTL_SECONDS).toBe(3600);
  });

  it('carries no checksum parameter that a real upload body would fail', async () => {
    const names = [...(await url()).searchParams.keys()].map((name) => name.toLowerCase());
    expect(names.filter((name) => name.includes('checksum'))).toEqual([]);
  });

  it('targets the object under incoming/ in the media bucket', async () => {
    const parsed = await url();
    expect(`${parsed.host}${parsed.pathname}`).toBe('media-bucket.s3.eu-west-1.amazonaws.com/incoming/7/asset_x');
  });
});

describe('presigned download URL', () => {
  const asset: Asset = {
    assetId: 'asset_1',
    organizationId: 7,
    filename: 'clip ü "final".mp4',
    contentType: 'video/mp4',
    sizeBytes: 10,
    purpose: 'general',
    status: 'uploaded',
    metadata: null,
    createdAt: '2026-01-01T00:00:00.000Z',
    objectKey: 'assets/7/asset_1',
    failure: null,
    videoProbe: null,
  };

  it('lives for the documented 15 minutes and names the original file', async () => {
    const now = new Date('2026-01-01T00:00:00.000Z');
    const { url, expiresAt } = await assets.presignDownload(asset, now);
    const parsed = new URL(url);
    expect(parsed.searchParams.get('X-Amz-Expires')).toBe('900');
    expect(expiresAt).toBe('2026-01-01T00:15:00.000Z');
    expect(parsed.searchParams.get('response-content-disposition')).toBe(assets.contentDisposition(asset.filename));
    expect(parsed.searchParams.get('response-content-type')).toBe('video/mp4');
  });

  it('is made for an asset whose stored name holds an unpaired surrogate (named before names had to be text)', async () => {
    const { url } = await assets.presignDownload({ ...asset, filename: 'a\udc00.mp4' });
    expect(new URL(url).searchParams.get('response-content-disposition')).toBe(
      `attachment; filename="a_.mp4"; filename*=UTF-8''a%EF%BF%BD.mp4`,
    );
  });

  it('is refused for an asset that is not uploaded', async () => {
    await expect(assets.presignDownload({ ...asset, status: 'pending' })).rejects.toMatchObject({
      code: 'ASSET_NOT_UPLOADED',
    });
  });
});

describe('content disposition', () => {
  it('keeps the exact UTF-8 name and an ASCII fallback without quotes', () => {
    expect(assets.contentDisposition('clip ü "final".mp4')).toBe(
      `attachment; filename="clip _ _final_.mp4"; filename*=UTF-8''clip%20%C3%BC%20%22final%22.mp4`,
    );
  });

  it('writes one fallback `_` per character beyond ASCII, and none of `"`, `\\` or `%` there', () => {
    expect(assets.contentDisposition('😀 100% \\ "ok".mp4')).toBe(
      `attachment; filename="_ 100_ _ _ok_.mp4"; filename*=UTF-8''%F0%9F%98%80%20100%25%20%5C%20%22ok%22.mp4`,
    );
  });

  it('names a file whose stored name holds an unpaired surrogate, writing it as U+FFFD', () => {
    expect(assets.contentDisposition('a\ud800.mp4')).toBe(
      `attachment; filename="a_.mp4"; filename*=UTF-8''a%EF%BF%BD.mp4`,
    );
    expect(assets.contentDisposition('\udc00')).toBe(`attachment; filename="_"; filename*=UTF-8''%EF%BF%BD`);
  });

  it('is a header value of printable ASCII for any name, whose filename* decodes to the name', () => {
    const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code));
    const name = fc.string({
      unit: fc.oneof(
        fc.string({ minLength: 1, maxLength: 1 }),
        fc.constantFrom('"', '\\', '%', "'", 'é', '😀', '\u0000', '\u007f'),
        loneSurrogate,
      ),
      maxLength: 30,
    });
    fc.assert(
      fc.property(name, (filename) => {
        const disposition = assets.contentDisposition(filename);
        const parts = /^attachment; filename="([\x20-\x7e]*)"; filename\*=UTF-8''([A-Za-z0-9!\-._~%]*)$/.exec(
          disposition,
        );
        expect(parts).not.toBeNull();
        const [, fallback = '', encoded = ''] = parts ?? [];
        expect(fallback).not.toMatch(/["\\%]/);
        expect(fallback).toHaveLength([...filename].length);
        // What a UTF-8 encoder makes of the name: itself, when it is Unicode text.
        expect(decodeURIComponent(encoded)).toBe(Buffer.from(filename, 'utf8').toString('utf8'));
      }),
    );
  });
});
