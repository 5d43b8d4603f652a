import type { Clip as ClipShape, SplitJob } from '#contract/types';
import { presignFileDownload } from '#domain/assets/media';
import { isActive, type JobOf } from '#domain/jobs/job';
import { presentJobFields, resultAvailability } from '#domain/jobs/presentation';
import type { Clip } from './clip-store';

/** The SplitJob object of the API: flags for the result, never a download URL. */
export function presentSplitJob(job: JobOf<'split'>): SplitJob {
  const result = resultAvailability(job);
  return {
    ...presentJobFields(job),
    type: 'split',
    input: job.input,
    result: { ...result, clips_available: result.available },
  };
}

const seconds = (value: number) => Math.round(value * 1000) / 1000;

/**
 * One clip as the API shows it: signed URLs only for a completed clip. A clip its job left
 * unfinished (the job ended while it was pending or rendering) is shown failed, since it never
 * will finish.
 */
export async function presentClip(
  clip: Clip,
  job: Pick<JobOf<'split'>, 'status'>,
  now = new Date(),
): Promise<ClipShape> {
  const status = !isActive(job) && (clip.status === 'pending' || clip.status === 'processing') ? 'failed' : clip.status;
  const shape: ClipShape = {
    id: clip.clipId,
    status,
    title: clip.title,
    start_time_seconds: seconds(clip.startSeconds),
    end_time_seconds: seconds(clip.endSeconds),
    duration_seconds: seconds(clip.endSeconds - clip.startSeconds),
    score: clip.score,
    download_url: null,
    thumbnail_url: null,
    captions_url: null,
    expires_at: null,
  };
  if (status !== 'completed' || !clip.files) return shape;
  const { files } = clip;
  const [video, thumbnail, captions] = await Promise.all([
    presignFileDownload({ objectKey: files.video, filename: `${clip.clipId}.mp4`, contentType: 'video/mp4' }, now),
    presignFileDownload({ objectKey: files.thumbnail, filename: `${clip.clipId}.jpg`, contentType: 'image/jpeg' }, now),
    files.captions
      ? presignFileDownload({ objectKey: files.captions, filename: `${clip.clipId}.vtt`, contentType: 'text/vtt' }, now)
      : undefined,
  ]);
  return {
    ...shape,
    download_url: video.url,
    thumbnail_url: thumbnail.url,
    captions_url: captions?.url ?? null,
    expires_at: video.expiresAt,
  };
}
