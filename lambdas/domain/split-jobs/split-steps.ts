import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findAsset } from '#domain/assets/asset-store';
import { discardObjects, getJson, presignMediaToolRead, putFile, putJson } from '#domain/assets/media';
import { clipObjectKey, workObjectKey } from '#domain/assets/media-layout';
import { isActive, type JobError, type JobOf } from '#domain/jobs/job';
import { executionInputOf, type JobExecutionInput } from '#domain/jobs/job-execution';
import { JOB_ERRORS } from '#domain/jobs/job-errors';
import { advanceProgress, enterWorkStage, findJob } from '#domain/jobs/job-store';
import { finishJob, startJobWork } from '#domain/jobs/lifecycle';
import { isJobStillActive, whileJobActive } from '#domain/jobs/job-watch';
import { deliveredBy } from '#domain/jobs/refunds';
import { mediaBucket } from '#platform/clients/s3';
import { log } from '#platform/log';
import {
  describeCaughtFailure,
  retryableOnTransientFailure,
  TransientFailure,
  type CaughtFailure,
} from '#platform/task-failures';
import { coreShare, mediaToolPath } from '#platform/media-tools';
import { captionFontFiles } from '#platform/caption-fonts';
import { analyseSegment, analysisSegments, mergeSegmentAnalyses } from './analysis';
import { assCaptions } from './burnt-in-captions';
import { clipCaptionCues, webVttCaptions } from './captions';
import { chooseClips, CLIP_LENGTHS, clipLengthsOf, type ClipChoiceOptions, type SpokenContent } from './clip-selection';
import { renderClip, type RenderedClip } from './clip-rendering';
import {
  failUnfinishedClips,
  findClip,
  findClips,
  markClipCompleted,
  markClipFailed,
  markClipProcessing,
  putChosenClips,
  type Clip,
  type ClipFiles,
  type ClipStatus,
} from './clip-store';
import { probedSource } from './split-source';
import {
  clipFraming,
  findSegmentPeople,
  type SegmentPeople,
  SUBJECT_FRAMES_FILE_NAME,
  subjectFramesToSample,
  type SubjectFrameSize,
} from './subject-frames';
import { completedJobRefund } from './split-pricing';
import { ANALYSIS_WINDOW_SECONDS, type SegmentAnalysis, type TimeRange } from './source-analysis';
import type { LanguageModel } from './language/port';
import { transcriptSentences } from './sentences';
import type { Transcript, TranscriptionProvider } from './transcription/port';

/**
 * The steps of the split job state machine (state-machines/split-job.asl.json), one per worker:
 * prepare (start the job, probe the source, plan the analysis), start a transcription, analyse
 * each time segment (a Map), wait for the transcript, choose the clips, render each clip (a Map,
 * a Catch per clip), finish. Large intermediate results go to work/ in the media bucket; the
 * execution's state carries only what routes it.
 */

/**
 * The longest time range one analysis invocation decodes. Short enough that a 10-minute source is
 * decoded by two invocations side by side, which takes a fifth less time than one decoder's
 * threads on the same cores, and at AnalyseSource's 10 at a time no source up to 3 hours waits
 * longer than with 20-minute segments (four rounds of 5 minutes against one of 20); long enough
 * that seams, where a cut can go unseen, stay rare.
 */
export const ANALYSIS_SEGMENT_SECONDS = 5 * 60;
/** A source whose picture decodes for less than this holds nothing to cut: SOURCE_UNREADABLE, refunded. */
export const MIN_DECODED_SECONDS = 1;
/** Each analysis and render step kills its ffmpeg in time to record the failure before Lambda's timeout. */
export const ANALYSIS_TIMEOUT_MS = 13 * 60_000;
export const RENDER_TIMEOUT_MS = 8 * 60_000;
/**
 * Transcription is polled this often (unless its provider says otherwise), and given up (clips
 * then have no captions or titles) after the deadline.
 */
export const TRANSCRIPTION_POLL_SECONDS = 15;
export const TRANSCRIPTION_DEADLINE_SECONDS = 60 * 60;

/** Where each part of the work begins on the progress bar: analysing, rendering (after choosing); finishing brings it to 100. */
const PROGRESS = { prepared: 2, analysis: 38, chosen: 45, rendering: 54 } as const;
/** Progress writes during an analysis are at least this far apart. */
const PROGRESS_INTERVAL_MS = 3000;

export interface SplitSource {
  /** Internal, like everything in the execution's state: where the source's bytes are. */
  object_key: string;
  duration_seconds: number;
  width: number;
  height: number;
  has_audio: boolean;
  /** The size the analysis samples frames at for subject framing; absent when no clip can follow a subject. */
  subject_frames?: SubjectFrameSize;
}

export interface AnalysisSegment {
  index: number;
  start_seconds: number;
  end_seconds: number;
}

/**
 * Where the transcript stands: `pending` from Prepare until StartTranscription starts it, then
 * followed to `completed`, or `none` (no sound, no provider, or given up on: the state machine
 * writes `none` itself when starting or following it failed past its retries).
 */
export type TranscriptionState =
  | { state: 'pending' | 'completed' | 'none' }
  | {
      state: 'in_progress';
      transcription_id: string;
      poll_seconds: number;
      /** Unix milliseconds after which a transcription still running is given up. */
      deadline_at: number;
    };

/** Prepare's answer when the work can start: what the analysis, the wait for the transcript and the choice read. */
export interface SplitReady extends JobExecutionInput {
  outcome: 'ready';
  source: SplitSource;
  segments: AnalysisSegment[];
  transcription: TranscriptionState;
}

/** Prepare's, ChooseClips' or the finish's answer when the job has already ended: nothing is left to do. */
export interface SplitFinished extends JobExecutionInput {
  outcome: 'finished';
}

/** Prepare's answer when the source is gone or cannot be probed: the finish fails the job with `error`. */
export interface SplitFailed extends JobExecutionInput {
  outcome: 'failed';
  error: JobError;
}

/**
 * The source holds nothing to cut: ChooseClips' answer when less than MIN_DECODED_SECONDS of it
 * decodes, or what the state machine's SourceUnreadable writes when the analysis's ffmpeg cannot
 * decode it at all.
 */
export interface SplitUnreadable extends JobExecutionInput {
  outcome: 'unreadable';
}

/** ChooseClips' answer: the clips written as pending, each rendered by one Map item, then the finish. */
export interface SplitChosen extends JobExecutionInput {
  outcome: 'chosen';
  source: SplitSource;
  clips: { clip_id: string }[];
  /** How many clips render: each one's share of the progress bar. */
  clip_count: number;
  /** Whether the clips get captions: a transcript was made. */
  has_transcript: boolean;
  /** How long the source really is, as its analysis decoded it: the finish prices the job by it. */
  decoded_seconds: number;
}

/** What the state machine's FinishCrashed hands the finish when a step failed past its retries. */
export interface SplitCrashed extends JobExecutionInput {
  outcome: 'crashed';
}

/** The finish's answer: how it ended the job. */
export interface SplitEnded extends JobExecutionInput {
  outcome: 'completed' | 'failed';
}

/** What reaches the finish (FinishJob or FinishCrashed): every way the work on a job can stop. */
export type SplitEnding = SplitChosen | SplitFailed | SplitUnreadable | SplitCrashed;

/**
 * Every state an execution of the split job state machine carries from one state to the next, one
 * shape per outcome: the Choice states route on the outcome, and it says which fields come with
 * it, so a step answers only what its outcome carries and a reader narrows by it. The workflow's
 * entry in lambdas/workflows.ts lists the outcomes, and refuses an ASL file that compares
 * `$.outcome` to any other value.
 */
export type SplitState =
  SplitReady | SplitFinished | SplitFailed | SplitUnreadable | SplitChosen | SplitCrashed | SplitEnded;

/** What each analysis invocation gets: one Map item. */
export interface SegmentTask extends JobExecutionInput {
  segment: AnalysisSegment;
  source: SplitSource;
}

/** What each render invocation gets: one Map item. */
export interface ClipTask extends JobExecutionInput {
  clip_id: string;
  clip_count: number;
  source: SplitSource;
  has_transcript: boolean;
}

export const SPLIT_ERRORS = {
  sourceUnavailable: { code: 'SOURCE_UNAVAILABLE', message: 'The source video is no longer available.' },
  sourceUnreadable: {
    code: 'SOURCE_UNREADABLE',
    message: 'The source video could not be decoded; the job failed and its credits were refunded.',
  },
  clipRenderFailed: { code: 'CLIP_RENDER_FAILED', message: 'This clip could not be rendered.' },
  noClipRendered: {
    code: 'NO_CLIP_RENDERED',
    message: 'No clip could be rendered; the job failed and its credits were refunded.',
  },
} as const satisfies Record<string, JobError>;

const analysisKey = (state: JobExecutionInput, index: number) =>
  workObjectKey(state.organization_id, state.job_id, `analysis-${index}.json`);
const transcriptOutputKey = (state: JobExecutionInput) =>
  workObjectKey(state.organization_id, state.job_id, 'transcribe-output.json');
/** The people found in a segment's sampled frames (subject-frames.ts). */
const segmentPeopleKey = (state: JobExecutionInput, index: number) =>
  workObjectKey(state.organization_id, state.job_id, `people-${index}.json`);
const transcriptKey = (state: JobExecutionInput) =>
  workObjectKey(state.organization_id, state.job_id, 'transcript.json');

async function splitJob(state: JobExecutionInput): Promise<JobOf<'split'> | undefined> {
  const job = await findJob(state.organization_id, state.job_id);
  if (job && job.type !== 'split') throw new Error(`Job ${job.jobId} is a ${job.type} job, not a split job`);
  return job;
}

/** Prepare: queued → processing, the source probed (once per asset), the analysis planned. */
export async function prepareSplit(state: JobExecutionInput): Promise<SplitReady | SplitFailed | SplitFinished> {
  const job = await startJobWork(state.organization_id, state.job_id, 'split');
  if (!job) return { ...executionInputOf(state), outcome: 'finished' };
  const asset = await findAsset(job.organizationId, job.input.source_asset_id);
  if (!asset || asset.status !== 'uploaded') {
    return { ...executionInputOf(state), outcome: 'failed', error: SPLIT_ERRORS.sourceUnavailable };
  }
  const probe = await probedSource(asset).catch((error: unknown) => {
    // A source that could not be reached is probed again by the state machine's retry.
    if (error instanceof TransientFailure) throw error;
    log('warn', 'The split source could not be probed', { job_id: job.jobId, error });
    return undefined;
  });
  if (!probe) return { ...executionInputOf(state), outcome: 'failed', error: SPLIT_ERRORS.sourceUnreadable };
  await enterWorkStage(job.organizationId, job.jobId, 'analysing', PROGRESS.prepared);
  const subjectFrames = subjectFramesToSample(job.input, probe);
  return {
    ...executionInputOf(state),
    outcome: 'ready',
    source: {
      object_key: asset.objectKey,
      duration_seconds: probe.durationSeconds,
      width: probe.width,
      height: probe.height,
      has_audio: probe.hasAudio,
      ...(subjectFrames ? { subject_frames: subjectFrames } : {}),
    },
    segments: analysisSegments(probe.durationSeconds, ANALYSIS_SEGMENT_SECONDS).map((range, index) => ({
      index,
      start_seconds: range.startSeconds,
      end_seconds: range.endSeconds,
    })),
    transcription: { state: probe.hasAudio ? 'pending' : 'none' },
  };
}

/**
 * StartTranscription: the source's speech sent to the transcription provider, beside the analysis.
 * A provider at its quota throws ProviderBusy, which the state machine retries; when it gives up,
 * or the provider refuses the request, the job goes on without a transcript.
 */
export async function startSplitTranscription(
  transcription: TranscriptionProvider,
  state: SplitReady,
  now = Date.now(),
): Promise<SplitReady> {
  if (state.transcription.state !== 'pending') return state;
  const job = await splitJob(state);
  const asset = job && (await findAsset(job.organizationId, job.input.source_asset_id));
  if (!job || !asset) return { ...state, transcription: { state: 'none' } };
  const started = await transcription.start({
    jobId: job.jobId,
    source: { bucket: mediaBucket(), key: asset.objectKey, contentType: asset.contentType },
    language: job.input.language,
    output: { bucket: mediaBucket(), key: transcriptOutputKey(state) },
    stillWanted: () => isJobStillActive(job.organizationId, job.jobId),
  });
  if (started.state !== 'started') return { ...state, transcription: { state: 'none' } };
  return {
    ...state,
    transcription: {
      state: 'in_progress',
      transcription_id: started.transcriptionId,
      poll_seconds: transcription.pollSeconds ?? TRANSCRIPTION_POLL_SECONDS,
      deadline_at: now + TRANSCRIPTION_DEADLINE_SECONDS * 1000,
    },
  };
}

/**
 * One time segment of the source, analysed in one ffmpeg pass and kept under work/. Its share of
 * the progress bar is its share of the source. A source ffmpeg cannot decode throws
 * MediaToolError, which the state machine turns into a failed job; a read or a write cut short
 * throws TransientFailure, which it retries.
 */
export async function analyseSourceSegment(task: SegmentTask): Promise<{ index: number }> {
  const range: TimeRange = { startSeconds: task.segment.start_seconds, endSeconds: task.segment.end_seconds };
  const pointsPerSecond = PROGRESS.analysis / task.source.duration_seconds;
  let reportedSeconds = 0;
  let reportedAt = Date.now();
  let pending = Promise.resolve();
  const frameSize = task.source.subject_frames;
  const directory = frameSize ? await mkdtemp(join(tmpdir(), 'subject-frames-')) : undefined;
  const subjectFrames =
    frameSize && directory ? { path: join(directory, SUBJECT_FRAMES_FILE_NAME), ...frameSize } : undefined;
  try {
    const input = await presignMediaToolRead(task.source.object_key);
    const analysis = await whileJobActive(task.organization_id, task.job_id, (signal) =>
      analyseSegment({
        signal,
        ffmpegPath: mediaToolPath('ffmpeg'),
        input,
        // Taken now: by the time a step gets here, the Map has started the steps beside it.
        threads: coreShare(),
        range,
        hasAudio: task.source.has_audio,
        timeoutMs: ANALYSIS_TIMEOUT_MS,
        subjectFrames,
        onProgress: (analysedSeconds) => {
          if (Date.now() - reportedAt < PROGRESS_INTERVAL_MS) return;
          const points = (analysedSeconds - reportedSeconds) * pointsPerSecond;
          reportedSeconds = analysedSeconds;
          reportedAt = Date.now();
          pending = pending.then(() => advanceProgress(task.organization_id, task.job_id, points)).catch(() => {});
        },
      }),
    );
    await pending;
    await advanceProgress(
      task.organization_id,
      task.job_id,
      (range.endSeconds - range.startSeconds - reportedSeconds) * pointsPerSecond,
    );
    // The people are found after the analysis: ffmpeg and the detector would share the same cores.
    const people =
      subjectFrames &&
      (await whileJobActive(task.organization_id, task.job_id, (signal) =>
        findSegmentPeople(subjectFrames.path, subjectFrames, signal),
      ));
    await retryableOnTransientFailure(`Storing the analysis of segment ${task.segment.index}`, async () => {
      if (people) await putJson(segmentPeopleKey(task, task.segment.index), people);
      await putJson(analysisKey(task, task.segment.index), analysis);
    });
    return { index: task.segment.index };
  } finally {
    if (directory) await rm(directory, { recursive: true, force: true });
  }
}

/** Waits on the transcription: its words kept under work/ when done; given up on failure or past the deadline. */
export async function pollTranscription(
  transcription: TranscriptionProvider,
  state: SplitReady,
  now = Date.now(),
): Promise<SplitReady> {
  const current = state.transcription;
  if (current.state !== 'in_progress') return state;
  const status = await transcription.poll(current.transcription_id);
  if (status.state === 'completed') {
    await retryableOnTransientFailure('Storing the transcript', () => putJson(transcriptKey(state), status.transcript));
    return { ...state, transcription: { state: 'completed' } };
  }
  if (status.state === 'failed' || now >= current.deadline_at) {
    log('warn', 'Transcription gave no transcript; the clips will have no captions or titles', {
      job_id: state.job_id,
      reason: status.state === 'failed' ? status.message : 'deadline passed',
    });
    return { ...state, transcription: { state: 'none' } };
  }
  return state;
}

async function transcriptOf(state: JobExecutionInput, hasTranscript: boolean): Promise<Transcript | null> {
  return hasTranscript ? getJson<Transcript>(transcriptKey(state)) : null;
}

/** The most ranges the language step is asked for: room to choose the job's clips among them. */
export const MAX_CLIP_IDEAS = 30;
/** How long the language step may take before the clips are ranked without it. */
export const LANGUAGE_STEP_SECONDS = 60;

/**
 * What was said in the source: its sentences, and the ranges the language model proposed from
 * them. Whatever the model answers, or fails to, the clips are chosen, and say how they were ranked.
 */
async function spokenContent(
  language: LanguageModel,
  state: SplitReady,
  transcript: Transcript | null,
  analysis: Parameters<typeof clipLengthsOf>[0],
  options: ClipChoiceOptions & { language: string | null },
): Promise<SpokenContent | null> {
  if (!transcript) return null;
  const sentences = transcriptSentences(transcript);
  if (sentences.length === 0) return { sentences, language: null };
  // The adapter logs what it used or why it failed (bedrock.ts); the clips keep the outcome in `ranking`.
  const answer = await language.proposeClips({
    jobId: state.job_id,
    sentences,
    language: options.language ?? transcript.language,
    clipStyle: options.clipStyle,
    lengths: CLIP_LENGTHS[clipLengthsOf(analysis, options)],
    maxIdeas: Math.min(MAX_CLIP_IDEAS, options.maxClips * 3),
    signal: AbortSignal.timeout(LANGUAGE_STEP_SECONDS * 1000),
  });
  return { sentences, language: { modelId: language.modelId, answer } };
}

/** Choose: the analyses merged, the language step asked, the clips chosen and written as pending, one render task each. */
export async function chooseSplitClips(
  language: LanguageModel,
  state: SplitReady,
): Promise<SplitChosen | SplitUnreadable | SplitFinished> {
  const job = await splitJob(state);
  if (!job || !isActive(job)) return { ...executionInputOf(state), outcome: 'finished' };
  const segments = await Promise.all(
    state.segments.map((segment) => getJson<SegmentAnalysis>(analysisKey(state, segment.index))),
  );
  const analysis = mergeSegmentAnalyses(segments);
  const claimedSeconds = state.source.duration_seconds;
  if (analysis.durationSeconds < MIN_DECODED_SECONDS) {
    log('warn', 'The split source decodes to nothing', { claimed_seconds: claimedSeconds });
    return { ...executionInputOf(state), outcome: 'unreadable' };
  }
  if (analysis.durationSeconds < claimedSeconds - ANALYSIS_WINDOW_SECONDS) {
    log('warn', 'The split source decodes shorter than its header says', {
      claimed_seconds: claimedSeconds,
      decoded_seconds: analysis.durationSeconds,
    });
  }
  const transcript = await transcriptOf(state, state.transcription.state === 'completed');
  const options: ClipChoiceOptions = {
    preset: job.input.clip_length_preset,
    clipStyle: job.input.clip_style,
    platforms: job.input.target_platforms,
    maxClips: job.input.max_clips,
  };
  const spoken = await spokenContent(language, state, transcript, analysis, {
    ...options,
    language: job.input.language ?? null,
  });
  const { clips } = chooseClips(analysis, spoken, options);
  const written = await putChosenClips(
    job.organizationId,
    job.jobId,
    clips.map((clip) => ({
      ...clip,
      sceneCuts: analysis.sceneCuts.filter((cut) => cut > clip.startSeconds && cut < clip.endSeconds),
    })),
  );
  if (!written) return { ...executionInputOf(state), outcome: 'finished' };
  await enterWorkStage(job.organizationId, job.jobId, 'rendering', PROGRESS.chosen);
  return {
    ...executionInputOf(state),
    outcome: 'chosen',
    source: state.source,
    clips: written.map((clip) => ({ clip_id: clip.clipId })),
    clip_count: written.length,
    has_transcript: transcript !== null,
    decoded_seconds: analysis.durationSeconds,
  };
}

/**
 * Render one clip: cut and framed from the source, its thumbnail and (with a transcript) its
 * captions, drawn into the picture when the job asked for it and always as WebVTT, uploaded under
 * clips/, then the clip marked completed. A clip ffmpeg cannot render throws; the Map's Catch
 * marks it failed and the other clips go on.
 */
export async function renderSplitClip(task: ClipTask, now = new Date()): Promise<{ clip_id: string; status: string }> {
  const [job, clip] = await Promise.all([splitJob(task), findClip(task.organization_id, task.job_id, task.clip_id)]);
  if (!job || !clip) throw new Error(`Clip ${task.clip_id} of job ${task.job_id} does not exist`);
  if (!isActive(job) || !(await markClipProcessing(clip, now))) return { clip_id: clip.clipId, status: clip.status };
  const directory = await mkdtemp(join(tmpdir(), 'clip-'));
  try {
    const range = { startSeconds: clip.startSeconds, endSeconds: clip.endSeconds };
    const [framing, transcript] = await Promise.all([
      clipFraming({
        framing: job.input.framing,
        aspectRatio: job.input.aspect_ratio,
        source: task.source,
        segments: analysisSegments(task.source.duration_seconds, ANALYSIS_SEGMENT_SECONDS),
        clip: range,
        sceneCuts: clip.sceneCuts,
        peopleOf: (index) => getJson<SegmentPeople>(segmentPeopleKey(task, index)),
      }),
      transcriptOf(task, task.has_transcript),
    ]);
    const cues = clipCaptionCues(transcript, range, job.input.caption_style);
    const input = await presignMediaToolRead(task.source.object_key);
    const rendered = await whileJobActive(task.organization_id, task.job_id, (signal) =>
      renderClip({
        signal,
        ffmpegPath: mediaToolPath('ffmpeg'),
        input,
        threads: coreShare(),
        range,
        aspectRatio: job.input.aspect_ratio,
        source: { width: task.source.width, height: task.source.height, hasAudio: task.source.has_audio },
        framing,
        outputDirectory: directory,
        timeoutMs: RENDER_TIMEOUT_MS,
        burntInCaptions:
          cues && job.input.burn_captions
            ? { assDocument: assCaptions(cues, job.input.aspect_ratio), fonts: captionFontFiles() }
            : undefined,
      }),
    );
    const status = await storeRenderedClip(clip, rendered, cues && webVttCaptions(cues), directory);
    if (status === 'completed') {
      await advanceProgress(task.organization_id, task.job_id, PROGRESS.rendering / task.clip_count);
    }
    return { clip_id: clip.clipId, status };
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

/**
 * A rendered clip's files uploaded under clips/, then the clip marked completed; answers its
 * status after. A clip that can no longer complete (failed as its job ended meanwhile: a cancel,
 * a deadline, the job's finish) keeps no files: nothing points at them, and no lifecycle rule
 * expires clips/. A clip another render of it completed keeps them: they are its own, at the same
 * keys.
 */
export async function storeRenderedClip(
  clip: Clip,
  rendered: RenderedClip,
  captions: string | null,
  directory: string,
): Promise<ClipStatus> {
  const keyOf = (file: 'video' | 'thumbnail' | 'captions') =>
    clipObjectKey(clip.organizationId, clip.jobId, clip.clipId, file);
  const files: ClipFiles = {
    video: keyOf('video'),
    thumbnail: keyOf('thumbnail'),
    captions: captions === null ? null : keyOf('captions'),
  };
  const captionsPath = join(directory, 'captions.vtt');
  if (captions !== null) await writeFile(captionsPath, captions, 'utf8');
  await retryableOnTransientFailure(`Storing clip ${clip.clipId}`, () =>
    Promise.all([
      putFile(files.video, rendered.videoPath, 'video/mp4'),
      putFile(files.thumbnail, rendered.thumbnailPath, 'image/jpeg'),
      files.captions === null ? undefined : putFile(files.captions, captionsPath, 'text/vtt'),
    ]),
  );
  const look = {
    seconds: rendered.durationSeconds,
    framing: rendered.framing,
    framingReason: rendered.framingReason,
    captionsBurnedIn: rendered.captionsBurnedIn,
  };
  if (await markClipCompleted(clip, files, look)) return 'completed';
  const ended = await findClip(clip.organizationId, clip.jobId, clip.clipId);
  if (ended?.status !== 'completed') {
    await discardObjects([files.video, files.thumbnail, ...(files.captions === null ? [] : [files.captions])]);
  }
  return ended?.status ?? 'failed';
}

/**
 * The Map's Catch: the clip that could not be rendered (after the retries of a transient failure)
 * is failed, and why is logged; its job goes on.
 */
export async function failSplitClip(task: ClipTask & { failure?: CaughtFailure }) {
  log('warn', 'A clip could not be rendered', {
    job_id: task.job_id,
    clip_id: task.clip_id,
    ...describeCaughtFailure(task.failure),
  });
  await markClipFailed(
    { organizationId: task.organization_id, jobId: task.job_id, clipId: task.clip_id },
    SPLIT_ERRORS.clipRenderFailed,
  );
  return { clip_id: task.clip_id, status: 'failed' };
}

/**
 * Finish (and FinishCrashed): ends the job. After rendering: completed when at least one clip
 * completed, the failed clips' share refunded; failed and refunded in full when none did. On a
 * failure before that, or a crash, failed with its error, keeping the price of the clips completed
 * by then (refunds.ts). Clips left unfinished are failed first. Safe to run again for the same job.
 */
export async function finishSplitJob(state: SplitEnding): Promise<SplitEnded | SplitFinished> {
  const { organization_id: organizationId, job_id: jobId } = state;
  const job = await splitJob(state);
  if (!job || !isActive(job)) return { ...executionInputOf(state), outcome: 'finished' };
  const clips = await findClips(organizationId, jobId);
  await failUnfinishedClips(clips, state.outcome === 'chosen' ? SPLIT_ERRORS.clipRenderFailed : JOB_ERRORS.internal);
  const completed = clips.filter((clip) => clip.status === 'completed').length;
  if (state.outcome === 'chosen' && completed > 0) {
    await finishJob(organizationId, jobId, {
      status: 'completed',
      outputAssetId: null,
      outputs: [],
      clipsCount: completed,
      refund: completedJobRefund(job.credits.charged, state.decoded_seconds, clips.length - completed, clips.length),
    });
    return { ...executionInputOf(state), outcome: 'completed' };
  }
  await finishJob(organizationId, jobId, { status: 'failed', error: failureOf(state), delivered: deliveredBy(clips) });
  return { ...executionInputOf(state), outcome: 'failed' };
}

/** Why a job that rendered no clip failed: what the step that stopped it said. */
function failureOf(state: SplitEnding): JobError {
  switch (state.outcome) {
    case 'chosen':
      return SPLIT_ERRORS.noClipRendered;
    case 'unreadable':
      return SPLIT_ERRORS.sourceUnreadable;
    case 'failed':
      return state.error;
    case 'crashed':
      return JOB_ERRORS.internal;
  }
}
