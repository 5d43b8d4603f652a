import {
  Annotations,
  AspectPriority,
  Aspects,
  Aws,
  CfnOutput,
  CfnRule,
  Fn,
  RemovalPolicy,
  Stack,
  Token,
  type StackProps,
} from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { TextModelEntry, VideoModelEntry } from '#domain/models/model-registry';
import { ROUTES } from '#routes';
import { TASKS } from '#tasks';
import { WORKFLOWS } from '#workflows';
import { deploymentConfigOf, type DeploymentConfig } from './config';
import { acknowledgeControl } from './control-tower';
import { AlarmTopic } from './constructs/alarm-topic';
import { ApiEdge } from './constructs/api-edge';
import { CursorKey } from './constructs/cursor-key';
import { DataTable } from './constructs/data-table';
import { Governance } from './constructs/governance';
import { VideoHttpApi } from './constructs/http-api';
import { MediaBucket } from './constructs/media-bucket';
import { CaptionFontsLayer } from './constructs/caption-fonts-layer';
import { PeopleDetectorLayer } from './constructs/people-detector-layer';
import { MediaToolsLayer } from './constructs/media-tools-layer';
import { constructIdOf } from './constructs/construct-ids';
import { Monitoring } from './constructs/monitoring/monitoring';
import { ServiceQueues } from './constructs/queues';
import { TaskFunctions } from './constructs/tasks';
import { WebhookSecretsKey } from './constructs/webhook-secrets-key';
import { WorkflowStateMachine } from './constructs/workflow';

export interface VideoApiStackProps extends StackProps {
  /** The deployment's settings (lib/config.ts); read from the CDK context unless given. */
  readonly config?: DeploymentConfig;
}

/**
 * The whole v1 service in one env-agnostic stack: table (with its stream), media bucket, the key of
 * list cursors, the key of webhook signing secrets, the queues of lambdas/queues.ts, the workflows
 * of lambdas/workflows.ts (state machine and workers each), HTTP API with one function per route,
 * the tasks of lambdas/tasks.ts with their triggers, and the dashboard and alarms over them, which
 * notify the alarm topic. A production stage keeps its data (table, buckets, webhook secrets key)
 * when the stack is deleted and is protected from termination; any other stage is removed whole.
 */
export class VideoApiStack extends Stack {
  public readonly table: DataTable;
  public readonly media: MediaBucket;
  public readonly workflows: readonly WorkflowStateMachine[];
  public readonly cursorKey: CursorKey;
  public readonly webhookSecretsKey: WebhookSecretsKey;
  public readonly queues: ServiceQueues;
  public readonly httpApi: VideoHttpApi;
  /** CloudFront and the WAF web ACL in front of the API, when `edgeFirewall` is on. */
  public readonly edge?: ApiEdge;
  public readonly tasks: TaskFunctions;
  public readonly monitoring: Monitoring;
  public readonly alarmTopic: AlarmTopic;
  /** The VPC placement and logs key of every function and log group, in the governed profile. */
  public readonly governance?: Governance;

  constructor(scope: Construct, id: string, props: VideoApiStackProps = {}) {
    // Read before super(): termination protection is a property of the stack itself.
    const config = props.config ?? deploymentConfigOf(scope);
    super(scope, id, { terminationProtection: config.stage.production, ...props });
    const { floodControl, logRetention } = config;
    const dataRemovalPolicy = config.stage.production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;

    this.table = new DataTable(this, 'Data', { removalPolicy: dataRemovalPolicy });
    this.media = new MediaBucket(this, 'Media', { removalPolicy: dataRemovalPolicy });
    this.webhookSecretsKey = new WebhookSecretsKey(this, 'WebhookSecretsKey', { removalPolicy: dataRemovalPolicy });
    if (config.governed) {
      this.governance = new Governance(this, 'Governance', {
        profile: config.governed,
        grants: [...ROUTES, ...WORKFLOWS.flatMap((workflow) => Object.values(workflow.workers)), ...TASKS].flatMap(
          ({ grants }) => grants,
        ),
        removalPolicy: dataRemovalPolicy,
      });
    } else {
      acknowledgeNotGoverned(this);
    }
    const { governance } = this;
    requireVideoModelRegion(this, config.providers.video);
    if (config.providers.videoLifecycleNotice) {
      Annotations.of(this).addWarningV2('video-api:video-model-lifecycle', config.providers.videoLifecycleNotice);
    }
    const { language } = config.providers;
    const textModel = language.kind === 'bedrock' ? language.model : undefined;
    if (textModel) requireTextModelReach(config.providers.video, textModel);
    if (language.kind === 'bedrock' && language.lifecycleNotice) {
      Annotations.of(this).addWarningV2('video-api:text-model-lifecycle', language.lifecycleNotice);
    }
    this.queues = new ServiceQueues(this, 'Queues');
    const queues = this.queues.byName;
    const mediaTools = new MediaToolsLayer(this, 'MediaTools', { source: config.mediaTools });
    const captionFonts = new CaptionFontsLayer(this, 'CaptionFonts');
    const peopleDetector = new PeopleDetectorLayer(this, 'PeopleDetector');
    this.workflows = WORKFLOWS.map(
      (workflow) =>
        new WorkflowStateMachine(this, `${constructIdOf(workflow.name)}Workflow`, {
          workflow,
          table: this.table,
          media: this.media,
          videoModel: config.providers.video,
          transcriptionProvider: config.providers.transcription,
          languageModel: { kind: language.kind, model: textModel },
          logRetention: logRetention.functions,
          executionLogRetention: logRetention.stateMachines,
          mediaTools,
          captionFonts,
          peopleDetector,
          queues,
          webhookSecretsKey: this.webhookSecretsKey,
          governance,
        }),
    );
    const stateMachines = Object.fromEntries(
      this.workflows.map(({ workflow, stateMachine }) => [workflow.name, stateMachine]),
    );
    this.cursorKey = new CursorKey(this, 'CursorKey');
    this.httpApi = new VideoHttpApi(this, 'HttpApi', {
      floodControl,
      videoCreditsPerSecond: config.videoCreditsPerSecond,
      logRetention: logRetention.functions,
      accessLogs: { retention: logRetention.accessLogs, removalPolicy: dataRemovalPolicy },
      table: this.table,
      media: this.media,
      stateMachines,
      cursorKey: this.cursorKey.secret,
      queues,
      webhookSecretsKey: this.webhookSecretsKey,
      mediaTools,
      governance,
    });
    this.tasks = new TaskFunctions(this, 'Tasks', {
      table: this.table,
      media: this.media,
      stateMachines,
      queues,
      webhookSecretsKey: this.webhookSecretsKey,
      webhookDelivery: { enabled: config.webhookDeliveryEnabled },
      videoModel: config.providers.video,
      textModel,
      logRetention: logRetention.functions,
      governance,
    });
    this.monitoring = new Monitoring(this, 'Monitoring', {
      api: this.httpApi,
      table: this.table,
      workflows: this.workflows,
      tasks: this.tasks,
      queues: this.queues,
      models: [config.providers.video, ...(textModel ? [textModel] : [])],
    });
    this.alarmTopic = new AlarmTopic(this, 'AlarmTopic', { email: config.alarmEmail });
    Aspects.of(this).add(this.alarmTopic.notifyEveryAlarm(), { priority: AspectPriority.MUTATING });

    if (floodControl.edgeFirewall) {
      this.edge = new ApiEdge(this, 'Edge', { api: this.httpApi, firewall: floodControl.edgeFirewall });
    }
    new CfnOutput(this, 'ApiUrl', {
      value: this.edge?.baseUrl ?? this.httpApi.baseUrl,
      description: this.edge
        ? "The spec's {base_url}: CloudFront and its web ACL in front of the API"
        : "The spec's {base_url}",
    });
    new CfnOutput(this, 'TableName', { value: this.table.tableName });
    new CfnOutput(this, 'MediaBucketName', { value: this.media.bucketName });
    new CfnOutput(this, 'AlarmTopicArn', {
      value: this.alarmTopic.topic.topicArn,
      description: 'Where every alarm notifies: subscribe on-call tools here',
    });
    for (const [name, { queue }] of this.queues.queues) {
      new CfnOutput(this, `${constructIdOf(name)}QueueUrl`, { value: queue.queueUrl });
    }
    for (const { workflow, stateMachine } of this.workflows) {
      new CfnOutput(this, `${constructIdOf(workflow.name)}StateMachineArn`, {
        value: stateMachine.stateMachineArn,
        description: `The ${workflow.name} workflow (${workflow.definitionFile})`,
      });
    }
  }
}

/**
 * Bedrock writes a model's output only to a bucket in the model's region (Bedrock user guide,
 * "Luma AI models", Troubleshooting), and the media bucket is the stack's: so the stack is
 * deployed in one of the model's regions. An env-agnostic synthesis does not know its region, so
 * the template carries a rule that CloudFormation checks before it creates anything; a synthesis
 * for a known region is refused at once.
 */
function requireVideoModelRegion(stack: Stack, model: VideoModelEntry): void {
  const regions = model.regions.join(', ');
  const why = `the video model ${model.id} runs in ${regions} only, and Bedrock writes its videos only to a bucket in the model's region: deploy the stack in ${regions}, or choose another model with -c videoModelId=…`;
  if (!Token.isUnresolved(stack.region) && !model.regions.includes(stack.region)) {
    throw new Error(`The stack cannot be deployed in ${stack.region}: ${why}`);
  }
  new CfnRule(stack, 'VideoModelRegion', {
    assertions: [
      {
        assert: Fn.conditionContains([...model.regions], Aws.REGION),
        assertDescription: `This stack must be deployed in ${regions}: ${why}.`,
      },
    ],
  });
}

/**
 * The stack is deployed in a Region of its video model (requireVideoModelRegion), and calls its
 * text model through an inference profile that only the Regions of its geography can call: every
 * Region of the video model must be one of them, or the synthesis is refused.
 */
function requireTextModelReach(video: VideoModelEntry, text: TextModelEntry): void {
  const profile = text.inferenceProfile;
  const outside = video.regions.filter((region) => !profile.regions.includes(region));
  if (outside.length > 0) {
    throw new Error(
      `The text model ${text.id} is called through the inference profile ${profile.id}, which only ${profile.regions.join(', ')} can call, but the video model ${video.id} runs in ${outside.join(', ')}: choose models that share a Region (-c textModelId=…, -c videoModelId=…), or -c languageModel=none.`,
    );
  }
}

/**
 * Without the governed profile, the controls only it meets: stated for the whole stack, where the
 * profile is chosen, so that the synthesis reports them with the way to meet them.
 */
function acknowledgeNotGoverned(stack: VideoApiStack): void {
  const profile = 'the governed profile (governed=true, docs/operations.md#governed-accounts)';
  acknowledgeControl(
    stack,
    'CT.LAMBDA.PR.3',
    `Functions run outside any VPC, which needs no VPC endpoints (billed per hour and Availability Zone); ${profile} runs them in the operator's VPC.`,
  );
  acknowledgeControl(
    stack,
    'CT.CLOUDWATCH.PR.2',
    `Log groups keep lines for the functionLogRetentionDays, stateMachineLogRetentionDays and accessLogRetentionDays settings (30, 30 and 90 days by default); ${profile} keeps them a year at least.`,
  );
  acknowledgeControl(
    stack,
    'CT.CLOUDWATCH.PR.3',
    `Log groups are encrypted with CloudWatch Logs' own keys; ${profile} encrypts them with a customer managed key of the stack's.`,
  );
}
