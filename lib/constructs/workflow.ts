import * as path from 'node:path';
import { ArnFormat, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import { definitionWithWorkers, type Workflow, type WorkerAccess } from '../../lambdas/workflows';
import type { DataTable } from './data-table';
import type { MediaBucket } from './media-bucket';
import { NodeFunction, PROJECT_ROOT, type HandlerModuleProps } from './node-function';

/** Where worker modules live; a worker's `handler` names a module below it. */
export const WORKERS_DIR = path.join(PROJECT_ROOT, 'lambdas', 'workers');

/**
 * Each worker step is a handful of calls: DynamoDB updates, one Bedrock call, a HeadObject, or one
 * server-side CopyObject of a finished video (tens of MB, a few seconds). 60 s is ample headroom
 * for a slow S3 copy or SDK retries under throttling, and short enough that a hung call ends the
 * step soon: the ASL retries Lambda service errors and sends anything else to FinishCrashed, which
 * refunds the job. The render itself never runs inside a worker (Step Functions waits between polls).
 */
export const WORKER_TIMEOUT = Duration.seconds(60);

/**
 * start-render reads and base64-encodes the source image (a 1280x720 PNG can be several MB), and
 * cold starts load the S3, DynamoDB and Bedrock clients; Lambda gives CPU in proportion to memory,
 * and 1024 MB halves both compared with the API functions' 512 MB for a few seconds per job.
 */
export const WORKER_MEMORY_MB = 1024;

/**
 * The video model the workers call and may invoke. Nova Reel v1:1 (multi-shot, 12 to 120 s) is
 * offered in us-east-1 only; lambdas/domain/video-providers/bedrock.ts is written for it.
 */
export const VIDEO_MODEL_ID = 'amazon.nova-reel-v1:1';
export const DEFAULT_BEDROCK_REGION = 'us-east-1';

/**
 * Seconds between GetAsyncInvoke polls: a 6 s Nova Reel shot takes about 90 s, so 15 s adds at
 * most a few seconds of latency to a finished video for a handful of state transitions per job.
 */
export const RENDER_POLL_SECONDS = 15;
/** A render still running after this many seconds makes the job `expired` (and refunded). */
export const RENDER_DEADLINE_SECONDS = 1800;

/** Where the workers' video model lives. */
export interface VideoModel {
  readonly region: string;
  readonly modelId: string;
}

/** `handlerModule` is below lambdas/workers, as lambdas/workflows.ts names it. */
export type WorkerFunctionProps = HandlerModuleProps;

/** One step of a workflow: the NodeFunction defaults with the worker memory and timeout above. */
export class WorkerFunction extends NodeFunction {
  constructor(scope: Construct, id: string, props: WorkerFunctionProps) {
    const { handlerModule, ...common } = props;
    super(scope, id, {
      ...common,
      entry: path.join(WORKERS_DIR, `${handlerModule}.ts`),
      purpose: `worker ${handlerModule}`,
      memorySize: WORKER_MEMORY_MB,
      timeout: WORKER_TIMEOUT,
    });
  }
}

interface WorkerGrantTarget {
  readonly fn: WorkerFunction;
  readonly media: MediaBucket;
  readonly videoModel: VideoModel;
}

/**
 * The narrowest grant for each kind of access a worker may declare. A Record, so a new WorkerAccess
 * value in lambdas/workflows.ts does not type-check until it says here what it grants.
 */
const WORKER_ACCESS_GRANTS: Record<WorkerAccess, (target: WorkerGrantTarget) => void> = {
  // Source images for image-to-video.
  'assets:read': ({ fn, media }) => media.grantObjects(fn, 'assets', ['s3:GetObject']),
  // Copy target of the finished video.
  'assets:write': ({ fn, media }) => media.grantObjects(fn, 'assets', ['s3:PutObject']),
  // HeadObject of the provider's output and the read side of the copy (both are s3:GetObject).
  'renders:read': ({ fn, media }) => media.grantObjects(fn, 'renders', ['s3:GetObject']),
  // Bedrock writes the async invoke output with the caller's permissions, so this grant is what
  // lets the render land under renders/.
  'renders:write': ({ fn, media }) => media.grantObjects(fn, 'renders', ['s3:PutObject']),
  'video-provider': ({ fn, videoModel }) => grantVideoModel(fn, videoModel),
};

/**
 * Bedrock's async invoke for one model. StartAsyncInvoke is authorized as bedrock:InvokeModel on
 * the model (API reference) and creates an `async-invoke` resource, against which Bedrock also
 * checks both actions, so both name the model and this account's invocations in the model's
 * region. GetAsyncInvoke reads those invocations. The invocation ids are minted by Bedrock per
 * call, hence `async-invoke/*`; no ListAsyncInvokes (the workers keep each invocation ARN).
 */
function grantVideoModel(fn: WorkerFunction, videoModel: VideoModel): void {
  const stack = Stack.of(fn);
  const modelArn = stack.formatArn({
    service: 'bedrock',
    region: videoModel.region,
    account: '',
    resource: 'foundation-model',
    resourceName: videoModel.modelId,
    arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
  });
  const invocationsArn = stack.formatArn({
    service: 'bedrock',
    region: videoModel.region,
    resource: 'async-invoke',
    resourceName: '*',
    arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
  });
  fn.addToRolePolicy(
    new iam.PolicyStatement({
      actions: ['bedrock:InvokeModel', 'bedrock:StartAsyncInvoke'],
      resources: [modelArn, invocationsArn],
    }),
  );
  fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['bedrock:GetAsyncInvoke'], resources: [invocationsArn] }));
  NagSuppressions.addResourceSuppressions(
    fn.role!,
    [
      {
        id: 'AwsSolutions-IAM5',
        reason: `Bedrock mints each async invocation's id when StartAsyncInvoke runs, so the grant names this account's invocations in ${videoModel.region} (async-invoke/*), for StartAsyncInvoke/InvokeModel/GetAsyncInvoke only.`,
        appliesTo: [
          { regex: '/^Resource::arn:<AWS::Partition>:bedrock:[a-z0-9-]+:<AWS::AccountId>:async-invoke\\/\\*$/' },
        ],
      },
    ],
    true,
  );
}

/** `video-job` → `VideoJob`. */
export function workflowConstructId(name: string): string {
  return name
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
}

export interface WorkflowStateMachineProps {
  /** One entry of lambdas/workflows.ts. */
  readonly workflow: Workflow;
  readonly table: DataTable;
  readonly media: MediaBucket;
  readonly videoModel: VideoModel;
  readonly logLevel?: string;
}

/**
 * One workflow of lambdas/workflows.ts: a worker function per `${Substitution}` of its ASL file,
 * each granted the table and its declared access, and a STANDARD state machine running the ASL
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
        environment: {
          VIDEO_PROVIDER: 'bedrock',
          BEDROCK_REGION: videoModel.region,
          BEDROCK_VIDEO_MODEL_ID: videoModel.modelId,
          VIDEO_RENDER_POLL_SECONDS: String(RENDER_POLL_SECONDS),
          VIDEO_RENDER_DEADLINE_SECONDS: String(RENDER_DEADLINE_SECONDS),
        },
      });
      // Every step reads and updates the job (and refunds credits on failure).
      table.grantTo(fn, 'RW');
      for (const access of worker.access) WORKER_ACCESS_GRANTS[access]({ fn, media, videoModel });
      workers.set(substitution, fn);
    }
    this.workers = workers;

    this.executionLogGroup = new logs.LogGroup(this, 'ExecutionLogs', {
      // The /aws/vendedlogs/ prefix keeps Step Functions' log delivery from growing the account's
      // CloudWatch Logs resource policy, which is capped at 5120 characters.
      logGroupName: `/aws/vendedlogs/states/${Stack.of(this).stackName}-${workflow.name}`,
      retention: logs.RetentionDays.ONE_MONTH,
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
