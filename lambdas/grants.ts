import type { NamedIn, SettingSourceNames } from '#platform/settings';
import type { IndexName } from '#platform/table-design';

/**
 * A DynamoDB action on the table's items, by its IAM name (granted as `dynamodb:<action>`).
 * Transactions have no action of their own: TransactWriteItems is authorized as the PutItem,
 * UpdateItem, DeleteItem and ConditionCheckItem it contains, TransactGetItems as GetItem. No Scan:
 * in a single-table design it reads every organization's items.
 */
export type TableAction =
  | 'GetItem'
  | 'BatchGetItem'
  | 'Query'
  | 'ConditionCheckItem'
  | 'PutItem'
  | 'UpdateItem'
  | 'DeleteItem'
  | 'BatchWriteItem';

/**
 * What a function does with the table, declared by each route, worker and task and granted
 * exactly (lib/constructs/data-table.ts). test/infra/table-access.test.ts derives the same from the
 * function's bundle and fails on any difference, missing or extra.
 */
export interface TableAccess {
  /** The actions on the table's items. */
  readonly table: readonly TableAction[];
  /** The indexes it queries: dynamodb:Query on each of them, and nothing on any other index. */
  readonly tableIndexes?: readonly IndexName[];
}

/**
 * What a function may touch in AWS beyond the table, one name per IAM effect: routes
 * (lambdas/routes.ts), workflow workers (lambdas/workflows.ts) and tasks (lambdas/tasks.ts) list
 * the grants they need and the CDK app turns each into the narrowest policy
 * (lib/constructs/grants.ts). Written `<resource>:<action>`, with a dot in the resource, so that
 * no grant reads like an API key scope.
 *
 * Media bucket layout: `incoming/` holds uploads until confirmed, `assets/` confirmed and
 * generated assets, `renders/` the video provider's scratch output, `clips/` split jobs' clips,
 * `work/` jobs' intermediate files.
 */
export type Grant =
  // PutObject under incoming/: signs the upload URL, whose holder then writes with these rights.
  | 'media.incoming:put'
  // Ranged GetObject, HeadObject and DeleteObject under incoming/, and listings under incoming/.
  | 'media.incoming:inspect'
  // GetObject under assets/: source images, and the download URLs signed with these rights.
  | 'media.assets:get'
  // PutObject under assets/: the target of a confirmation's copy, or of a finished render's.
  | 'media.assets:put'
  // AbortMultipartUpload under assets/: a confirmation's copy in parts that fails is aborted.
  | 'media.assets:abort-upload'
  // DeleteObject under assets/: a finished video copied for a job that ended otherwise meanwhile.
  | 'media.assets:delete'
  // GetObject under renders/: a start image, a render read by ffmpeg, and the source of a copy.
  | 'media.renders:get'
  // ListBucket of keys under renders/: finding the video a provider wrote into a render's folder.
  | 'media.renders:list'
  // PutObject under renders/: the provider writes its output with the rights of its caller.
  | 'media.renders:put'
  // GetObject under clips/: the download URLs of clips, thumbnails and captions.
  | 'media.clips:get'
  // PutObject under clips/: a rendered clip's files.
  | 'media.clips:put'
  // DeleteObject under clips/: a rendered clip's files when the clip was failed meanwhile.
  | 'media.clips:delete'
  // GetObject under work/: a job's intermediate files (analyses, transcripts).
  | 'media.work:get'
  // PutObject under work/: the same, and a transcription's output written with the caller's rights.
  | 'media.work:put'
  // StartExecution of the video job state machine, and its ARN in the environment.
  | 'states.video-job:start'
  // StartExecution of the split job state machine, and its ARN in the environment.
  | 'states.split-job:start'
  // StopExecution of the video job state machine's executions, and its ARN in the environment.
  | 'states.video-job:stop'
  // StopExecution of the split job state machine's executions, and its ARN in the environment.
  | 'states.split-job:stop'
  // Start Amazon Transcribe transcription jobs.
  | 'transcribe.jobs:start'
  // Read the status of Amazon Transcribe transcription jobs.
  | 'transcribe.jobs:poll'
  // Start asynchronous invocations of the configured video model (Bedrock).
  | 'bedrock.video-model:start'
  // Read the status of the video model's asynchronous invocations.
  | 'bedrock.video-model:poll'
  // Converse with the configured text model through its cross-Region inference profile (bedrock:InvokeModel).
  | 'bedrock.text-model:invoke'
  // Read the configured models' documented lifecycles (GetFoundationModel, Bedrock's control plane), and their ids in the environment.
  | 'bedrock-control.models:describe'
  // SendMessage to the webhook deliveries queue, and its URL in the environment.
  | 'queue.webhook-deliveries:send'
  // GenerateDataKey with the key that wraps webhook signing secrets, and its ARN in the environment.
  | 'kms.webhook-secrets:encrypt'
  // Decrypt with the same key (a delivery unwraps its endpoint's data key), and its ARN in the environment.
  | 'kms.webhook-secrets:decrypt'
  // GetSecretValue of the key that signs list cursors (current and previous versions), and its ARN in the environment.
  | 'secrets.cursor-key:read';

/** The grants lambdas/platform/settings.ts names as what sets a variable: each one a Grant. */
export type SettingGrants = NamedIn<SettingSourceNames['grant'], Grant>;
