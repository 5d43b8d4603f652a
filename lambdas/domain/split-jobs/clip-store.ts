import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { AnyJob, JobError } from '#domain/jobs/job';
import type { JobClips } from '#domain/jobs/job-clips';
import type { ClipRanking, ScoreBreakdown } from './clip-selection';
import { jobKey } from '#domain/jobs/job-store';
import { deliveredBy } from '#domain/jobs/refunds';
import { dynamo, tableName } from '#platform/clients/dynamodb';
import { TransactionRefused, writeTransaction, type TransactionItem } from '#platform/transactions';

/**
 * The clip item: the one module that knows its keys, attributes and updates. A split job's clips
 * sit in its organization's partition (`CLIP#<job id>#<rank>`), so one Query reads them all in
 * rank order. Not under `JOB#`: that prefix is the job items' own, which the migration scans.
 */

export type ClipStatus = 'pending' | 'processing' | 'completed' | 'failed';

/** Where a completed clip's files are (media-layout.ts); captions only when there are some. */
export interface ClipFiles {
  video: string;
  thumbnail: string;
  captions: string | null;
}

/** How a rendered clip's picture was made (clip-rendering.ts). */
export interface ClipLook {
  framing: 'subject' | 'stacked' | 'fit';
  /** Why it was framed so, in a sentence (people-framing.ts); null for clips rendered before reasons were kept. */
  framingReason: string | null;
  captionsBurnedIn: boolean;
}

export interface Clip {
  clipId: string;
  organizationId: number;
  jobId: string;
  /** 1 for the best score. */
  rank: number;
  status: ClipStatus;
  title: string | null;
  startSeconds: number;
  endSeconds: number;
  score: number;
  /** What the score is made of; null for clips chosen before breakdowns were recorded. */
  breakdown: ScoreBreakdown | null;
  /** Why the clip was chosen, strongest reason first; empty for clips chosen before reasons were recorded. */
  reasons: string[];
  /** The clip's opening line as spoken; null without words, and for clips chosen before hook lines were recorded. */
  hookLine: string | null;
  /** How the job's clips were ranked; null for clips chosen before rankings were recorded. */
  ranking: ClipRanking | null;
  /** Source seconds of the scene cuts inside the clip, where subject framing starts a new shot. */
  sceneCuts: number[];
  files: ClipFiles | null;
  /** The rendered clip's own duration, once completed. */
  renderedSeconds: number | null;
  /** Once completed; null for clips rendered before it was recorded. */
  look: ClipLook | null;
  error: JobError | null;
}

interface ClipItem {
  clip_id: string;
  organization_id: number;
  job_id: string;
  rank: number;
  status: ClipStatus;
  title: string | null;
  start_seconds: number;
  end_seconds: number;
  score: number;
  /** Without `language` when chosen before the language signal existed. */
  breakdown?: Omit<ScoreBreakdown, 'language'> & Partial<Pick<ScoreBreakdown, 'language'>>;
  reasons?: string[];
  hook_line?: string | null;
  ranking?: ClipRanking;
  scene_cuts?: number[];
  files?: ClipFiles;
  rendered_seconds?: number;
  framing?: ClipLook['framing'];
  framing_reason?: string;
  captions_burned_in?: boolean;
  error?: JobError;
  updated_at: string;
}

const rankText = (rank: number) => String(rank).padStart(2, '0');

const clipSortKeyPrefix = (jobId: string) => `CLIP#${jobId}#`;

function clipKey(organizationId: number, jobId: string, rank: number) {
  return { pk: jobKey(organizationId, jobId).pk, sk: `${clipSortKeyPrefix(jobId)}${rankText(rank)}` };
}

/** `clip_<the job id's unique part>_<rank>`: stable, so a retried choice writes the same clips. */
export function clipIdOf(jobId: string, rank: number): string {
  return `clip_${jobId.replace(/^split_job_/, '')}_${rankText(rank)}`;
}

function rankOf(clipId: string): number {
  return Number(clipId.slice(clipId.lastIndexOf('_') + 1));
}

function fromItem(item: ClipItem): Clip {
  return {
    clipId: item.clip_id,
    organizationId: item.organization_id,
    jobId: item.job_id,
    rank: item.rank,
    status: item.status,
    title: item.title,
    startSeconds: item.start_seconds,
    endSeconds: item.end_seconds,
    score: item.score,
    // Breakdowns recorded before the language signal existed weigh it 0.
    breakdown: item.breakdown
      ? { ...item.breakdown, language: item.breakdown.language ?? { value: 0, weight: 0 } }
      : null,
    reasons: item.reasons ?? [],
    hookLine: item.hook_line ?? null,
    ranking: item.ranking ?? null,
    sceneCuts: item.scene_cuts ?? [],
    files: item.files ?? null,
    renderedSeconds: item.rendered_seconds ?? null,
    look:
      item.framing === undefined
        ? null
        : {
            framing: item.framing,
            framingReason: item.framing_reason ?? null,
            captionsBurnedIn: item.captions_burned_in === true,
          },
    error: item.error ?? null,
  };
}

export interface ChosenClipRecord {
  title: string | null;
  startSeconds: number;
  endSeconds: number;
  score: number;
  breakdown: ScoreBreakdown;
  reasons: string[];
  hookLine: string | null;
  ranking: ClipRanking;
  sceneCuts: number[];
}

/**
 * Writes the chosen clips, ranked in the order given, as pending, while the job is processing.
 * A retried step finds them written and answers the clips as they are; a job no longer
 * processing (cancelled or expired meanwhile) gets none, and the answer is undefined.
 */
export async function putChosenClips(
  organizationId: number,
  jobId: string,
  chosen: readonly ChosenClipRecord[],
  now = new Date(),
): Promise<Clip[] | undefined> {
  const items: Record<string, TransactionItem> = {
    job: {
      ConditionCheck: {
        TableName: tableName(),
        Key: jobKey(organizationId, jobId),
        ConditionExpression: '#status = :processing',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':processing': 'processing' },
      },
    },
  };
  chosen.forEach((clip, index) => {
    const rank = index + 1;
    const item: ClipItem = {
      clip_id: clipIdOf(jobId, rank),
      organization_id: organizationId,
      job_id: jobId,
      rank,
      status: 'pending',
      title: clip.title,
      start_seconds: clip.startSeconds,
      end_seconds: clip.endSeconds,
      score: clip.score,
      breakdown: clip.breakdown,
      reasons: clip.reasons,
      hook_line: clip.hookLine,
      ranking: clip.ranking,
      scene_cuts: clip.sceneCuts,
      updated_at: now.toISOString(),
    };
    items[`clip:${rank}`] = {
      Put: {
        TableName: tableName(),
        Item: { ...clipKey(organizationId, jobId, rank), ...item },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    };
  });
  try {
    await writeTransaction(items);
  } catch (error) {
    if (!(error instanceof TransactionRefused)) throw error;
    if (error.failed('job')) return undefined;
    const written = await findClips(organizationId, jobId);
    if (written.length === 0) throw error;
    return written;
  }
  return findClips(organizationId, jobId);
}

/** Every clip of the job, in rank order, read consistently. */
export async function findClips(organizationId: number, jobId: string): Promise<Clip[]> {
  const clips: Clip[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await dynamo().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': jobKey(organizationId, jobId).pk, ':prefix': clipSortKeyPrefix(jobId) },
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      }),
    );
    clips.push(...((page.Items ?? []) as ClipItem[]).map(fromItem));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return clips;
}

/** A job's clips as findClips reads them; a video job has none. */
async function findClipsOfJob(job: Pick<AnyJob, 'organizationId' | 'jobId' | 'type'>): Promise<Clip[]> {
  return job.type === 'split' ? findClips(job.organizationId, job.jobId) : [];
}

export async function findClip(organizationId: number, jobId: string, clipId: string): Promise<Clip | undefined> {
  const { Item } = await dynamo().send(
    new GetCommand({
      TableName: tableName(),
      Key: clipKey(organizationId, jobId, rankOf(clipId)),
      ConsistentRead: true,
    }),
  );
  return Item ? fromItem(Item as ClipItem) : undefined;
}

/** Sets the clip's fields if it is in one of `from`; answers whether it was. */
async function updateClip(
  clip: Pick<Clip, 'organizationId' | 'jobId' | 'clipId'>,
  from: readonly ClipStatus[],
  set: Record<string, unknown>,
  now: Date,
): Promise<boolean> {
  const fields = { ...set, updated_at: now.toISOString() };
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: clipKey(clip.organizationId, clip.jobId, rankOf(clip.clipId)),
        UpdateExpression: `SET ${Object.keys(fields)
          .map((name) => `#${name} = :${name}`)
          .join(', ')}`,
        ConditionExpression: `#status IN (${from.map((_, index) => `:from${index}`).join(', ')})`,
        ExpressionAttributeNames: {
          '#status': 'status',
          ...Object.fromEntries(Object.keys(fields).map((name) => [`#${name}`, name])),
        },
        ExpressionAttributeValues: {
          ...Object.fromEntries(Object.entries(fields).map(([name, value]) => [`:${name}`, value])),
          ...Object.fromEntries(from.map((status, index) => [`:from${index}`, status])),
        },
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

/** pending → processing; a retried render (already processing) goes on. Answers false for an ended clip. */
export function markClipProcessing(clip: Clip, now = new Date()): Promise<boolean> {
  return updateClip(clip, ['pending', 'processing'], { status: 'processing' }, now);
}

export function markClipCompleted(
  clip: Clip,
  files: ClipFiles,
  rendered: ClipLook & { seconds: number },
  now = new Date(),
) {
  return updateClip(
    clip,
    ['pending', 'processing'],
    {
      status: 'completed',
      files,
      rendered_seconds: rendered.seconds,
      framing: rendered.framing,
      ...(rendered.framingReason === null ? {} : { framing_reason: rendered.framingReason }),
      captions_burned_in: rendered.captionsBurnedIn,
    },
    now,
  );
}

/** Any clip not yet ended becomes failed with the error; an ended one is left as it is. */
export function markClipFailed(
  clip: Pick<Clip, 'organizationId' | 'jobId' | 'clipId'>,
  error: JobError,
  now = new Date(),
) {
  return updateClip(clip, ['pending', 'processing'], { status: 'failed', error }, now);
}

/**
 * Fails each of the clips that was not ended when read, as their job ends: a render finishing
 * later then cannot complete a clip whose price was refunded (markClipCompleted refuses it).
 */
export async function failUnfinishedClips(clips: readonly Clip[], error: JobError, now = new Date()): Promise<void> {
  for (const clip of clips) {
    if (clip.status === 'pending' || clip.status === 'processing') await markClipFailed(clip, error, now);
  }
}

/**
 * The job core's port to the clips of a job it ends without its work having finished it
 * (jobs/job-clips.ts): a split job's, read from this store, none of a video job.
 */
export const JOB_CLIPS: JobClips = {
  async read(job) {
    const clips = await findClipsOfJob(job);
    return {
      delivered: deliveredBy(clips),
      failUnfinished: (error, now) => failUnfinishedClips(clips, error, now),
    };
  },
};
