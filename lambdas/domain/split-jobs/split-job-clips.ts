import type {
  Clip as ClipShape,
  ClipsResponse,
  Operations,
  ScoreBreakdown as ScoreBreakdownShape,
  SplitJobResult,
} from '#contract/types';
import { presignFileDownload } from '#domain/assets/media';
import { isActive, type JobOf } from '#domain/jobs/job';
import { getCompletedJobOfType, getJobOfType } from '#domain/jobs/jobs';
import type { ScoreBreakdown } from './clip-selection';
import { findClips, type Clip } from './clip-store';

const seconds = (value: number) => Math.round(value * 1000) / 1000;

function presentBreakdown(breakdown: ScoreBreakdown): ScoreBreakdownShape {
  const { lengthFit, ...named } = breakdown;
  return { ...named, length_fit: lengthFit };
}

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
    score_breakdown: clip.breakdown && presentBreakdown(clip.breakdown),
    reasons: clip.reasons,
    hook_line: clip.hookLine,
    ranking: clip.ranking && {
      source: clip.ranking.source,
      language_model: clip.ranking.languageModel,
      fallback_reason: clip.ranking.fallbackReason,
    },
    download_url: null,
    thumbnail_url: null,
    captions_url: null,
    framing: null,
    framing_reason: null,
    captions_burned_in: null,
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
    framing: clip.look?.framing ?? null,
    framing_reason: clip.look?.framingReason ?? null,
    captions_burned_in: clip.look?.captionsBurnedIn ?? null,
    expires_at: video.expiresAt,
  };
}

type ClipsQuery = Operations['getSplitJobClips']['query'];

const byStartTime = (a: Clip, b: Clip) => a.startSeconds - b.startSeconds || a.rank - b.rank;

/** GET /split-jobs/{id}/clips: every clip chosen so far, by rank or by start time, in any job status. */
export async function getSplitJobClips(
  organizationId: number,
  jobId: string,
  { order }: ClipsQuery,
): Promise<ClipsResponse> {
  // The clips are read beside the job, not after it: they live under the organization's key, so
  // another organization's job id finds none, and its job read answers 404 all the same.
  const [job, ranked] = await Promise.all([
    getJobOfType(organizationId, jobId, 'split'),
    findClips(organizationId, jobId),
  ]);
  const clips = order === 'time' ? ranked.sort(byStartTime) : ranked;
  const now = new Date();
  return { job_id: job.jobId, clips: await Promise.all(clips.map((clip) => presentClip(clip, job, now))) };
}

/** GET /split-jobs/{id}/result: a completed job's completed clips; 409 while it runs or when it did not complete. */
export async function getSplitJobResult(organizationId: number, jobId: string): Promise<SplitJobResult> {
  const [job, clips] = await Promise.all([
    getCompletedJobOfType(organizationId, jobId, 'split'),
    findClips(organizationId, jobId),
  ]);
  const now = new Date();
  const completed = clips.filter((clip) => clip.status === 'completed');
  return {
    job_id: job.jobId,
    status: job.status,
    clips_count: completed.length,
    clips: await Promise.all(completed.map((clip) => presentClip(clip, job, now))),
  };
}
