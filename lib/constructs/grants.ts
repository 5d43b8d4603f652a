import { ArnFormat, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { NagSuppressions } from 'cdk-nag';
import type { TextModelEntry, VideoModelEntry } from '#domain/models/model-registry';
import type { Grant } from '#grants';
import { CURSOR_KEY_SECRET_ARN, WATCHED_MODEL_IDS, WEBHOOK_SECRETS_KEY_ARN } from '#platform/settings';
import { queueNamed, type QueueName } from '#queues';
import { WORKFLOWS } from '#workflows';
import type { MediaBucket } from './media-bucket';
import type { QueuesByName } from './queues';
import type { WebhookSecretsKey } from './webhook-secrets-key';

/**
 * Every workflow's state machine by its name in lambdas/workflows.ts (`video-job`); routes granted
 * to start a workflow get StartExecution on that machine only.
 */
export type ApiStateMachines = Readonly<Record<string, sfn.IStateMachine>>;

/** What a grant may need to know; each grant fails the synthesis, naming the function, when its part is missing. */
export interface GrantTarget {
  readonly fn: lambda.Function;
  /** `Route GET /x (getX)` or `Worker StartRenderFunction of video-job`, for messages. */
  readonly who: string;
  readonly media: MediaBucket;
  /** Every workflow's state machine by its name in lambdas/workflows.ts; only API routes start them. */
  readonly stateMachines?: ApiStateMachines;
  /** Only workers call the video model. */
  readonly videoModel?: VideoModelEntry;
  /** The text model of the language step: absent when the deployment has none (languageModel=none). */
  readonly textModel?: TextModelEntry;
  /** The secret whose versions sign list cursors; only list routes read it. */
  readonly cursorKey?: secretsmanager.ISecret;
  /** The queues of lambdas/queues.ts by name; only their senders need them. */
  readonly queues?: QueuesByName;
  /** The key that wraps webhook signing secrets; only the functions sealing or opening one need it. */
  readonly webhookSecretsKey?: WebhookSecretsKey;
}

/**
 * GetSecretValue of the cursor key (the code asks for its current and previous versions by stage,
 * which is the same action; nothing describes the secret), and its ARN in the environment.
 */
function readsCursorKey({ fn, who, cursorKey }: GrantTarget): void {
  if (!cursorKey) throw new Error(`${who} needs the grant secrets.cursor-key:read, but no cursor key was given.`);
  iam.Grant.addToPrincipal({
    grantee: fn,
    actions: ['secretsmanager:GetSecretValue'],
    resourceArns: [cursorKey.secretArn],
  });
  fn.addEnvironment(CURSOR_KEY_SECRET_ARN.variable, cursorKey.secretArn);
}

/**
 * StartExecution on one workflow's state machine, and its ARN in the setting lambdas/workflows.ts
 * names. Only functions granted to start the workflow get the variable, so a function has it
 * exactly when it may use it.
 */
function startsWorkflow(grant: Grant) {
  const workflow = WORKFLOWS.find((candidate) => candidate.startGrant === grant);
  if (!workflow) throw new Error(`No workflow of lambdas/workflows.ts is started with the grant ${grant}`);
  return ({ fn, who, stateMachines }: GrantTarget) => {
    const stateMachine = stateMachines?.[workflow.name];
    if (!stateMachine) {
      throw new Error(`${who} needs the grant ${grant}, but the state machines given have no ${workflow.name}.`);
    }
    stateMachine.grantStartExecution(fn);
    fn.addEnvironment(workflow.arnSetting.variable, stateMachine.stateMachineArn);
  };
}

/**
 * StopExecution on the executions of one workflow's state machine (not on any other's), and the
 * machine's ARN in the setting lambdas/workflows.ts names, from which the execution's ARN follows.
 */
function stopsWorkflow(grant: Grant) {
  const workflow = WORKFLOWS.find((candidate) => candidate.stopGrant === grant);
  if (!workflow) throw new Error(`No workflow of lambdas/workflows.ts is stopped with the grant ${grant}`);
  return ({ fn, who, stateMachines }: GrantTarget) => {
    const stateMachine = stateMachines?.[workflow.name];
    if (!stateMachine) {
      throw new Error(`${who} needs the grant ${grant}, but the state machines given have no ${workflow.name}.`);
    }
    stateMachine.grantExecution(fn, 'states:StopExecution');
    fn.addEnvironment(workflow.arnSetting.variable, stateMachine.stateMachineArn);
    NagSuppressions.addResourceSuppressions(
      fn.role!,
      [
        {
          id: 'AwsSolutions-IAM5',
          reason: `Each execution is named after the job it runs, known only at run time, so the grant names the executions of the ${workflow.name} state machine (execution:<its name>:*), for states:StopExecution only.`,
          appliesTo: [
            {
              regex:
                '/^Resource::arn:<AWS::Partition>:states:<AWS::Region>:<AWS::AccountId>:execution:\\{"Fn::Select":\\[6,\\{"Fn::Split":\\[":",\\{"Ref":"[A-Za-z0-9]+"\\}\\]\\}\\]\\}:\\*$/',
            },
          ],
        },
      ],
      true,
    );
  };
}

/**
 * SendMessage on one queue of lambdas/queues.ts (SendMessageBatch is authorized as SendMessage),
 * and its URL in the setting the queue table names. Not grantSendMessages, which adds
 * GetQueueAttributes and GetQueueUrl: the senders have the URL and read nothing of the queue. The
 * queues are SSE-SQS encrypted, so no KMS permission comes with it.
 */
function sendsTo(name: QueueName) {
  const definition = queueNamed(name);
  return ({ fn, who, queues }: GrantTarget) => {
    const queue = queues?.[name];
    if (!queue)
      throw new Error(`${who} needs the grant ${definition.sendGrant}, but the queues given have no ${name}.`);
    iam.Grant.addToPrincipal({ grantee: fn, actions: ['sqs:SendMessage'], resourceArns: [queue.queueArn] });
    fn.addEnvironment(definition.urlSetting.variable, queue.queueUrl);
  };
}

/**
 * One use of the webhook secrets key (GenerateDataKey to seal, Decrypt to open), bound to the
 * encryption context the domain sends (webhook-secrets-key.ts), and the key's ARN in the
 * environment.
 */
function usesWebhookSecretsKey(grant: Grant, use: 'generate-data-key' | 'decrypt') {
  return ({ fn, who, webhookSecretsKey }: GrantTarget) => {
    if (!webhookSecretsKey) throw new Error(`${who} needs the grant ${grant}, but no webhook secrets key was given.`);
    if (use === 'generate-data-key') webhookSecretsKey.grantGenerateDataKey(fn);
    else webhookSecretsKey.grantDecrypt(fn);
    fn.addEnvironment(WEBHOOK_SECRETS_KEY_ARN.variable, webhookSecretsKey.keyArn);
  };
}

/**
 * The video model and this account's asynchronous invocations, in the stack's region: the model's
 * output bucket must be in the model's region, so the stack is deployed there (its rule
 * VideoModelRegion refuses any other).
 */
function videoModelArns(fn: lambda.Function, videoModel: VideoModelEntry) {
  const stack = Stack.of(fn);
  return {
    model: foundationModelArn(fn, videoModel.id),
    invocations: stack.formatArn({
      service: 'bedrock',
      resource: 'async-invoke',
      resourceName: '*',
      arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
    }),
  };
}

/**
 * Bedrock's async invoke for one model, by `use`. StartAsyncInvoke is authorized as
 * bedrock:InvokeModel on the model (API reference) and creates an `async-invoke` resource, against
 * which Bedrock also checks both actions, so starting names the model and this account's
 * invocations. Polling is GetAsyncInvoke on the invocations only: the poller starts nothing, and
 * Bedrock writes the output with the starter's rights, so the poller writes nothing either. The
 * invocation ids are minted by Bedrock per call, hence `async-invoke/*`; no ListAsyncInvokes (the
 * workers keep each invocation ARN).
 */
function usesVideoModel(grant: Grant, use: 'start' | 'poll') {
  return ({ fn, who, videoModel }: GrantTarget) => {
    if (!videoModel) throw new Error(`${who} needs the grant ${grant}, but no video model was given.`);
    const arns = videoModelArns(fn, videoModel);
    const statement =
      use === 'start'
        ? { actions: ['bedrock:InvokeModel', 'bedrock:StartAsyncInvoke'], resources: [arns.model, arns.invocations] }
        : { actions: ['bedrock:GetAsyncInvoke'], resources: [arns.invocations] };
    fn.addToRolePolicy(new iam.PolicyStatement(statement));
    NagSuppressions.addResourceSuppressions(
      fn.role!,
      [
        {
          id: 'AwsSolutions-IAM5',
          reason: `Bedrock mints each async invocation's id when StartAsyncInvoke runs, so the grant names this account's invocations of the region (async-invoke/*), for ${statement.actions.join(', ')} only.`,
          appliesTo: [
            { regex: '/^Resource::arn:<AWS::Partition>:bedrock:<AWS::Region>:<AWS::AccountId>:async-invoke\\/\\*$/' },
          ],
        },
      ],
      true,
    );
  };
}

/** A foundation model's ARN in the stack's Region. */
function foundationModelArn(fn: lambda.Function, modelId: string): string {
  return Stack.of(fn).formatArn({
    service: 'bedrock',
    account: '',
    resource: 'foundation-model',
    resourceName: modelId,
    arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
  });
}

/**
 * GetFoundationModel of each configured model (the video model, and the text model when the
 * deployment has one), which answers its lifecycle, and their ids in WATCHED_MODEL_IDS.
 */
function describesModels({ fn, who, videoModel, textModel }: GrantTarget): void {
  if (!videoModel) {
    throw new Error(`${who} needs the grant bedrock-control.models:describe, but no video model was given.`);
  }
  const models = [videoModel, ...(textModel ? [textModel] : [])];
  fn.addToRolePolicy(
    new iam.PolicyStatement({
      actions: ['bedrock:GetFoundationModel'],
      resources: models.map((model) => foundationModelArn(fn, model.id)),
    }),
  );
  fn.addEnvironment(WATCHED_MODEL_IDS.variable, models.map((model) => model.id).join(','));
}

/**
 * Converse with the text model through its cross-Region inference profile, which Converse is
 * authorized as (bedrock:InvokeModel): on the profile in the stack's Region, and on the
 * foundation model in whichever Region of the profile's geography Bedrock routes the call to
 * (Bedrock's "IAM policy requirements for Geographic cross-Region inference"), but only through
 * that profile (the condition bedrock:InferenceProfileArn). Bedrock chooses the destination
 * Region per request and may add Regions to a profile, so the model's ARN names any Region. A
 * deployment without a language model gets nothing.
 */
function invokesTextModel({ fn, textModel }: GrantTarget): void {
  if (!textModel) return;
  const stack = Stack.of(fn);
  const profileArn = stack.formatArn({
    service: 'bedrock',
    resource: 'inference-profile',
    resourceName: textModel.inferenceProfile.id,
    arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
  });
  fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['bedrock:InvokeModel'], resources: [profileArn] }));
  fn.addToRolePolicy(
    new iam.PolicyStatement({
      actions: ['bedrock:InvokeModel'],
      resources: [`arn:${stack.partition}:bedrock:*::foundation-model/${textModel.id}`],
      conditions: { StringEquals: { 'bedrock:InferenceProfileArn': profileArn } },
    }),
  );
  NagSuppressions.addResourceSuppressions(
    fn.role!,
    [
      {
        id: 'AwsSolutions-IAM5',
        reason: `Bedrock routes each call of the inference profile ${textModel.inferenceProfile.id} to a Region of its geography that it chooses per request, so the grant names the foundation model ${textModel.id} in any Region (foundation-model ARNs have no account), for bedrock:InvokeModel only and only through the stack's own profile (condition bedrock:InferenceProfileArn).`,
        appliesTo: [
          {
            regex: `/^Resource::arn:<AWS::Partition>:bedrock:\\*::foundation-model\\/${textModel.id.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&')}$/`,
          },
        ],
      },
    ],
    true,
  );
}

/**
 * Amazon Transcribe's jobs are named by the caller (the split job's id), so the grant names this
 * account's transcription jobs in the stack's region, for one action: starting them (the prepare
 * step) or reading them (the poll).
 */
function usesTranscriptionJobs(action: 'transcribe:StartTranscriptionJob' | 'transcribe:GetTranscriptionJob') {
  return ({ fn }: GrantTarget) => {
    const jobsArn = Stack.of(fn).formatArn({
      service: 'transcribe',
      resource: 'transcription-job',
      resourceName: '*',
      arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
    });
    fn.addToRolePolicy(new iam.PolicyStatement({ actions: [action], resources: [jobsArn] }));
    NagSuppressions.addResourceSuppressions(
      fn.role!,
      [
        {
          id: 'AwsSolutions-IAM5',
          reason: `Each transcription job is named after the split job that starts it, known only at run time, so the grant names this account's transcription jobs in the region (transcription-job/*), for ${action} only.`,
          appliesTo: [
            {
              regex:
                '/^Resource::arn:<AWS::Partition>:transcribe:<AWS::Region>:<AWS::AccountId>:transcription-job\\/\\*$/',
            },
          ],
        },
      ],
      true,
    );
  };
}

/**
 * The narrowest policy for each grant of lambdas/grants.ts. A Record, so a new grant does not
 * type-check until it says here what it allows.
 */
export const GRANT_POLICIES: Readonly<Record<Grant, (target: GrantTarget) => void>> = {
  // The presigned URL is signed with the function's credentials, so the function needs the action.
  'media.incoming:put': ({ fn, media }) => media.grantObjects(fn, 'incoming', ['s3:PutObject']),
  // The ranged GetObject that reads an upload (and HeadObject, for an empty one) are both
  // s3:GetObject; DeleteObject removes the upload once copied. Without ListBucket on the whole
  // bucket, GetObject answers 403 for a key nobody uploaded yet, as for a real denial: a listing of
  // exactly that key, allowed under incoming/ only, tells the two apart (isRefusalOfMissingKey in
  // lambdas/domain/assets/media.ts).
  'media.incoming:inspect': ({ fn, media }) => {
    media.grantObjects(fn, 'incoming', ['s3:GetObject', 's3:DeleteObject']);
    media.grantListingUnder(fn, 'incoming');
  },
  'media.assets:get': ({ fn, media }) => media.grantObjects(fn, 'assets', ['s3:GetObject']),
  'media.assets:put': ({ fn, media }) => media.grantObjects(fn, 'assets', ['s3:PutObject']),
  // CreateMultipartUpload, UploadPartCopy and CompleteMultipartUpload are all s3:PutObject; only
  // the abort of a failed copy in parts is an action of its own.
  'media.assets:abort-upload': ({ fn, media }) => media.grantObjects(fn, 'assets', ['s3:AbortMultipartUpload']),
  // The prefix holds every asset, uploads included; no narrower resource names the one finished
  // video a refused finish deletes, whose key is an asset id minted when its job's render starts.
  'media.assets:delete': ({ fn, media }) => media.grantObjects(fn, 'assets', ['s3:DeleteObject']),
  'media.renders:get': ({ fn, media }) => media.grantObjects(fn, 'renders', ['s3:GetObject']),
  // Bedrock names the video it writes under the folder it was given; the poll lists that folder.
  'media.renders:list': ({ fn, media }) => media.grantListingUnder(fn, 'renders'),
  // Bedrock writes the async invoke output with the permissions of the caller of StartAsyncInvoke,
  // so this grant is what lets the render land under renders/.
  'media.renders:put': ({ fn, media }) => media.grantObjects(fn, 'renders', ['s3:PutObject']),
  'media.clips:get': ({ fn, media }) => media.grantObjects(fn, 'clips', ['s3:GetObject']),
  'media.clips:put': ({ fn, media }) => media.grantObjects(fn, 'clips', ['s3:PutObject']),
  'media.clips:delete': ({ fn, media }) => media.grantObjects(fn, 'clips', ['s3:DeleteObject']),
  'media.work:get': ({ fn, media }) => media.grantObjects(fn, 'work', ['s3:GetObject']),
  // Amazon Transcribe writes its output with the caller's permissions, as Bedrock does under renders/.
  'media.work:put': ({ fn, media }) => media.grantObjects(fn, 'work', ['s3:PutObject']),
  'states.video-job:start': startsWorkflow('states.video-job:start'),
  'states.split-job:start': startsWorkflow('states.split-job:start'),
  'states.video-job:stop': stopsWorkflow('states.video-job:stop'),
  'states.split-job:stop': stopsWorkflow('states.split-job:stop'),
  'transcribe.jobs:start': usesTranscriptionJobs('transcribe:StartTranscriptionJob'),
  'transcribe.jobs:poll': usesTranscriptionJobs('transcribe:GetTranscriptionJob'),
  'bedrock.video-model:start': usesVideoModel('bedrock.video-model:start', 'start'),
  'bedrock.video-model:poll': usesVideoModel('bedrock.video-model:poll', 'poll'),
  'bedrock.text-model:invoke': invokesTextModel,
  'bedrock-control.models:describe': describesModels,
  'queue.webhook-deliveries:send': sendsTo('webhook-deliveries'),
  // Sealing a new signing secret needs a new data key only; nothing that seals ever opens one.
  'kms.webhook-secrets:encrypt': usesWebhookSecretsKey('kms.webhook-secrets:encrypt', 'generate-data-key'),
  'kms.webhook-secrets:decrypt': usesWebhookSecretsKey('kms.webhook-secrets:decrypt', 'decrypt'),
  'secrets.cursor-key:read': readsCursorKey,
};

export function applyGrants(grants: readonly Grant[], target: GrantTarget): void {
  for (const grant of grants) GRANT_POLICIES[grant](target);
}
