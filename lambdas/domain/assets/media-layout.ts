/**
 * Where each kind of object lives in the media bucket, and for how long: read by the functions
 * and by the CDK app, which grants and expires objects by prefix.
 */

/** Key prefixes of the media bucket; the CDK app grants and expires objects by them. */
export const MEDIA_PREFIXES = {
  /** Uploads until confirmed. */
  incoming: 'incoming/',
  /** Confirmed uploads and generated files (finished videos). */
  assets: 'assets/',
  /** Where the video provider writes its output, until it is copied under assets/. */
  renders: 'renders/',
} as const;
export type MediaPrefix = keyof typeof MEDIA_PREFIXES;

export const incomingObjectKey = (organizationId: number, assetId: string) =>
  `${MEDIA_PREFIXES.incoming}${organizationId}/${assetId}`;
export const storedObjectKey = (organizationId: number, assetId: string) =>
  `${MEDIA_PREFIXES.assets}${organizationId}/${assetId}`;
export const renderObjectKey = (organizationId: number, jobId: string) =>
  `${MEDIA_PREFIXES.renders}${organizationId}/${jobId}/output.mp4`;

/** Unconfirmed uploads are forgotten after two days: the record's TTL, and the bucket's rule under incoming/. */
export const PENDING_ASSET_RETENTION_SECONDS = 2 * 86_400;
