import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Grant, TableAccess } from '#grants';
import { FALLBACK_HANDLER, FALLBACK_TABLE_ACCESS, ROUTES } from '#routes';
import { TASKS, type TaskTrigger } from '#tasks';
import { WORKFLOWS } from '#workflows';
import { DEFAULT_TEXT_MODEL_ID, DEFAULT_VIDEO_MODEL_ID } from '#domain/models/model-registry';
import { asText, synthesizedStack } from './fixtures';

// One synthesized stack for the file: synthesis is the slow part.
const { stack, template, logicalIdOf } = synthesizedStack();

const functionResources = template.findResources('AWS::Lambda::Function');
const roles = template.findResources('AWS::IAM::Role');
const policies = {
  ...template.findResources('AWS::IAM::Policy'),
  ...template.findResources('AWS::IAM::ManagedPolicy'),
};

interface PolicyStatement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: Record<string, unknown>;
}

/** JSON with object keys sorted, so that two equal conditions print alike. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).sort(([a], [b]) => a.localeCompare(b));
    return `{${entries.map(([key, inner]) => `${JSON.stringify(key)}:${canonical(inner)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

const listOf = <T>(value: T | T[]): T[] => (Array.isArray(value) ? value : [value]);

/**
 * Everything the function's role allows, one `action resource [if condition]` per pair, from every
 * policy that applies to the role: inline in the role, or a policy resource attached to it.
 */
function permissionsOf(fn: lambda.IFunction): string[] {
  const roleId = logicalIdOf(fn.role as never);
  const role = roles[roleId]!;
  expect(role.Properties.ManagedPolicyArns).toBeUndefined();
  const statements: PolicyStatement[] = [
    ...((role.Properties.Policies ?? []) as { PolicyDocument: { Statement: PolicyStatement[] } }[]).flatMap(
      (policy) => policy.PolicyDocument.Statement,
    ),
    ...Object.values(policies)
      .filter((policy) =>
        ((policy.Properties.Roles ?? []) as unknown[]).some((ref) => canonical(ref) === canonical({ Ref: roleId })),
      )
      .flatMap((policy) => policy.Properties.PolicyDocument.Statement as PolicyStatement[]),
  ];
  const permissions = statements.flatMap((statement) => {
    expect(statement.Effect).toBe('Allow');
    const condition = statement.Condition ? ` if ${canonical(statement.Condition)}` : '';
    return listOf(statement.Action).flatMap((action) =>
      listOf(statement.Resource).map((resource) => `${action} ${asText(resource)}${condition}`),
    );
  });
  return [...new Set(permissions)].sort();
}

const TABLE = `<${logicalIdOf(stack.table.table)}.Arn>`;
const TABLE_STREAM = `<${logicalIdOf(stack.table.table)}.StreamArn>`;
const BUCKET = `<${logicalIdOf(stack.media.bucket)}.Arn>`;
const INCOMING_LISTINGS = `if ${canonical({ StringLike: { 's3:prefix': 'incoming/*' } })}`;
const RENDERS_LISTINGS = `if ${canonical({ StringLike: { 's3:prefix': 'renders/*' } })}`;
const MODEL = `arn:<AWS::Partition>:bedrock:<AWS::Region>::foundation-model/${DEFAULT_VIDEO_MODEL_ID}`;
const TEXT_MODEL = `arn:<AWS::Partition>:bedrock:<AWS::Region>::foundation-model/${DEFAULT_TEXT_MODEL_ID}`;
const TEXT_PROFILE = `arn:<AWS::Partition>:bedrock:<AWS::Region>:<AWS::AccountId>:inference-profile/us.${DEFAULT_TEXT_MODEL_ID}`;
/** The profile's ARN in a condition, which keeps its CloudFormation form. */
const THROUGH_TEXT_PROFILE = `if ${canonical({
  StringEquals: {
    'bedrock:InferenceProfileArn': {
      'Fn::Join': [
        '',
        [
          'arn:',
          { Ref: 'AWS::Partition' },
          ':bedrock:',
          { Ref: 'AWS::Region' },
          ':',
          { Ref: 'AWS::AccountId' },
          `:inference-profile/us.${DEFAULT_TEXT_MODEL_ID}`,
        ],
      ],
    },
  },
})}`;
const INVOCATIONS = 'arn:<AWS::Partition>:bedrock:<AWS::Region>:<AWS::AccountId>:async-invoke/*';
const TRANSCRIPTION_JOBS = 'arn:<AWS::Partition>:transcribe:<AWS::Region>:<AWS::AccountId>:transcription-job/*';
const DELIVERIES = `<${logicalIdOf(stack.queues.queues.get('webhook-deliveries')!.queue)}.Arn>`;
const SECRETS_KEY = `<${logicalIdOf(stack.webhookSecretsKey.key)}.Arn>`;
const SECRETS_KEY_CONTEXT = `if ${canonical({
  'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': ['organization_id', 'webhook_id'] },
  Null: { 'kms:EncryptionContextKeys': 'false' },
})}`;
const CURSOR_KEY = `<${logicalIdOf(stack.cursorKey.secret)}>`;
const stateMachine = (name: string) =>
  `<${logicalIdOf(stack.workflows.find(({ workflow }) => workflow.name === name)!.stateMachine)}>`;
/** Every execution of the workflow's state machine (named in its ARN's seventh part), and no other machine's. */
const execution = (name: string) =>
  `arn:<AWS::Partition>:states:<AWS::Region>:<AWS::AccountId>:execution:${stateMachine(name)}.split(":")[6]:*`;

/** What each grant must become, written out here rather than taken from lib/constructs/grants.ts. */
const GRANT_PERMISSIONS: Readonly<Record<Grant, readonly string[]>> = {
  'media.incoming:put': [`s3:PutObject ${BUCKET}/incoming/*`],
  'media.incoming:inspect': [
    `s3:GetObject ${BUCKET}/incoming/*`,
    `s3:DeleteObject ${BUCKET}/incoming/*`,
    `s3:ListBucket ${BUCKET} ${INCOMING_LISTINGS}`,
  ],
  'media.assets:get': [`s3:GetObject ${BUCKET}/assets/*`],
  'media.assets:put': [`s3:PutObject ${BUCKET}/assets/*`],
  'media.assets:abort-upload': [`s3:AbortMultipartUpload ${BUCKET}/assets/*`],
  'media.assets:delete': [`s3:DeleteObject ${BUCKET}/assets/*`],
  'media.renders:get': [`s3:GetObject ${BUCKET}/renders/*`],
  'media.renders:list': [`s3:ListBucket ${BUCKET} ${RENDERS_LISTINGS}`],
  'media.renders:put': [`s3:PutObject ${BUCKET}/renders/*`],
  'media.clips:get': [`s3:GetObject ${BUCKET}/clips/*`],
  'media.clips:put': [`s3:PutObject ${BUCKET}/clips/*`],
  'media.clips:delete': [`s3:DeleteObject ${BUCKET}/clips/*`],
  'media.work:get': [`s3:GetObject ${BUCKET}/work/*`],
  'media.work:put': [`s3:PutObject ${BUCKET}/work/*`],
  'states.video-job:start': [`states:StartExecution ${stateMachine('video-job')}`],
  'states.split-job:start': [`states:StartExecution ${stateMachine('split-job')}`],
  'states.video-job:stop': [`states:StopExecution ${execution('video-job')}`],
  'states.split-job:stop': [`states:StopExecution ${execution('split-job')}`],
  'transcribe.jobs:start': [`transcribe:StartTranscriptionJob ${TRANSCRIPTION_JOBS}`],
  'transcribe.jobs:poll': [`transcribe:GetTranscriptionJob ${TRANSCRIPTION_JOBS}`],
  'bedrock.video-model:start': [
    `bedrock:InvokeModel ${MODEL}`,
    `bedrock:InvokeModel ${INVOCATIONS}`,
    `bedrock:StartAsyncInvoke ${MODEL}`,
    `bedrock:StartAsyncInvoke ${INVOCATIONS}`,
  ],
  'bedrock.video-model:poll': [`bedrock:GetAsyncInvoke ${INVOCATIONS}`],
  'bedrock.text-model:invoke': [
    `bedrock:InvokeModel ${TEXT_PROFILE}`,
    `bedrock:InvokeModel arn:<AWS::Partition>:bedrock:*::foundation-model/${DEFAULT_TEXT_MODEL_ID} ${THROUGH_TEXT_PROFILE}`,
  ],
  'bedrock-control.models:describe': [
    `bedrock:GetFoundationModel ${MODEL}`,
    `bedrock:GetFoundationModel ${TEXT_MODEL}`,
  ],
  'queue.webhook-deliveries:send': [`sqs:SendMessage ${DELIVERIES}`],
  'kms.webhook-secrets:encrypt': [`kms:GenerateDataKey ${SECRETS_KEY} ${SECRETS_KEY_CONTEXT}`],
  'kms.webhook-secrets:decrypt': [`kms:Decrypt ${SECRETS_KEY} ${SECRETS_KEY_CONTEXT}`],
  'secrets.cursor-key:read': [`secretsmanager:GetSecretValue ${CURSOR_KEY}`],
};

/** Writing to its own log group and sending traces: what every function may do. */
function logsAndTraces(fn: lambda.IFunction): string[] {
  const logGroup = `<${functionResources[logicalIdOf(fn)]!.Properties.LoggingConfig.LogGroup.Ref}.Arn>`;
  return [
    `logs:CreateLogStream ${logGroup}`,
    `logs:PutLogEvents ${logGroup}`,
    'xray:PutTelemetryRecords *',
    'xray:PutTraceSegments *',
  ];
}

/** What Lambda needs of a task's role for its trigger: an event source mapping's reads, a dead-letter queue's sends. */
function triggerPermissions(taskName: string, trigger: TaskTrigger): string[] {
  switch (trigger.kind) {
    case 'table-stream': {
      const failures = `<${logicalIdOf(stack.tasks.streamFailureQueues.get(taskName)!)}.Arn>`;
      return [
        'dynamodb:ListStreams *',
        `dynamodb:DescribeStream ${TABLE_STREAM}`,
        `dynamodb:GetRecords ${TABLE_STREAM}`,
        `dynamodb:GetShardIterator ${TABLE_STREAM}`,
        `sqs:SendMessage ${failures}`,
        `sqs:GetQueueAttributes ${failures}`,
        `sqs:GetQueueUrl ${failures}`,
      ];
    }
    case 'queue': {
      const queue = `<${logicalIdOf(stack.queues.queues.get(trigger.queue)!.queue)}.Arn>`;
      return ['ChangeMessageVisibility', 'DeleteMessage', 'GetQueueAttributes', 'GetQueueUrl', 'ReceiveMessage'].map(
        (action) => `sqs:${action} ${queue}`,
      );
    }
    case 'execution-ended':
      // Lambda sends an ending that failed its retries to the function's dead-letter queue with its role.
      return [`sqs:SendMessage <${logicalIdOf(stack.tasks.endingDeadLetterQueues.get(taskName)!)}.Arn>`];
    case 'schedule':
      return [];
  }
}

function tablePermissions(access: TableAccess): string[] {
  return [
    ...access.table.map((action) => `dynamodb:${action} ${TABLE}`),
    ...(access.tableIndexes ?? []).map((indexName) => `dynamodb:Query ${TABLE}/index/${indexName}`),
  ];
}

interface DeclaredFunction {
  readonly name: string;
  readonly fn: lambda.IFunction;
  readonly access: TableAccess;
  readonly grants: readonly Grant[];
  readonly extra: string[];
}

const apiFunction = (name: string) => stack.httpApi.functions.get(name)!;
const worker = (workflow: string, substitution: string) =>
  stack.workflows.find((deployed) => deployed.workflow.name === workflow)!.workers.get(substitution)!;
const task = (name: string) => stack.tasks.functions.get(name)!;

const DECLARED: DeclaredFunction[] = [
  ...ROUTES.map((route) => ({
    name: `${route.method} ${route.path}`,
    fn: apiFunction(route.operationId),
    access: route,
    grants: route.grants,
    extra: [],
  })),
  { name: '$default', fn: apiFunction(FALLBACK_HANDLER), access: FALLBACK_TABLE_ACCESS, grants: [], extra: [] },
  ...WORKFLOWS.flatMap((workflow) =>
    Object.entries(workflow.workers).map(([substitution, declared]) => ({
      name: `${workflow.name} ${substitution}`,
      fn: worker(workflow.name, substitution),
      access: declared,
      grants: declared.grants,
      extra: [],
    })),
  ),
  ...TASKS.map((declared) => ({
    name: `task ${declared.name}`,
    fn: task(declared.name),
    access: declared,
    grants: declared.grants,
    extra: triggerPermissions(declared.name, declared.trigger),
  })),
];

describe('every function may do exactly what its declarations imply', () => {
  test('the declarations cover every function of the stack', () => {
    expect(DECLARED.map(({ fn }) => logicalIdOf(fn)).sort()).toEqual(Object.keys(functionResources).sort());
  });

  test.each(DECLARED.map((declared) => [declared.name, declared] as const))('%s', (name, declared) => {
    const expected = [
      ...logsAndTraces(declared.fn),
      ...tablePermissions(declared.access),
      ...declared.grants.flatMap((grant) => GRANT_PERMISSIONS[grant]),
      ...declared.extra,
    ];
    expect({ name, permissions: permissionsOf(declared.fn) }).toEqual({
      name,
      permissions: [...new Set(expected)].sort(),
    });
  });
});

describe('what representative functions may do, written out', () => {
  test('GET /me reads (one by one or in a batch) and updates table items (the key, the organization, the rate counters), nothing else', () => {
    const fn = apiFunction('getMe');
    expect(permissionsOf(fn)).toEqual(
      [
        `dynamodb:GetItem ${TABLE}`,
        `dynamodb:BatchGetItem ${TABLE}`,
        `dynamodb:UpdateItem ${TABLE}`,
        ...logsAndTraces(fn),
      ].sort(),
    );
  });

  test('POST /assets/confirm-upload inspects and removes uploads, lists under incoming/ only, and writes assets', () => {
    const fn = apiFunction('confirmAssetUpload');
    expect(permissionsOf(fn)).toEqual(
      [
        `dynamodb:GetItem ${TABLE}`,
        `dynamodb:BatchGetItem ${TABLE}`,
        `dynamodb:UpdateItem ${TABLE}`,
        `s3:GetObject ${BUCKET}/incoming/*`,
        `s3:DeleteObject ${BUCKET}/incoming/*`,
        `s3:ListBucket ${BUCKET} if {"StringLike":{"s3:prefix":"incoming/*"}}`,
        `s3:PutObject ${BUCKET}/assets/*`,
        `s3:AbortMultipartUpload ${BUCKET}/assets/*`,
        ...logsAndTraces(fn),
      ].sort(),
    );
  });

  test('StartRender starts a render from its start image (its output written under renders/ with these rights) and moves the job', () => {
    const fn = worker('video-job', 'StartRenderFunction');
    expect(permissionsOf(fn)).toEqual(
      [
        `dynamodb:GetItem ${TABLE}`,
        `dynamodb:UpdateItem ${TABLE}`,
        `dynamodb:PutItem ${TABLE}`,
        `dynamodb:DeleteItem ${TABLE}`,
        `s3:GetObject ${BUCKET}/assets/*`,
        `s3:GetObject ${BUCKET}/renders/*`,
        `s3:PutObject ${BUCKET}/renders/*`,
        `bedrock:InvokeModel ${MODEL}`,
        `bedrock:InvokeModel ${INVOCATIONS}`,
        `bedrock:StartAsyncInvoke ${MODEL}`,
        `bedrock:StartAsyncInvoke ${INVOCATIONS}`,
        ...logsAndTraces(fn),
      ].sort(),
    );
  });

  test('PollRender reads the invocation, finds the video it wrote, and records progress; it starts and writes nothing', () => {
    const fn = worker('video-job', 'PollRenderFunction');
    expect(permissionsOf(fn)).toEqual(
      [
        `dynamodb:GetItem ${TABLE}`,
        `dynamodb:UpdateItem ${TABLE}`,
        `s3:ListBucket ${BUCKET} ${RENDERS_LISTINGS}`,
        `bedrock:GetAsyncInvoke ${INVOCATIONS}`,
        ...logsAndTraces(fn),
      ].sort(),
    );
  });

  test('PollTranscription reads the transcription and its output and writes the transcript; it never touches the table', () => {
    const fn = worker('split-job', 'PollTranscriptionFunction');
    expect(permissionsOf(fn)).toEqual(
      [
        `transcribe:GetTranscriptionJob ${TRANSCRIPTION_JOBS}`,
        `s3:GetObject ${BUCKET}/work/*`,
        `s3:PutObject ${BUCKET}/work/*`,
        ...logsAndTraces(fn),
      ].sort(),
    );
  });

  test('deliver-webhooks consumes the deliveries queue, opens secrets under their context, and updates deliveries', () => {
    const fn = task('deliver-webhooks');
    expect(permissionsOf(fn)).toEqual(
      [
        `dynamodb:GetItem ${TABLE}`,
        `dynamodb:UpdateItem ${TABLE}`,
        `kms:Decrypt ${SECRETS_KEY} ${SECRETS_KEY_CONTEXT}`,
        `sqs:SendMessage ${DELIVERIES}`,
        `sqs:ReceiveMessage ${DELIVERIES}`,
        `sqs:DeleteMessage ${DELIVERIES}`,
        `sqs:ChangeMessageVisibility ${DELIVERIES}`,
        `sqs:GetQueueAttributes ${DELIVERIES}`,
        `sqs:GetQueueUrl ${DELIVERIES}`,
        ...logsAndTraces(fn),
      ].sort(),
    );
  });

  test('reconcile-jobs queries the active-jobs index and no other, and may start every workflow and stop its executions', () => {
    const fn = task('reconcile-jobs');
    expect(permissionsOf(fn)).toEqual(
      [
        `dynamodb:GetItem ${TABLE}`,
        `dynamodb:UpdateItem ${TABLE}`,
        `dynamodb:PutItem ${TABLE}`,
        `dynamodb:DeleteItem ${TABLE}`,
        `dynamodb:Query ${TABLE}`,
        `dynamodb:Query ${TABLE}/index/active-jobs`,
        `states:StartExecution ${stateMachine('video-job')}`,
        `states:StartExecution ${stateMachine('split-job')}`,
        `states:StopExecution ${execution('video-job')}`,
        `states:StopExecution ${execution('split-job')}`,
        ...logsAndTraces(fn),
      ].sort(),
    );
  });
});
