import { createHash } from 'node:crypto';
import { call, createOrganization, putToUploadUrl, type ErrorBody, type TestOrganization } from './support/stack';
import { largeMediaChunks, makeMedia } from './support/media';

interface UploadUrl {
  asset_id: string;
  upload_url: string;
  upload_method: string;
  upload_headers: Record<string, string>;
  expires_at: string;
}
interface Asset {
  id: string;
  status: string;
  [field: string]: unknown;
}

async function requestUpload(org: TestOrganization, body: Record<string, unknown>) {
  return call<UploadUrl>('POST', '/assets/upload-url', { key: org.key, body });
}

async function put(upload: UploadUrl, bytes: Buffer, contentType = upload.upload_headers['Content-Type'] as string) {
  return fetch(upload.upload_url, {
    method: upload.upload_method,
    headers: { 'Content-Type': contentType },
    body: bytes,
  });
}

/** `bytes` uploaded as declared (their own size), then the answer to the asset's confirmation. */
async function uploadAndConfirm<Answer>(
  org: TestOrganization,
  declared: { filename: string; content_type: string; purpose: string },
  bytes: Buffer,
) {
  const created = await requestUpload(org, { ...declared, size_bytes: bytes.length });
  await put(created.body, bytes);
  const confirm = await call<Answer>('POST', '/assets/confirm-upload', {
    key: org.key,
    body: { asset_id: created.body.asset_id },
  });
  return { assetId: created.body.asset_id, confirm };
}

describe('asset upload, confirmation and download', () => {
  let org: TestOrganization;
  let video: Buffer;
  beforeAll(async () => {
    org = await createOrganization();
    video = makeMedia('mp4');
  });

  it('round-trips real bytes: upload-url, PUT, confirm, get, download-url, GET the same bytes', async () => {
    const before = Date.now();
    const created = await requestUpload(org, {
      filename: 'launch "teaser" 100% 🎬.mp4',
      content_type: 'video/mp4',
      size_bytes: video.length,
      purpose: 'split_source',
      metadata: { campaign: 'spring' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      asset_id: expect.stringMatching(/^asset_[0-9a-z]{26}$/),
      upload_url: expect.stringMatching(/^http/),
      upload_method: 'PUT',
      upload_headers: { 'Content-Type': 'video/mp4' },
      expires_at: expect.any(String),
    });
    const expiresIn = Date.parse(created.body.expires_at) - before;
    expect(expiresIn).toBeGreaterThan(3590_000);
    expect(expiresIn).toBeLessThan(3610_000);

    const pending = await call<Asset>('GET', `/assets/${created.body.asset_id}`, { key: org.key });
    expect(pending.body.status).toBe('pending');

    expect((await put(created.body, video)).status).toBe(200);

    const confirmed = await call<Asset>('POST', '/assets/confirm-upload', {
      key: org.key,
      body: { asset_id: created.body.asset_id },
    });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body).toEqual({
      id: created.body.asset_id,
      filename: 'launch "teaser" 100% 🎬.mp4',
      content_type: 'video/mp4',
      size_bytes: video.length,
      purpose: 'split_source',
      status: 'uploaded',
      created_at: expect.any(String),
      metadata: { campaign: 'spring' },
    });

    const fetched = await call<Asset>('GET', `/assets/${created.body.asset_id}`, { key: org.key });
    expect(fetched.body).toEqual(confirmed.body);

    const download = await call<{ asset_id: string; download_url: string; expires_at: string }>(
      'GET',
      `/assets/${created.body.asset_id}/download-url`,
      { key: org.key },
    );
    expect(download.status).toBe(200);
    expect(download.body.asset_id).toBe(created.body.asset_id);
    expect(Date.parse(download.body.expires_at) - Date.now()).toBeLessThanOrEqual(900_000);
    const file = await fetch(download.body.download_url);
    expect(file.status).toBe(200);
    expect(Buffer.from(await file.arrayBuffer()).equals(video)).toBe(true);
    // RFC 6266: the exact name as UTF-8, and an ASCII fallback with nothing a quoted string cannot hold.
    expect(file.headers.get('content-disposition')).toBe(
      `attachment; filename="launch _teaser_ 100_ _.mp4"; filename*=UTF-8''launch%20%22teaser%22%20100%25%20%F0%9F%8E%AC.mp4`,
    );
  });

  it('confirms idempotently: a second confirm returns the same asset', async () => {
    const created = await requestUpload(org, {
      filename: 'a.mp4',
      content_type: 'video/mp4',
      size_bytes: video.length,
      purpose: 'general',
    });
    await put(created.body, video);
    const first = await call<Asset>('POST', '/assets/confirm-upload', {
      key: org.key,
      body: { asset_id: created.body.asset_id },
    });
    const second = await call<Asset>('POST', '/assets/confirm-upload', {
      key: org.key,
      body: { asset_id: created.body.asset_id },
    });
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
  });

  it('answers concurrent confirmations of one upload alike: each 200 with the same asset', async () => {
    // Several uploads, so that some pairs overlap where one confirmation removes the upload the other reads.
    const uploads = await Promise.all(
      Array.from({ length: 4 }, async () => {
        const created = await requestUpload(org, {
          filename: 'twice.mp4',
          content_type: 'video/mp4',
          size_bytes: video.length,
          purpose: 'general',
        });
        expect((await put(created.body, video)).status).toBe(200);
        return created.body.asset_id;
      }),
    );
    const confirmations = await Promise.all(
      uploads.flatMap((assetId) =>
        [1, 2].map(() => call<Asset>('POST', '/assets/confirm-upload', { key: org.key, body: { asset_id: assetId } })),
      ),
    );

    expect(confirmations.map((response) => response.status)).toEqual(confirmations.map(() => 200));
    uploads.forEach((assetId, index) => {
      const [first, second] = [confirmations[2 * index]!.body, confirmations[2 * index + 1]!.body];
      expect(first).toMatchObject({ id: assetId, status: 'uploaded' });
      expect(second).toEqual(first);
    });
  });

  it('takes an upload too large for one copy through its upload URL, and stores exactly the uploaded bytes', async () => {
    // Four parts of the confirmation's copy (64 MiB each, the last shorter).
    const sizeBytes = 200 * 1024 * 1024 + 12_345;
    const created = await requestUpload(org, {
      filename: 'long take.mp4',
      content_type: 'video/mp4',
      size_bytes: sizeBytes,
      purpose: 'split_source',
    });
    const upload = await putToUploadUrl(
      created.body.upload_url,
      created.body.upload_headers,
      sizeBytes,
      largeMediaChunks('mp4', sizeBytes),
    );
    expect(upload.status).toBe(200);

    const confirmed = await call<Asset>('POST', '/assets/confirm-upload', {
      key: org.key,
      body: { asset_id: created.body.asset_id },
    });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body).toMatchObject({ status: 'uploaded', size_bytes: sizeBytes, content_type: 'video/mp4' });

    const download = await call<{ download_url: string }>('GET', `/assets/${created.body.asset_id}/download-url`, {
      key: org.key,
    });
    const stored = await fetch(download.body.download_url);
    expect(stored.status).toBe(200);
    expect(stored.headers.get('content-type')).toBe('video/mp4');
    const storedHash = createHash('sha256');
    for await (const chunk of stored.body!) storedHash.update(chunk);
    const uploadedHash = createHash('sha256');
    for (const chunk of largeMediaChunks('mp4', sizeBytes)) uploadedHash.update(chunk);
    expect(storedHash.digest('hex')).toBe(uploadedHash.digest('hex'));
  }, 120_000);

  it('keeps an asset pending when it is confirmed before upload, and confirms it once the bytes arrive', async () => {
    const png = makeMedia('png');
    const created = await requestUpload(org, {
      filename: 'still.png',
      content_type: 'image/png',
      size_bytes: png.length,
      purpose: 'image_source',
    });
    const early = await call<ErrorBody>('POST', '/assets/confirm-upload', {
      key: org.key,
      body: { asset_id: created.body.asset_id },
    });
    expect(early.status).toBe(409);
    expect(early.body.error.code).toBe('ASSET_NOT_UPLOADED');
    expect((await call<Asset>('GET', `/assets/${created.body.asset_id}`, { key: org.key })).body.status).toBe(
      'pending',
    );
    const notYet = await call<ErrorBody>('GET', `/assets/${created.body.asset_id}/download-url`, { key: org.key });
    expect(notYet.status).toBe(409);
    expect(notYet.body.error.code).toBe('ASSET_NOT_UPLOADED');

    await put(created.body, png);
    const confirmed = await call<Asset>('POST', '/assets/confirm-upload', {
      key: org.key,
      body: { asset_id: created.body.asset_id },
    });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.status).toBe('uploaded');
  });

  it('marks text bytes declared as video/mp4 failed, and never serves them', async () => {
    const text = Buffer.from('this is a plain text file pretending to be a video, and it is long enough');
    const { assetId, confirm } = await uploadAndConfirm<ErrorBody>(
      org,
      { filename: 'fake.mp4', content_type: 'video/mp4', purpose: 'split_source' },
      text,
    );
    expect(confirm.status).toBe(422);
    expect(confirm.body.error.code).toBe('ASSET_CONTENT_MISMATCH');
    expect(confirm.body.error.message).toContain('video/mp4');
    expect((await call<Asset>('GET', `/assets/${assetId}`, { key: org.key })).body.status).toBe('failed');
    const again = await call<ErrorBody>('POST', '/assets/confirm-upload', {
      key: org.key,
      body: { asset_id: assetId },
    });
    expect(again.status).toBe(422);
    const download = await call<ErrorBody>('GET', `/assets/${assetId}/download-url`, { key: org.key });
    expect(download.status).toBe(409);
    // A job on it is told why, and that only a new upload helps: confirming again answers the same 422.
    const split = await call<ErrorBody>('POST', '/split-jobs', { key: org.key, body: { source_asset_id: assetId } });
    expect([split.status, split.body.error.code]).toEqual([409, 'ASSET_NOT_READY']);
    expect(split.body.error.message).toBe(
      `source_asset_id ${assetId} is failed: ${confirm.body.error.message} ` +
        'Upload the file again as a new asset (POST /assets/upload-url) and use that one.',
    );
  });

  it('confirms a file shorter than the bytes its format check reads, with its exact size', async () => {
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, ...Buffer.from('tiny but a JPEG by its signature')]);
    const { confirm } = await uploadAndConfirm<Asset>(
      org,
      { filename: 'tiny.jpg', content_type: 'image/jpeg', purpose: 'general' },
      jpeg,
    );
    expect(confirm.status).toBe(200);
    expect(confirm.body).toMatchObject({ status: 'uploaded', size_bytes: jpeg.length });
  });

  it.each([
    ['another Content-Type than', 'video/webm', 0],
    ['more bytes than', 'video/mp4', 10],
  ])('refuses a PUT of %s declared with 403, as S3 does, leaving the asset pending', async (_, contentType, extra) => {
    const created = await requestUpload(org, {
      filename: 'v.mp4',
      content_type: 'video/mp4',
      size_bytes: video.length,
      purpose: 'general',
    });
    const upload = await put(created.body, Buffer.concat([video, Buffer.alloc(extra)]), contentType);
    expect(upload.status).toBe(403);
    expect(await upload.text()).toContain('<Code>SignatureDoesNotMatch</Code>');
    const confirm = await call<ErrorBody>('POST', '/assets/confirm-upload', {
      key: org.key,
      body: { asset_id: created.body.asset_id },
    });
    expect([confirm.status, confirm.body.error.code]).toEqual([409, 'ASSET_NOT_UPLOADED']);
    expect((await call<Asset>('GET', `/assets/${created.body.asset_id}`, { key: org.key })).body.status).toBe(
      'pending',
    );
  });
});

describe('upload URL validation', () => {
  let org: TestOrganization;
  beforeAll(async () => {
    org = await createOrganization();
  });
  const valid = { filename: 'clip.mp4', content_type: 'video/mp4', size_bytes: 1000, purpose: 'split_source' };

  it.each([
    ['filename is missing', { ...valid, filename: undefined }, 'filename'],
    ['filename is empty', { ...valid, filename: '' }, 'filename'],
    ['filename has a path separator', { ...valid, filename: '../etc/passwd' }, 'filename'],
    // Sent as the JSON escapes \ud800 and \udc00, which parse to surrogates without their pair.
    ['filename has a lone high surrogate', { ...valid, filename: 'a\ud800.mp4' }, 'filename must be Unicode text'],
    ['filename has a lone low surrogate', { ...valid, filename: 'a\udc00.mp4' }, 'filename must be Unicode text'],
    ['metadata has a lone surrogate', { ...valid, metadata: { note: '\udc00' } }, 'metadata.note'],
    ['content_type is not allowed', { ...valid, content_type: 'application/pdf' }, 'content_type'],
    ['split_source gets an image', { ...valid, content_type: 'image/png' }, 'content_type'],
    ['video_source gets an image', { ...valid, purpose: 'video_source', content_type: 'image/jpeg' }, 'content_type'],
    ['image_source gets a video', { ...valid, purpose: 'image_source', content_type: 'video/webm' }, 'content_type'],
    ['purpose is unknown', { ...valid, purpose: 'avatar' }, 'purpose'],
    ['size_bytes is zero', { ...valid, size_bytes: 0 }, 'size_bytes'],
    ['size_bytes is fractional', { ...valid, size_bytes: 10.5 }, 'size_bytes'],
    ['size_bytes is a string', { ...valid, size_bytes: '1000' }, 'size_bytes'],
    ['metadata is not an object', { ...valid, metadata: ['a'] }, 'metadata'],
    ['an unknown field is sent', { ...valid, bucket: 'mine' }, 'bucket'],
  ])('rejects a request where %s, naming the field', async (_, body, field) => {
    const response = await call<ErrorBody>('POST', '/assets/upload-url', { key: org.key, body });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('VALIDATION_FAILED');
    expect(response.body.error.message).toContain(field);
  });

  it('accepts general with any allowed type', async () => {
    for (const contentType of ['image/webp', 'video/quicktime']) {
      const response = await call('POST', '/assets/upload-url', {
        key: org.key,
        body: { ...valid, purpose: 'general', content_type: contentType },
      });
      expect(response.status).toBe(201);
    }
  });

  it('refuses a size above the Team limit with 413 ASSET_UPLOAD_TOO_LARGE', async () => {
    const atLimit = await call('POST', '/assets/upload-url', {
      key: org.key,
      body: { ...valid, size_bytes: 2147483648 },
    });
    expect(atLimit.status).toBe(201);
    const over = await call<ErrorBody>('POST', '/assets/upload-url', {
      key: org.key,
      body: { ...valid, size_bytes: 2147483649 },
    });
    expect(over.status).toBe(413);
    expect(over.body.error.code).toBe('ASSET_UPLOAD_TOO_LARGE');
  });

  it('applies a negotiated upload limit of a Custom organization', async () => {
    const custom = await createOrganization({ plan: 'custom', limits: { max_asset_upload_size_bytes: 5000 } });
    expect(
      (await call('POST', '/assets/upload-url', { key: custom.key, body: { ...valid, size_bytes: 5000 } })).status,
    ).toBe(201);
    const over = await call<ErrorBody>('POST', '/assets/upload-url', {
      key: custom.key,
      body: { ...valid, size_bytes: 5001 },
    });
    expect(over.status).toBe(413);
    expect(over.body.error.message).toContain('5000');
  });

  it('rejects a confirm body without a valid asset id', async () => {
    for (const body of [{}, { asset_id: 'file_1' }, { asset_id: 'asset_1', extra: true }]) {
      const response = await call<ErrorBody>('POST', '/assets/confirm-upload', { key: org.key, body });
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('VALIDATION_FAILED');
    }
  });
});

describe('tenant isolation', () => {
  it("answers 404 for another organization's asset on every route, exactly as for an unknown id", async () => {
    const owner = await createOrganization();
    const stranger = await createOrganization();
    const png = makeMedia('png');
    const created = await requestUpload(owner, {
      filename: 'p.png',
      content_type: 'image/png',
      size_bytes: png.length,
      purpose: 'image_source',
    });
    await put(created.body, png);
    expect(
      (await call('POST', '/assets/confirm-upload', { key: owner.key, body: { asset_id: created.body.asset_id } }))
        .status,
    ).toBe(200);

    const unknownId = 'asset_0000000000000000000000zzzz';
    for (const id of [created.body.asset_id, unknownId]) {
      const responses = [
        await call<ErrorBody>('GET', `/assets/${id}`, { key: stranger.key }),
        await call<ErrorBody>('GET', `/assets/${id}/download-url`, { key: stranger.key }),
        await call<ErrorBody>('POST', '/assets/confirm-upload', { key: stranger.key, body: { asset_id: id } }),
      ];
      for (const response of responses) {
        expect(response.status).toBe(404);
        expect(response.body.error.code).toBe('ASSET_NOT_FOUND');
        expect(response.body.error.message).toBe(`No asset ${id} exists.`);
      }
    }
  });

  it('answers 404 for a path id that is not an asset id', async () => {
    const org = await createOrganization();
    const response = await call<ErrorBody>('GET', '/assets/video_job_123', { key: org.key });
    expect(response.status).toBe(404);
    expect(response.body.error.code).toBe('ASSET_NOT_FOUND');
  });
});
