/**
 * What a function may touch in AWS beyond the table, one name per IAM effect: routes
 * (lambdas/routes.ts) and workflow workers (lambdas/workflows.ts) list the grants they need and
 * the CDK app turns each into the narrowest policy (lib/constructs/grants.ts). Written
 * `<resource>:<action>`, with a dot in the resource, so that no grant reads like an API key scope.
 *
 * Media bucket layout: `incoming/` holds uploads until confirmed, `assets/` confirmed and
 * generated assets, `renders/` the video provider's scratch output.
 */
export type Grant =
  // PutObject under incoming/: signs the upload URL, whose holder then writes with these rights.
  | 'media.incoming:put'
  // HeadObject, ranged GetObject and DeleteObject under incoming/, and ListBucket.
  | 'media.incoming:inspect'
  // GetObject under assets/: source images, and the download URLs signed with these rights.
  | 'media.assets:get'
  // PutObject under assets/: the target of a confirmation's copy, or of a finished render's.
  | 'media.assets:put'
  // AbortMultipartUpload under assets/: a confirmation's copy in parts that fails is aborted.
  | 'media.assets:abort-upload'
  // GetObject under renders/: a finished render's HeadObject, and the source of its copy.
  | 'media.renders:get'
  // PutObject under renders/: the provider writes its output with the rights of its caller.
  | 'media.renders:put'
  // StartExecution of the video job state machine, and its ARN in the environment.
  | 'states.video-job:start'
  // Start and read the configured video model's asynchronous invocations (Bedrock).
  | 'bedrock.video-model:invoke'
  // GetSecretValue of the key that signs list cursors (current and previous versions), and its ARN in the environment.
  | 'secrets.cursor-key:read';
