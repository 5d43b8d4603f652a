import * as path from 'node:path';
import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import type { DeployedLanguageModelKind } from '#domain/split-jobs/language/factory';
import type { DeployedTranscriptionProviderKind } from '#domain/split-jobs/transcription/factory';
import { RENDER_SCHEDULE } from '#domain/video-jobs/render-schedule';
import type { TextModelEntry, VideoModelEntry } from '#domain/models/model-registry';
import {
  LANGUAGE_MODEL,
  TEXT_MODEL_ID,
  TRANSCRIPTION_PROVIDER,
  VIDEO_MODEL_ID,
  VIDEO_PROVIDER,
  VIDEO_RENDER_DEADLINE_SECONDS,
  VIDEO_RENDER_POLL_SECONDS,
} from '#platform/settings';
import { definitionWithWorkers, type Workflow, type WorkerSetting } from '#workflows';
import { applyGrants } from './grants';
import type { DataTable } from './data-table';
import type { Governance } from './governance';
import type { MediaBucket } from './media-bucket';
import type { CaptionFontsLayer } from './caption-fonts-layer';
import type { PeopleDetectorLayer } from './people-detector-layer';
import type { MediaToolsLayer } from './media-tools-layer';
import type { QueuesByName } from './queues';
import type { WebhookSecretsKey } from './webhook-secrets-key';
import { DEFAULT_FUNCTION_LOG_RETENTION, NodeFunction, PROJECT_ROOT, type HandlerModuleProps } from './node-function';

/** Where worker modules live; a worker's `handler` names a module below it. */
export const WORKERS_DIR = path.join(PROJECT_ROOT, 'lambdas', 'workers');

/** What the split-job workers transcribe speech with unless told. */
export const DEFAULT_TRANSCRIPTION_PROVIDER: DeployedTranscriptionProviderKind = 'amazon-transcribe';

/** What chooses clips by what is said unless told: the registry's default text model, through Bedrock. */
export const DEFAULT_LANGUAGE_MODEL: DeployedLanguageModelKind = 'bedrock';

/** The language model the split-job workers are given: a kind, and for Bedrock its text model. */
export interface WorkerLanguageModel {
  readonly kind: DeployedLanguageModelKind;
  /** Given exactly when the kind is `bedrock`: its id is set, and the grant names it. */
  readonly model?: TextModelEntry;
}

/** How long an execution log group keeps events unless told: as long as the workers' own logs. */
export const DEFAULT_EXECUTION_LOG_RETENTION = DEFAULT_FUNCTION_LOG_RETENTION;

/** `handlerModule` is below lambdas/workers, sized as its entry in lambdas/workflows.ts says. */
export interface WorkerFunctionProps extends HandlerModuleProps {
  readonly memoryMb: number;
  readonly timeoutSeconds: number;
  readonly ephemeralStorageMb?: number;
}

/**
 * One step of a workflow: the NodeFunction defaults, sized per worker. No API Gateway waits on a
 * worker; its timeout only ends a hung call soon, and the ASL sends what a worker throws to
 * FinishCrashed, which ends and refunds the job.
 */
export class WorkerFunction extends NodeFunction {
  constructor(scope: Construct, id: string, props: WorkerFunctionProps) {
    const { handlerModule, memoryMb, timeoutSeconds, ephemeralStorageMb, ...common } = props;
    super(scope, id, {
      ...common,
      entry: path.join(WORKERS_DIR, `${handlerModule}.ts`),
      purpose: `worker ${handlerModule}`,
      memorySize: memoryMb,
      timeout: Duration.seconds(timeoutSeconds),
      ephemeralStorageMb,
    });
  }
}

/** The environment of each worker setting (lambdas/workflows.ts) in AWS. */
function settingEnvironment(
  setting: WorkerSetting,
  videoModel: VideoModelEntry,
  transcription: DeployedTranscriptionProviderKind,
  language: WorkerLanguageModel,
): Record<string, string> {
  switch (setting) {
    case 'video-provider':
      return {
        [VIDEO_PROVIDER.variable]: 'bedrock',
        [VIDEO_MODEL_ID.variable]: videoModel.id,
      };
    case 'render-schedule':
      return {
        [VIDEO_RENDER_POLL_SECONDS.variable]: String(RENDER_SCHEDULE.pollIntervalSeconds),
        [VIDEO_RENDER_DEADLINE_SECONDS.variable]: String(RENDER_SCHEDULE.deadlineSeconds),
      };
    case 'transcription':
      return { [TRANSCRIPTION_PROVIDER.variable]: transcription };
    case 'language-model':
      return {
        [LANGUAGE_MODEL.variable]: language.kind,
        ...(language.model ? { [TEXT_MODEL_ID.variable]: language.model.id } : {}),
      };
  }
}

export interface WorkflowStateMachineProps {
  /** One entry of lambdas/workflows.ts. */
  readonly workflow: Workflow;
  readonly table: DataTable;
  readonly media: MediaBucket;
  /** The model of the registry the render workers call. */
  readonly videoModel: VideoModelEntry;
  /** ffmpeg and ffprobe for the workers that run them (`mediaTools` in lambdas/workflows.ts). */
  readonly mediaTools: MediaToolsLayer;
  /** The fonts for the workers that draw captions (`captionFonts` in lambdas/workflows.ts). */
  readonly captionFonts: CaptionFontsLayer;
  /** The people detector for the workers that find people (`peopleDetector` in lambdas/workflows.ts). */
  readonly peopleDetector: PeopleDetectorLayer;
  /** The queues of lambdas/queues.ts; one a worker sends to but missing here fails the synthesis. */
  readonly queues?: QueuesByName;
  /** The key that wraps webhook signing secrets; needed by the workers granted to use it, or the synthesis fails. */
  readonly webhookSecretsKey?: WebhookSecretsKey;
  readonly logLevel?: string;
  /** What the split-job workers transcribe with; Amazon Transcribe unless told. */
  readonly transcriptionProvider?: DeployedTranscriptionProviderKind;
  /**
   * What chooses clips by what is said; without it, none: the workers granted
   * `bedrock.text-model:invoke` are then granted nothing by it.
   */
  readonly languageModel?: WorkerLanguageModel;
  /** Of every worker's log group; a month unless told. */
  readonly logRetention?: logs.RetentionDays;
  /** Of the execution log group; a month unless told. */
  readonly executionLogRetention?: logs.RetentionDays;
  /** The governed profile: every worker in its network, every log group encrypted with its key. */
  readonly governance?: Governance;
}

/**
 * One workflow of lambdas/workflows.ts: a worker function per `${Substitution}` of its ASL file,
 * each granted its declared table actions and grants, and a STANDARD state machine running the ASL
 * file with the workers' ARNs, allowed to invoke exactly those functions.
 *
 * STANDARD, not EXPRESS: a video job runs for minutes (EXPRESS stops at 5), mostly in Wait states,
 * which STANDARD bills by state transition rather than duration; its exactly-once execution and
 * 90-day execution history also suit a job that spends customers' credits.
 */
export class WorkflowStateMachine extends Construct {
  public readonly workflow: Workflow;
  public readonly stateMachine: sfn.StateMachine;
  public readonly executionLogGroup: logs.LogGroup;
  /** Every worker by its substitution name in the ASL file (`StartRenderFunction`). */
  public readonly workers: ReadonlyMap<string, WorkerFunction>;

  constructor(scope: Construct, id: string, props: WorkflowStateMachineProps) {
    super(scope, id);
    const { workflow, table, media, videoModel } = props;
    this.workflow = workflow;

    const workers = new Map<string, WorkerFunction>();
    for (const [substitution, worker] of Object.entries(workflow.workers)) {
      const fn = new WorkerFunction(this, substitution, {
        handlerModule: worker.handler,
        description: `${workflow.name} workflow: ${substitution} (lambdas/workers/${worker.handler}.ts)`,
        tableName: table.tableName,
        mediaBucketName: media.bucketName,
        logLevel: props.logLevel,
        logRetention: props.logRetention,
        memoryMb: worker.memoryMb,
        timeoutSeconds: worker.timeoutSeconds,
        ephemeralStorageMb: worker.ephemeralStorageMb,
        mediaTools: worker.mediaTools ? props.mediaTools : undefined,
        captionFonts: worker.captionFonts ? props.captionFonts : undefined,
        peopleDetector: worker.peopleDetector ? props.peopleDetector : undefined,
        governance: props.governance,
        environment: Object.assign(
          {},
          ...worker.settings.map((setting) =>
            settingEnvironment(
              setting,
              videoModel,
              props.transcriptionProvider ?? DEFAULT_TRANSCRIPTION_PROVIDER,
              props.languageModel ?? { kind: 'none' },
            ),
          ),
        ),
      });
      table.grantTo(fn, worker);
      applyGrants(worker.grants, {
        fn,
        who: `Worker ${substitution} of ${workflow.name}`,
        media,
        videoModel,
        textModel: props.languageModel?.model,
        queues: props.queues,
        webhookSecretsKey: props.webhookSecretsKey,
      });
      workers.set(substitution, fn);
    }
    this.workers = workers;

    this.executionLogGroup = new logs.LogGroup(this, 'ExecutionLogs', {
      // The /aws/vendedlogs/ prefix keeps Step Functions' log delivery from growing the account's
      // CloudWatch Logs resource policy, which is capped at 5120 characters.
      logGroupName: `/aws/vendedlogs/states/${Stack.of(this).stackName}-${workflow.name}`,
      retention: props.executionLogRetention ?? DEFAULT_EXECUTION_LOG_RETENTION,
      encryptionKey: props.governance?.logsKey,
      removalPolicy: RemovalPolicy.DESTROY,
    });

    const functionArns = Object.fromEntries([...workers].map(([substitution, fn]) => [substitution, fn.functionArn]));
    this.stateMachine = new sfn.StateMachine(this, 'StateMachine', {
      definitionBody: sfn.DefinitionBody.fromString(definitionWithWorkers(workflow, functionArns)),
      stateMachineType: sfn.StateMachineType.STANDARD,
      // ALL: every state transition of a job (each poll, retry and catch) can be followed in Logs
      // Insights across executions, which a failed or stuck job needs. A poll cycle logs about 9
      // small events, so a job logs tens to about a thousand (120 polls at the 30-minute deadline).
      // Without execution data: each state's input and output is already in the execution history
      // (kept 90 days for STANDARD), so the logs need not repeat it in every event.
      logs: { destination: this.executionLogGroup, level: sfn.LogLevel.ALL, includeExecutionData: false },
      tracingEnabled: true,
    });

    for (const fn of workers.values()) {
      // The ASL names each function by its unqualified ARN, so that ARN is the whole grant
      // (fn.grantInvoke would add `:*`, every version and alias, which nothing invokes).
      iam.Grant.addToPrincipal({
        grantee: this.stateMachine,
        actions: ['lambda:InvokeFunction'],
        resourceArns: [fn.functionArn],
      });
    }

    NagSuppressions.addResourceSuppressions(
      this.stateMachine.role,
      [
        {
          id: 'AwsSolutions-IAM5',
          reason:
            'Log delivery to CloudWatch Logs (logs:CreateLogDelivery, GetLogDelivery, UpdateLogDelivery, DeleteLogDelivery, ListLogDeliveries, PutResourcePolicy, DescribeResourcePolicies, DescribeLogGroups) and X-Ray tracing (xray:PutTraceSegments, PutTelemetryRecords, GetSamplingRules, GetSamplingTargets) support no resource-level permissions, so their Resource must be "*".',
          appliesTo: ['Resource::*'],
        },
      ],
      true,
    );
  }
}
