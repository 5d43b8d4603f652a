import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  NoSuchKey,
  NotFound,
  S3Client,
  S3ServiceException,
  UploadPartCopyCommand,
} from '@aws-sdk/client-s3';
import { DynamoDBDocumentClient, GetCommand, UpdateCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import fc from 'fast-check';
import { COPY_PART_BYTES, MAX_COPY_PARTS, planCopyParts } from '#domain/assets/media';
import { CONFIRM_ATTEMPTS, confirmUpload } from '#domain/assets/uploads';
import { sortableId } from '#platform/ids';
import { deferred } from './support/deferred';

Object.assign(process.env, {
  TABLE_NAME: 'table',
  MEDIA_BUCKET_NAME: 'media-bucket',
  AWS_REGION: 'eu-west-1',
  AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
  AWS_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
  LOG_LEVEL: 'silent',
});

const s3 = mockClient(S3Client);
const dynamo = mockClient(DynamoDBDocumentClient);

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
const ORGANIZATION_ID = 7;
const MP4_HEAD = Uint8Array.from([0, 0, 0, 0x18, ...new TextEncoder().encode('ftypisom'), ...new Uint8Array(52)]);
const TEXT_HEAD = new TextEncoder().encode('plain text pretending to be a video, long enough to sniff....');

/** The asset item in the table, changed only the way asset-store.ts changes it. */
let record: Record<string, unknown>;
let assetId: string;
let incomingKey: string;

/**
 * The upload under incoming/ as S3 holds it now (its size and type are the declared ones unless
 * given): undefined once deleted.
 */
let upload: { etag: string; head: Uint8Array; sizeBytes?: number; contentType?: string } | undefined;

function preconditionFailed() {
  return new S3ServiceException({
    name: 'PreconditionFailed',
    $fault: 'client',
    $metadata: { httpStatusCode: 412 },
    message: 'At least one of the pre-conditions you specified did not hold',
  });
}
const noSuchKey = () =>
  new NoSuchKey({ message: 'The specified key does not exist.', $metadata: { httpStatusCode: 404 } });

/** The upload as S3 holds it, for a read or copy bound to `etag` (If-Match, x-amz-copy-source-if-match). */
function currentUpload(etag?: string) {
  if (!upload) throw noSuchKey();
  if (etag !== undefined && etag !== upload.etag) throw preconditionFailed();
  return upload;
}

/** S3 with one object under incoming/, each command as S3 answers it; a test overrides one call with callsFakeOnce. */
const S3_FAKES = {
  getObject: ({ IfMatch, Range }: { IfMatch?: string; Range?: string }) => {
    const { etag, head, sizeBytes = Number(record.size_bytes), contentType = 'video/mp4' } = currentUpload(IfMatch);
    const lastByte = Math.min(Number(Range?.match(/^bytes=0-(\d+)$/)?.[1]), sizeBytes - 1);
    return {
      ETag: etag,
      ContentType: contentType,
      ContentRange: `bytes 0-${lastByte}/${sizeBytes}`,
      Body: { transformToByteArray: async () => head.slice(0, lastByte + 1) },
    } as never;
  },
  copyObject: ({ CopySourceIfMatch }: { CopySourceIfMatch?: string }) => {
    currentUpload(CopySourceIfMatch);
    return {};
  },
  uploadPartCopy: ({ CopySourceIfMatch, PartNumber }: { CopySourceIfMatch?: string; PartNumber?: number }) => {
    currentUpload(CopySourceIfMatch);
    return { CopyPartResult: { ETag: `"part-${PartNumber}"` } };
  },
};

function emulateS3() {
  s3.on(GetObjectCommand).callsFake(S3_FAKES.getObject);
  s3.on(CopyObjectCommand).callsFake(S3_FAKES.copyObject);
  s3.on(CreateMultipartUploadCommand).resolves({ UploadId: 'upload-1' });
  s3.on(UploadPartCopyCommand).callsFake(S3_FAKES.uploadPartCopy);
  s3.on(CompleteMultipartUploadCommand).resolves({});
  s3.on(AbortMultipartUploadCommand).resolves({});
  s3.on(DeleteObjectCommand).callsFake(() => {
    upload = undefined;
    return {};
  });
}

/** markAssetUploaded and markAssetFailed: conditional on `pending`, as DynamoDB would apply them. */
function emulateTable() {
  dynamo.on(GetCommand).callsFake(() => ({ Item: { ...record } }));
  dynamo.on(UpdateCommand).callsFake((input: UpdateCommandInput) => {
    if (record.status !== 'pending') {
      throw new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} });
    }
    const values = input.ExpressionAttributeValues ?? {};
    if (values[':uploaded']) record = { ...record, status: 'uploaded', object_key: values[':key'] };
    if (values[':failed']) record = { ...record, status: 'failed', failure: values[':failure'] };
    return { Attributes: { ...record } };
  });
}

function pendingAsset(sizeBytes: number) {
  assetId = sortableId('asset_', Date.parse('2026-03-01T12:00:00.000Z'));
  incomingKey = `incoming/${ORGANIZATION_ID}/${assetId}`;
  record = {
    asset_id: assetId,
    organization_id: ORGANIZATION_ID,
    filename: 'clip.mp4',
    content_type: 'video/mp4',
    size_bytes: sizeBytes,
    purpose: 'general',
    status: 'pending',
    metadata: null,
    created_at: '2026-03-01T12:00:00.000Z',
    object_key: incomingKey,
  };
}

beforeEach(() => {
  s3.reset();
  dynamo.reset();
  pendingAsset(1000);
  upload = { etag: '"v1"', head: MP4_HEAD };
  emulateS3();
  emulateTable();
});

const inputsOf = <Input extends object>(command: new (input: Input) => unknown) =>
  s3.commandCalls(command as never).map((call) => call.args[0].input as Input);

describe('confirming an upload', () => {
  it('reads the first bytes and the metadata of one version, copies only that version, then removes the upload', async () => {
    const asset = await confirmUpload(ORGANIZATION_ID, assetId);

    expect(asset).toMatchObject({ status: 'uploaded', objectKey: `assets/${ORGANIZATION_ID}/${assetId}` });
    expect(inputsOf(GetObjectCommand)).toEqual([{ Bucket: 'media-bucket', Key: incomingKey, Range: 'bytes=0-63' }]);
    expect(inputsOf(HeadObjectCommand)).toEqual([]);
    expect(inputsOf(CopyObjectCommand)).toEqual([
      {
        Bucket: 'media-bucket',
        Key: `assets/${ORGANIZATION_ID}/${assetId}`,
        CopySource: `media-bucket/${incomingKey}`,
        CopySourceIfMatch: '"v1"',
        ContentType: 'video/mp4',
        MetadataDirective: 'REPLACE',
      },
    ]);
    expect(inputsOf(DeleteObjectCommand)).toEqual([{ Bucket: 'media-bucket', Key: incomingKey }]);
  });

  // S3 refuses a PUT of another type or size than its URL signs; the confirmation checks again all the same.
  it.each([
    ['another size', { sizeBytes: 1010 }, 'size_bytes'],
    ['another type', { contentType: 'video/webm' }, 'video/webm'],
  ])('fails an upload of %s than declared with 422, copying nothing', async (_, stored, named) => {
    upload = { ...upload!, ...stored };

    await expect(confirmUpload(ORGANIZATION_ID, assetId)).rejects.toMatchObject({
      code: 'ASSET_CONTENT_MISMATCH',
      message: expect.stringContaining(named),
    });
    expect(record.status).toBe('failed');
    expect(inputsOf(CopyObjectCommand)).toEqual([]);
  });

  it('verifies again from the start when the upload is replaced between the check and the copy, and refuses new bytes that are not the declared format', async () => {
    s3.on(CopyObjectCommand)
      .callsFakeOnce(() => {
        upload = { etag: '"v2"', head: TEXT_HEAD }; // a PUT through the upload URL lands before the copy
        throw preconditionFailed();
      })
      .callsFake(S3_FAKES.copyObject);

    await expect(confirmUpload(ORGANIZATION_ID, assetId)).rejects.toMatchObject({
      code: 'ASSET_CONTENT_MISMATCH',
      message: 'The uploaded bytes are not a video/mp4 file.',
    });
    expect(inputsOf(GetObjectCommand)).toHaveLength(2);
    expect(inputsOf(CopyObjectCommand)).toHaveLength(1);
    expect(record.status).toBe('failed');
    expect(inputsOf(DeleteObjectCommand)).toEqual([]);
  });

  it('confirms the replacing version when it is valid, copying that version only', async () => {
    s3.on(CopyObjectCommand)
      .callsFakeOnce(() => {
        upload = { etag: '"v2"', head: MP4_HEAD };
        throw preconditionFailed();
      })
      .callsFake(S3_FAKES.copyObject);

    await expect(confirmUpload(ORGANIZATION_ID, assetId)).resolves.toMatchObject({ status: 'uploaded' });
    expect(inputsOf(CopyObjectCommand).map((input) => input.CopySourceIfMatch)).toEqual(['"v1"', '"v2"']);
  });

  it(`answers 409 ASSET_NOT_UPLOADED and leaves the asset pending when the upload changes under each of ${CONFIRM_ATTEMPTS} attempts`, async () => {
    let version = 1;
    s3.on(CopyObjectCommand).callsFake(() => {
      version += 1;
      upload = { etag: `"v${version}"`, head: MP4_HEAD };
      throw preconditionFailed();
    });

    await expect(confirmUpload(ORGANIZATION_ID, assetId)).rejects.toMatchObject({
      code: 'ASSET_NOT_UPLOADED',
      status: 409,
      message: expect.stringContaining('replaced while they were being confirmed'),
    });
    expect(inputsOf(CopyObjectCommand)).toHaveLength(CONFIRM_ATTEMPTS);
    expect(record.status).toBe('pending');
  });

  it('reads the upload beside the asset, not after it', async () => {
    const assetRead = deferred();
    dynamo.on(GetCommand).callsFake(async () => {
      await assetRead.promise;
      return { Item: { ...record } };
    });

    const confirmation = confirmUpload(ORGANIZATION_ID, assetId);
    await new Promise(setImmediate);
    expect(inputsOf(GetObjectCommand)).toHaveLength(1);
    assetRead.resolve();
    await expect(confirmation).resolves.toMatchObject({ status: 'uploaded' });
  });

  it('answers a settled asset as it is, whatever the read of the upload beside it met', async () => {
    await confirmUpload(ORGANIZATION_ID, assetId);
    s3.on(GetObjectCommand).rejects(new Error('network down'));

    await expect(confirmUpload(ORGANIZATION_ID, assetId)).resolves.toMatchObject({ status: 'uploaded' });
  });

  describe('an empty upload (S3 answers a range of it with 416)', () => {
    const invalidRange = () =>
      new S3ServiceException({
        name: 'InvalidRange',
        $fault: 'client',
        $metadata: { httpStatusCode: 416 },
        message: 'The requested range is not satisfiable',
      });

    it('fails with 422 naming its 0 bytes, from its HeadObject', async () => {
      s3.on(GetObjectCommand).rejects(invalidRange());
      s3.on(HeadObjectCommand).resolves({ ContentLength: 0, ContentType: 'video/mp4', ETag: '"empty"' });

      await expect(confirmUpload(ORGANIZATION_ID, assetId)).rejects.toMatchObject({
        code: 'ASSET_CONTENT_MISMATCH',
        message: 'The uploaded file has 0 bytes, not the declared size_bytes 1000.',
      });
      expect(record.status).toBe('failed');
      expect(inputsOf(CopyObjectCommand)).toEqual([]);
    });

    it('reads again when a PUT with bytes landed between the read and the HeadObject', async () => {
      s3.on(GetObjectCommand).rejectsOnce(invalidRange()).callsFake(S3_FAKES.getObject);
      s3.on(HeadObjectCommand).resolves({ ContentLength: 1000, ContentType: 'video/mp4', ETag: '"v1"' });

      await expect(confirmUpload(ORGANIZATION_ID, assetId)).resolves.toMatchObject({ status: 'uploaded' });
      expect(inputsOf(GetObjectCommand)).toHaveLength(2);
    });

    it('answers 409 ASSET_NOT_UPLOADED when it is gone by the HeadObject', async () => {
      s3.on(GetObjectCommand).rejects(invalidRange());
      s3.on(HeadObjectCommand).rejects(new NotFound({ message: 'Not Found', $metadata: { httpStatusCode: 404 } }));

      await expect(confirmUpload(ORGANIZATION_ID, assetId)).rejects.toMatchObject({ code: 'ASSET_NOT_UPLOADED' });
      expect(record.status).toBe('pending');
    });
  });

  it('answers 409 ASSET_NOT_UPLOADED while nothing was uploaded', async () => {
    upload = undefined;
    await expect(confirmUpload(ORGANIZATION_ID, assetId)).rejects.toMatchObject({
      code: 'ASSET_NOT_UPLOADED',
      message: expect.stringContaining('PUT the file to its upload_url'),
    });
    expect(record.status).toBe('pending');
  });
});

describe('with a listing allowed under incoming/ only, as in AWS (GetObject answers 403 for a missing key)', () => {
  const forbidden = () =>
    new S3ServiceException({ name: 'Forbidden', $fault: 'client', $metadata: { httpStatusCode: 403 }, message: '' });
  /** Another upload whose key starts with this one's, which a listing by prefix also finds. */
  const neighbour = () => `${incomingKey}0`;

  beforeEach(() => {
    s3.on(GetObjectCommand).callsFake((input: { IfMatch?: string; Range?: string }) => {
      if (!upload) throw forbidden();
      return S3_FAKES.getObject(input);
    });
    s3.on(ListObjectsV2Command).callsFake(() => ({
      Contents: [...(upload ? [incomingKey] : []), neighbour()].map((Key) => ({ Key })).slice(0, 1),
    }));
  });

  it('answers 409 ASSET_NOT_UPLOADED when a listing of exactly the key finds nothing', async () => {
    upload = undefined;
    await expect(confirmUpload(ORGANIZATION_ID, assetId)).rejects.toMatchObject({
      code: 'ASSET_NOT_UPLOADED',
      message: expect.stringContaining('PUT the file to its upload_url'),
    });
    expect(inputsOf(ListObjectsV2Command)).toEqual([{ Bucket: 'media-bucket', Prefix: incomingKey, MaxKeys: 1 }]);
    expect(record.status).toBe('pending');
  });

  it('lists nothing for an asset that is unknown, or already confirmed and its upload gone', async () => {
    await confirmUpload(ORGANIZATION_ID, assetId);
    await expect(confirmUpload(ORGANIZATION_ID, assetId)).resolves.toMatchObject({ status: 'uploaded' });
    dynamo.on(GetCommand).resolves({});
    await expect(confirmUpload(ORGANIZATION_ID, assetId)).rejects.toMatchObject({ code: 'ASSET_NOT_FOUND' });
    expect(inputsOf(GetObjectCommand)).toHaveLength(3);
    expect(inputsOf(ListObjectsV2Command)).toEqual([]);
  });

  it('confirms without listing when GetObject finds the upload', async () => {
    await expect(confirmUpload(ORGANIZATION_ID, assetId)).resolves.toMatchObject({ status: 'uploaded' });
    expect(inputsOf(ListObjectsV2Command)).toEqual([]);
  });

  it('fails with the refusal, not as "not uploaded", when GetObject is refused for a key the listing shows', async () => {
    s3.on(GetObjectCommand).callsFake(() => {
      throw forbidden();
    });
    await expect(confirmUpload(ORGANIZATION_ID, assetId)).rejects.toMatchObject({
      name: 'Forbidden',
      $metadata: { httpStatusCode: 403 },
    });
    expect(inputsOf(ListObjectsV2Command)).toHaveLength(1);
    expect(record.status).toBe('pending');
  });

  it('fails with the refusal when the listing itself is refused', async () => {
    upload = undefined;
    s3.on(ListObjectsV2Command).callsFake(() => {
      throw new S3ServiceException({
        name: 'AccessDenied',
        $fault: 'client',
        $metadata: { httpStatusCode: 403 },
        message: 'Access Denied',
      });
    });
    await expect(confirmUpload(ORGANIZATION_ID, assetId)).rejects.toMatchObject({ name: 'AccessDenied' });
  });
});

describe('concurrent confirmations', () => {
  it('both answer the same confirmed asset, and only the one that recorded it removes the upload', async () => {
    const [first, second] = await Promise.all([
      confirmUpload(ORGANIZATION_ID, assetId),
      confirmUpload(ORGANIZATION_ID, assetId),
    ]);

    expect(first).toEqual(second);
    expect(first.status).toBe('uploaded');
    expect(inputsOf(DeleteObjectCommand)).toHaveLength(1);
  });

  it.each([
    ['its copy', CopyObjectCommand],
    ['its read', GetObjectCommand],
  ] as const)(
    'answers the asset the other one confirmed when the upload is gone by %s',
    async (_, command: typeof CopyObjectCommand | typeof GetObjectCommand) => {
      s3.on(command as typeof CopyObjectCommand).callsFakeOnce(() => {
        // The other confirmation records the asset, then deletes the upload.
        record = { ...record, status: 'uploaded', object_key: `assets/${ORGANIZATION_ID}/${assetId}` };
        upload = undefined;
        throw noSuchKey();
      });

      await expect(confirmUpload(ORGANIZATION_ID, assetId)).resolves.toMatchObject({
        assetId,
        status: 'uploaded',
        objectKey: `assets/${ORGANIZATION_ID}/${assetId}`,
      });
      expect(inputsOf(DeleteObjectCommand)).toEqual([]);
    },
  );

  it('answers the asset the other one confirmed when that one recorded it first', async () => {
    s3.on(CopyObjectCommand)
      .callsFakeOnce(() => {
        record = { ...record, status: 'uploaded', object_key: `assets/${ORGANIZATION_ID}/${assetId}` };
        return {};
      })
      .callsFake(S3_FAKES.copyObject);

    await expect(confirmUpload(ORGANIZATION_ID, assetId)).resolves.toMatchObject({ status: 'uploaded' });
    expect(inputsOf(DeleteObjectCommand)).toEqual([]);
  });

  it('answers the 422 of the other one when it found a mismatch', async () => {
    s3.on(CopyObjectCommand)
      .callsFakeOnce(() => {
        record = {
          ...record,
          status: 'failed',
          failure: { code: 'CONTENT_MISMATCH', message: 'Not a video/mp4 file.' },
        };
        return {};
      })
      .callsFake(S3_FAKES.copyObject);

    await expect(confirmUpload(ORGANIZATION_ID, assetId)).rejects.toMatchObject({
      code: 'ASSET_CONTENT_MISMATCH',
      message: 'Not a video/mp4 file.',
    });
  });
});

describe('a copy in parts', () => {
  const SIZE = 3 * COPY_PART_BYTES + 12_345;

  beforeEach(() => pendingAsset(SIZE));

  it('copies every range of the inspected version at once, then completes the parts in order', async () => {
    await expect(confirmUpload(ORGANIZATION_ID, assetId)).resolves.toMatchObject({ status: 'uploaded' });

    expect(inputsOf(CopyObjectCommand)).toEqual([]);
    expect(inputsOf(CreateMultipartUploadCommand)).toEqual([
      { Bucket: 'media-bucket', Key: `assets/${ORGANIZATION_ID}/${assetId}`, ContentType: 'video/mp4' },
    ]);
    const parts = inputsOf(UploadPartCopyCommand);
    expect(
      parts.map(({ PartNumber, CopySourceRange, CopySourceIfMatch, CopySource, UploadId }) => ({
        PartNumber,
        CopySourceRange,
        CopySourceIfMatch,
        CopySource,
        UploadId,
      })),
    ).toEqual(
      planCopyParts(SIZE).map(({ partNumber, firstByte, lastByte }) => ({
        PartNumber: partNumber,
        CopySourceRange: `bytes=${firstByte}-${lastByte}`,
        CopySourceIfMatch: '"v1"',
        CopySource: `media-bucket/${incomingKey}`,
        UploadId: 'upload-1',
      })),
    );
    expect(inputsOf(CompleteMultipartUploadCommand)).toEqual([
      expect.objectContaining({
        UploadId: 'upload-1',
        MultipartUpload: { Parts: [1, 2, 3, 4].map((n) => ({ PartNumber: n, ETag: `"part-${n}"` })) },
      }),
    ]);
    expect(inputsOf(AbortMultipartUploadCommand)).toEqual([]);
  });

  it('aborts the upload once no part is in flight any more when the source was replaced, and verifies again', async () => {
    let partsInFlight = 0;
    const partsInFlightAtAbort: number[] = [];
    const partsLetGo = deferred();
    s3.on(UploadPartCopyCommand).callsFake(async (input: { CopySourceIfMatch?: string; PartNumber?: number }) => {
      if (input.PartNumber === 2 && input.CopySourceIfMatch === '"v1"') {
        upload = { etag: '"v2"', head: MP4_HEAD };
        // The other parts stay in flight until every reaction to this failure has run: an abort that
        // does not wait for them comes while they are.
        setImmediate(partsLetGo.resolve);
        throw preconditionFailed();
      }
      partsInFlight += 1;
      await partsLetGo.promise;
      partsInFlight -= 1;
      return S3_FAKES.uploadPartCopy(input);
    });
    s3.on(AbortMultipartUploadCommand).callsFake(() => {
      partsInFlightAtAbort.push(partsInFlight);
      return {};
    });

    await expect(confirmUpload(ORGANIZATION_ID, assetId)).resolves.toMatchObject({ status: 'uploaded' });
    expect(inputsOf(AbortMultipartUploadCommand)).toEqual([
      { Bucket: 'media-bucket', Key: `assets/${ORGANIZATION_ID}/${assetId}`, UploadId: 'upload-1' },
    ]);
    expect(partsInFlightAtAbort).toEqual([0]);
    expect(inputsOf(CompleteMultipartUploadCommand)).toHaveLength(1);
    expect(inputsOf(GetObjectCommand)).toHaveLength(2);
  });

  it('reports the copy error, not the abort error, when the abort fails too', async () => {
    s3.on(UploadPartCopyCommand).rejects(new Error('network down'));
    s3.on(AbortMultipartUploadCommand).rejects(new Error('abort refused'));

    await expect(confirmUpload(ORGANIZATION_ID, assetId)).rejects.toThrow('network down');
    expect(record.status).toBe('pending');
  });
});

describe('planning a copy in parts', () => {
  it.each([
    [1, [[0, 0]]],
    [COPY_PART_BYTES, [[0, COPY_PART_BYTES - 1]]],
    [
      COPY_PART_BYTES + 1,
      [
        [0, COPY_PART_BYTES - 1],
        [COPY_PART_BYTES, COPY_PART_BYTES],
      ],
    ],
  ])('splits %i bytes into %j', (sizeBytes, ranges) => {
    expect(planCopyParts(sizeBytes).map(({ firstByte, lastByte }) => [firstByte, lastByte])).toEqual(ranges);
  });

  it.each([
    [2 * GiB, 32, COPY_PART_BYTES],
    [5 * GiB, MAX_COPY_PARTS, Math.ceil((5 * GiB) / MAX_COPY_PARTS)],
  ])('copies %i bytes in %i parts of %i bytes', (sizeBytes, count, partBytes) => {
    const parts = planCopyParts(sizeBytes);
    expect(parts).toHaveLength(count);
    expect(parts[0]!.lastByte + 1).toBe(partBytes);
  });

  it('covers every byte once, in order, within S3 part limits and the parts in flight (any size up to 5 GiB)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 * GiB }), (sizeBytes) => {
        const parts = planCopyParts(sizeBytes);
        expect(parts.length).toBeLessThanOrEqual(MAX_COPY_PARTS);
        expect(parts.length === 1).toBe(sizeBytes <= COPY_PART_BYTES);
        expect(parts.map((part) => part.partNumber)).toEqual(parts.map((_, index) => index + 1));
        // Contiguous from the first byte to the last: each part starts where the one before ended.
        expect(parts.map((part) => part.firstByte)).toEqual([
          0,
          ...parts.slice(0, -1).map((part) => part.lastByte + 1),
        ]);
        expect(parts.at(-1)!.lastByte).toBe(sizeBytes - 1);
        const sizes = parts.map((part) => part.lastByte - part.firstByte + 1);
        expect(Math.min(...sizes)).toBeGreaterThanOrEqual(1);
        expect(Math.max(...sizes)).toBeLessThanOrEqual(5 * GiB);
        // Every part but the last is at least S3's smallest part (and our part size).
        expect(Math.min(...sizes.slice(0, -1), Infinity)).toBeGreaterThanOrEqual(Math.max(5 * MiB, COPY_PART_BYTES));
      }),
    );
  });
});
