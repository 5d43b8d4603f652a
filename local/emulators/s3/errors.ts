/** An S3 error response: its HTTP status and the `Code` and `Message` of its XML body. */
export class S3Error extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Headers S3 sends with this error (`Content-Range` of a 416). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'S3Error';
  }
}

export const noSuchKey = () => new S3Error(404, 'NoSuchKey', 'The specified key does not exist.');
export const noSuchBucket = () => new S3Error(404, 'NoSuchBucket', 'The specified bucket does not exist');
export const noSuchUpload = () =>
  new S3Error(
    404,
    'NoSuchUpload',
    'The specified upload does not exist. The upload ID may be invalid, or the upload may have been aborted or completed.',
  );
export const preconditionFailed = () =>
  new S3Error(412, 'PreconditionFailed', 'At least one of the pre-conditions you specified did not hold');
