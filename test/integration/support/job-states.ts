import { DescribeExecutionCommand } from '@aws-sdk/client-sfn';
import type * as Organizations from '#domain/access/organizations';
import type * as Executions from '#domain/jobs/executions';
import type * as Lifecycle from '#domain/jobs/lifecycle';
import type * as ClipStore from '#domain/split-jobs/clip-store';
import type { ScoreBreakdown } from '#domain/split-jobs/clip-selection';
import type * as Reconciler from '#domain/jobs/reconciler';
import type { TestOrganization } from './stack';
import { SPLIT_JOB_INPUT } from '../../support/split-job-input';

/**
 * Jobs held in one state on the running local stack (queued, or processing with clips done), made
 * with the job core's own functions pointed at the stack's emulators, as the create path and the
 * workers would leave them; and what tests read of their executions.
 */

interface Domain {
  lifecycle: typeof Lifecycle;
  organizations: typeof Organizations;
  clipStore: typeof ClipStore;
  executions: typeof Executions;
  reconciler: typeof Reconciler;
}

let domainLoaded: Promise<Domain> | undefined;

export function domain(): Promise<Domain> {
  domainLoaded ??= (async () => {
    Object.assign(process.env, JSON.parse(process.env.IT_STACK_ENVIRONMENT ?? '{}') as Record<string, string>);
    return {
      lifecycle: await import('#domain/jobs/lifecycle'),
      organizations: await import('#domain/access/organizations'),
      clipStore: await import('#domain/split-jobs/clip-store'),
      executions: await import('#domain/jobs/executions'),
      reconciler: await import('#domain/jobs/reconciler'),
    };
  })();
  return domainLoaded;
}

/** The Step Functions client keeps connections to the emulator open; the file's afterAll closes it. */
export async function closeJobStateClients(): Promise<void> {
  if (domainLoaded) (await domainLoaded).executions.stepFunctions().destroy();
}

const VIDEO_INPUT = {
  prompt: 'Held in the queue',
  duration_seconds: 5,
  aspect_ratio: '9:16',
  model: 'auto',
  mode: 'text_to_video',
} as const;

/** A job as the create path leaves it when its execution has not started yet: queued, charged, holding a slot. */
export async function queuedJob(
  org: TestOrganization,
  type: 'video' | 'split',
  price: number,
  input: { deadline_seconds?: number } = {},
): Promise<string> {
  const { lifecycle, organizations } = await domain();
  const organization = (await organizations.getOrganization(org.organizationId))!;
  const { job } = await lifecycle.createJob({
    organizationId: org.organizationId,
    type,
    price,
    limits: organizations.effectiveLimits(organization),
    createdByKey: org.keyPrefix,
    input: { ...(type === 'video' ? VIDEO_INPUT : SPLIT_JOB_INPUT), ...input },
    metadata: null,
  } as Lifecycle.NewJob<typeof type>);
  return job.jobId;
}

/** Every signal at 0.5, weighed evenly but for language, which a stack without a language model weighs 0: a score of 0.5. */
const EVEN_SIGNAL = { value: 0.5, weight: 1 / 6 };
const EVEN_BREAKDOWN: ScoreBreakdown = {
  energy: EVEN_SIGNAL,
  hook: EVEN_SIGNAL,
  speech: EVEN_SIGNAL,
  rhythm: EVEN_SIGNAL,
  motion: EVEN_SIGNAL,
  lengthFit: EVEN_SIGNAL,
  language: { value: 0, weight: 0 },
};

/** A split job processing its clips, `completed` of `total` already rendered. */
export async function splitJobWithClipsDone(
  org: TestOrganization,
  price: number,
  completed: number,
  total: number,
  input: { deadline_seconds?: number } = {},
) {
  const { lifecycle, clipStore } = await domain();
  const jobId = await queuedJob(org, 'split', price, input);
  await lifecycle.markProcessing(org.organizationId, jobId);
  const clips = await clipStore.putChosenClips(
    org.organizationId,
    jobId,
    Array.from({ length: total }, (_, index) => ({
      title: null,
      hookLine: null,
      ranking: { source: 'signals' as const, languageModel: null, fallbackReason: null },
      startSeconds: index * 20,
      endSeconds: index * 20 + 15,
      score: 0.5,
      breakdown: EVEN_BREAKDOWN,
      reasons: [],
      sceneCuts: [],
    })),
  );
  if (!clips) throw new Error(`Split job ${jobId} was not processing when its clips were written`);
  for (const clip of clips.slice(0, completed)) {
    const files = { video: `clips/${clip.clipId}.mp4`, thumbnail: `clips/${clip.clipId}.jpg`, captions: null };
    await clipStore.markClipCompleted(clip, files, {
      seconds: 15,
      framing: 'fit',
      framingReason: null,
      captionsBurnedIn: false,
    });
  }
  return jobId;
}

export async function executionStatus(type: 'video' | 'split', jobId: string): Promise<string | undefined> {
  const { executions } = await domain();
  const environment = JSON.parse(process.env.IT_STACK_ENVIRONMENT ?? '{}') as Record<string, string>;
  const machine = environment[type === 'video' ? 'VIDEO_JOB_STATE_MACHINE_ARN' : 'SPLIT_JOB_STATE_MACHINE_ARN']!;
  const { status } = await executions
    .stepFunctions()
    .send(
      new DescribeExecutionCommand({ executionArn: `${machine.replace(':stateMachine:', ':execution:')}:${jobId}` }),
    );
  return status;
}
