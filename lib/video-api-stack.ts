import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { WORKFLOWS } from '#workflows';
import { CursorKey } from './constructs/cursor-key';
import { DataTable } from './constructs/data-table';
import { VideoHttpApi } from './constructs/http-api';
import { MediaBucket } from './constructs/media-bucket';
import { MediaToolsLayer } from './constructs/media-tools-layer';
import { constructIdOf } from './constructs/construct-ids';
import { Monitoring } from './constructs/monitoring';
import { ServiceQueues } from './constructs/queues';
import { TaskFunctions } from './constructs/tasks';
import { WebhookSecretsKey } from './constructs/webhook-secrets-key';
import { DEFAULT_BEDROCK_REGION, VIDEO_MODEL_ID, WorkflowStateMachine } from './constructs/workflow';

/** Context key (`cdk synth -c bedrockRegion=…`) for the Bedrock region when the prop is not given. */
export const BEDROCK_REGION_CONTEXT_KEY = 'bedrockRegion';

/** Context key (`cdk deploy -c webhookDeliveryEnabled=false`) for the webhook delivery flag when the prop is not given. */
export const WEBHOOK_DELIVERY_ENABLED_CONTEXT_KEY = 'webhookDeliveryEnabled';

/** `true`/`false`, as booleans (cdk.json, props) or strings (`-c key=false`); anything else fails the synthesis. */
function booleanSetting(name: string, value: unknown): boolean {
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  throw new Error(`${name} must be true or false, got ${JSON.stringify(value)}`);
}

export interface VideoApiStackProps extends StackProps {
  /**
   * Region of the Bedrock video model the workers call. Unless given: the `bedrockRegion` context
   * value, else us-east-1, the only region offering Nova Reel v1:1. It may differ from the stack's.
   */
  readonly bedrockRegion?: string;
  /**
   * Whether webhook deliveries are attempted (DEVELOPER_WEBHOOK_DELIVERY_ENABLED of the delivering
   * tasks). Unless given: the `webhookDeliveryEnabled` context value, else true. Off, events and
   * their deliveries are still recorded and left pending, to be delivered once it is on again.
   */
  readonly webhookDeliveryEnabled?: boolean;
}

/**
 * The whole v1 service in one env-agnostic stack: table (with its stream), media bucket, the key of
 * list cursors, the key of webhook signing secrets, the queues of lambdas/queues.ts, the workflows
 * of lambdas/workflows.ts (state machine and workers each), HTTP API with one function per route,
 * the tasks of lambdas/tasks.ts with their triggers, and the dashboard and alarms over them.
 */
export class VideoApiStack extends Stack {
  public readonly table: DataTable;
  public readonly media: MediaBucket;
  public readonly workflows: readonly WorkflowStateMachine[];
  public readonly cursorKey: CursorKey;
  public readonly webhookSecretsKey: WebhookSecretsKey;
  public readonly queues: ServiceQueues;
  public readonly httpApi: VideoHttpApi;
  public readonly tasks: TaskFunctions;
  public readonly monitoring: Monitoring;

  constructor(scope: Construct, id: string, props: VideoApiStackProps = {}) {
    super(scope, id, props);

    const bedrockRegion: unknown =
      props.bedrockRegion ?? this.node.tryGetContext(BEDROCK_REGION_CONTEXT_KEY) ?? DEFAULT_BEDROCK_REGION;
    if (typeof bedrockRegion !== 'string' || !/^[a-z]{2}(-[a-z]+)+-\d+$/.test(bedrockRegion)) {
      throw new Error(
        `bedrockRegion must be an AWS region name such as us-east-1, got ${JSON.stringify(bedrockRegion)}`,
      );
    }

    const webhookDeliveryEnabled = booleanSetting(
      WEBHOOK_DELIVERY_ENABLED_CONTEXT_KEY,
      props.webhookDeliveryEnabled ?? this.node.tryGetContext(WEBHOOK_DELIVERY_ENABLED_CONTEXT_KEY) ?? true,
    );

    this.table = new DataTable(this, 'Data');
    this.media = new MediaBucket(this, 'Media');
    this.webhookSecretsKey = new WebhookSecretsKey(this, 'WebhookSecretsKey');
    this.queues = new ServiceQueues(this, 'Queues');
    const queues = this.queues.byName;
    const mediaTools = new MediaToolsLayer(this, 'MediaTools');
    this.workflows = WORKFLOWS.map(
      (workflow) =>
        new WorkflowStateMachine(this, `${constructIdOf(workflow.name)}Workflow`, {
          workflow,
          table: this.table,
          media: this.media,
          videoModel: { region: bedrockRegion, modelId: VIDEO_MODEL_ID },
          mediaTools,
          queues,
          webhookSecretsKey: this.webhookSecretsKey,
        }),
    );
    const stateMachines = Object.fromEntries(
      this.workflows.map(({ workflow, stateMachine }) => [workflow.name, stateMachine]),
    );
    this.cursorKey = new CursorKey(this, 'CursorKey');
    this.httpApi = new VideoHttpApi(this, 'HttpApi', {
      table: this.table,
      media: this.media,
      stateMachines,
      cursorKey: this.cursorKey.secret,
      queues,
      webhookSecretsKey: this.webhookSecretsKey,
      mediaTools,
    });
    this.tasks = new TaskFunctions(this, 'Tasks', {
      table: this.table,
      media: this.media,
      stateMachines,
      queues,
      webhookSecretsKey: this.webhookSecretsKey,
      webhookDelivery: { enabled: webhookDeliveryEnabled },
    });
    this.monitoring = new Monitoring(this, 'Monitoring', {
      api: this.httpApi,
      table: this.table,
      workflows: this.workflows,
      tasks: this.tasks,
      queues: this.queues,
    });

    new CfnOutput(this, 'ApiUrl', { value: this.httpApi.baseUrl, description: "The spec's {base_url}" });
    new CfnOutput(this, 'TableName', { value: this.table.tableName });
    new CfnOutput(this, 'MediaBucketName', { value: this.media.bucketName });
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
