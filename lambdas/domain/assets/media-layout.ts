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
  /** Where the video provider writes its output, and the finishing step the finished video, until it is copied under assets/. */
  renders: 'renders/',
  /** A split job's clips: video, thumbnail and captions of each, kept like assets. */
  clips: 'clips/',
  /** A job's intermediate files (source analyses, transcripts), expired after WORK_RETENTION_DAYS. */
  work: 'work/',
} as const;
export type MediaPrefix = keyof typeof MEDIA_PREFIXES;

export const incomingObjectKey = (organizationId: number, assetId: string) =>
  `${MEDIA_PREFIXES.incoming}${organizationId}/${assetId}`;
export const storedObjectKey = (organizationId: number, assetId: string) =>
  `${MEDIA_PREFIXES.assets}${organizationId}/${assetId}`;
/**
 * A file of one render of a video job (numbered from 1, in the order of its plan): `output.mp4`
 * names the folder the provider writes into, `keyframe.jpg` the image the render starts from.
 */
export const renderObjectKey = (
  organizationId: number,
  jobId: string,
  renderNumber: number,
  file: 'output.mp4' | 'keyframe.jpg',
) => `${MEDIA_PREFIXES.renders}${organizationId}/${jobId}/${renderNumber}/${file}`;
/** The renders joined, trimmed and framed to the job's request (video-finishing.ts). */
export const finishedRenderObjectKey = (organizationId: number, jobId: string) =>
  `${MEDIA_PREFIXES.renders}${organizationId}/${jobId}/finished.mp4`;

export type ClipFile = 'video' | 'thumbnail' | 'captions';
const CLIP_FILE_NAMES: Readonly<Record<ClipFile, string>> = {
  video: 'clip.mp4',
  thumbnail: 'thumbnail.jpg',
  captions: 'captions.vtt',
};
export const clipObjectKey = (organizationId: number, jobId: string, clipId: string, file: ClipFile) =>
  `${MEDIA_PREFIXES.clips}${organizationId}/${jobId}/${clipId}/${CLIP_FILE_NAMES[file]}`;
export const workObjectKey = (organizationId: number, jobId: string, name: string) =>
  `${MEDIA_PREFIXES.work}${organizationId}/${jobId}/${name}`;

/** Intermediate files outlive the longest job by days, for investigating a failed one. */
export const WORK_RETENTION_DAYS = 7;

/** Unconfirmed uploads are forgotten after two days: the record's TTL, and the bucket's rule under incoming/. */
export const PENDING_ASSET_RETENTION_SECONDS = 2 * 86_400;
