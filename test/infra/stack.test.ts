import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { ACCESS_LOG_FIELDS } from '../../lib/constructs/http-api';
import type { OperationId } from '#contract/types';
import type { Grant } from '#grants';
import { API_PREFIX } from '#platform/api-prefix';
import { FALLBACK_HANDLER, ROUTES, type Route } from '#routes';
import { SETTINGS, WEBHOOK_SECRETS_KEY_ARN } from '#platform/settings';
import { TABLE_DESIGN } from '#platform/table-design';
import { QUEUES } from '#queues';
import { TASKS } from '#tasks';
import { WORKFLOWS, workflowOfJobType } from '#workflows';
import {
  ApiOnlyStack,
  actionsOf,
  appWithoutBundling,
  asText,
  assemblyOutdir,
  logicalIdIn,
  policyStatements,
  resourcesOf,
  statementsOfFunction,
  synthesizedStack,
  type Statement,
} from './fixtures';

const VIDEO_JOB_STATE_MACHINE_ARN_ENV = workflowOfJobType('video').arnSetting.variable;

// One synthesized stack for the whole file: synthesis is the slow part.
const { stack, template, logicalIdOf } = synthesizedStack();

function isS3Statement(statement: Statement): boolean {
  return actionsOf(statement).some((action) => action.startsWith('s3:'));
}

const SERVICE_WILDCARDS = ['s3:*', 'dynamodb:*', 'states:*', 'bedrock:*', 'lambda:*', 'logs:*'];

/** Statements granting a whole service, or S3 actions on every resource. */
function broadStatements(statements: Statement[]): Statement[] {
  return statements.filter(
    (statement) =>
      actionsOf(statement).some((action) => SERVICE_WILDCARDS.includes(action)) ||
      (isS3Statement(statement) && resourcesOf(statement).includes('*')),
  );
}

const WORKER_COUNT = WORKFLOWS.reduce((count, workflow) => count + Object.keys(workflow.workers).length, 0);

describe('Lambda functions', () => {
  const functions = template.findResources('AWS::Lambda::Function');
  /** The API functions only (workers are checked in workflows.test.ts), by operationId. */
  const apiFunctions = new Map([...stack.httpApi.functions].map(([name, fn]) => [name, functions[logicalIdOf(fn)]!]));

  test('there is one function per route of the route table plus the fallback, besides the workflow workers and the tasks', () => {
    expect(Object.keys(functions)).toHaveLength(ROUTES.length + 1 + WORKER_COUNT + TASKS.length);
    expect([...stack.httpApi.functions.keys()].sort()).toEqual(
      [...ROUTES.map((route) => route.operationId), FALLBACK_HANDLER].sort(),
    );
  });

  test('every API function runs Node 24 with tracing, 512 MB and a timeout under the 30 s API limit, on arm64 unless it runs ffmpeg', () => {
    for (const [name, resource] of apiFunctions) {
      const mediaTools = ROUTES.some((route) => route.operationId === name && route.mediaTools);
      expect(resource.Properties).toMatchObject({
        Runtime: 'nodejs24.x',
        Architectures: [mediaTools ? 'x86_64' : 'arm64'],
        MemorySize: 512,
        Timeout: 29,
        TracingConfig: { Mode: 'Active' },
        Handler: 'index.handler',
      });
    }
  });

  test('every API function knows the table, the media bucket, its log level and loads source maps; only starters and stoppers know a state machine, only readers the cursor key, only ffmpeg users the media tools, only the pricing route the video credit rates', () => {
    const tableRef = { Ref: logicalIdOf(stack.table.table) };
    const bucketRef = { Ref: logicalIdOf(stack.media.bucket) };
    for (const [name, resource] of apiFunctions) {
      const route = ROUTES.find((candidate) => candidate.operationId === name);
      const holds = (grant: Grant) => route?.grants.includes(grant) ?? false;
      const machines = stack.workflows.filter(
        ({ workflow }) => holds(workflow.startGrant) || holds(workflow.stopGrant),
      );
      expect(resource.Properties.Environment.Variables).toEqual({
        NODE_OPTIONS: '--enable-source-maps',
        TABLE_NAME: tableRef,
        MEDIA_BUCKET_NAME: bucketRef,
        LOG_LEVEL: 'info',
        METRICS_NAMESPACE: 'VideoAutomationApi/VideoApiStack',
        ...Object.fromEntries(
          machines.map(({ workflow, stateMachine }) => [
            workflow.arnSetting.variable,
            { Ref: logicalIdOf(stateMachine) },
          ]),
        ),
        ...(route?.mediaTools ? { FFMPEG_PATH: '/opt/bin/ffmpeg', FFPROBE_PATH: '/opt/bin/ffprobe' } : {}),
        ...(route?.settings?.includes('video-pricing')
          ? { VIDEO_CREDITS_PER_SECOND: '{"text_to_video":2,"image_to_video":3}' }
          : {}),
        ...(holds('secrets.cursor-key:read')
          ? { CURSOR_KEY_SECRET_ARN: { Ref: logicalIdOf(stack.cursorKey.secret) } }
          : {}),
        ...(holds('kms.webhook-secrets:encrypt') || holds('kms.webhook-secrets:decrypt')
          ? {
              [WEBHOOK_SECRETS_KEY_ARN.variable]: { 'Fn::GetAtt': [logicalIdOf(stack.webhookSecretsKey.key), 'Arn'] },
            }
          : {}),
        ...Object.fromEntries(
          QUEUES.filter((queue) => holds(queue.sendGrant)).map((queue) => [
            queue.urlSetting.variable,
            { Ref: logicalIdOf(stack.queues.queues.get(queue.name)!.queue) },
          ]),
        ),
      });
    }
    expect(
      apiFunctions.get('createVideoJob')!.Properties.Environment.Variables[VIDEO_JOB_STATE_MACHINE_ARN_ENV],
    ).toBeDefined();
    expect(
      apiFunctions.get('createSplitJob')!.Properties.Environment.Variables.SPLIT_JOB_STATE_MACHINE_ARN,
    ).toBeDefined();
    expect(
      apiFunctions.get('createWebhook')!.Properties.Environment.Variables[WEBHOOK_SECRETS_KEY_ARN.variable],
    ).toBeDefined();
  });

  test('every variable a function is given is a setting of lambdas/platform/settings.ts that AWS sets, and none only the local stack sets', () => {
    const setInAws = new Set<string>(
      Object.values(SETTINGS)
        .filter(({ source }) => source.by !== 'local-stack' && source.by !== 'lambda')
        .map(({ variable }) => variable),
    );
    const given = new Set(
      Object.values(functions).flatMap((resource) => Object.keys(resource.Properties.Environment?.Variables ?? {})),
    );
    given.delete('NODE_OPTIONS');
    expect([...given].filter((variable) => !setInAws.has(variable))).toEqual([]);
    expect([...setInAws].filter((variable) => !given.has(variable))).toEqual([]);
  });

  test('ffmpeg and ffprobe come in one layer for x86-64, attached exactly to the functions that run them', () => {
    const layers = Object.entries(template.findResources('AWS::Lambda::LayerVersion')).filter(([, layer]) =>
      String(layer.Properties.Description).startsWith('ffmpeg'),
    );
    expect(layers.map(([, layer]) => layer.Properties.CompatibleArchitectures)).toEqual([['x86_64']]);
    const layerRef = JSON.stringify({ Ref: layers[0]![0] });
    const users = Object.entries(functions)
      .filter(([, resource]) =>
        (resource.Properties.Layers ?? []).some((layer: unknown) => JSON.stringify(layer) === layerRef),
      )
      .map(([id]) => id)
      .sort();
    const expected = [
      ...ROUTES.filter((route) => route.mediaTools).map((route) => stack.httpApi.functions.get(route.operationId)!),
      ...stack.workflows.flatMap(({ workflow, workers }) =>
        Object.entries(workflow.workers)
          .filter(([, worker]) => worker.mediaTools)
          .map(([substitution]) => workers.get(substitution)!),
      ),
    ]
      .map((fn) => logicalIdOf(fn))
      .sort();
    expect(users).toEqual(expected);
    expect(Object.values(functions).filter((resource) => resource.Properties.Layers).length).toBe(expected.length);
  });

  test('every function logs to its own log group kept for a month', () => {
    const logGroupIds = Object.values(functions).map((resource) => resource.Properties.LoggingConfig.LogGroup.Ref);
    expect(new Set(logGroupIds).size).toBe(logGroupIds.length);
    const logGroups = template.findResources('AWS::Logs::LogGroup');
    for (const id of logGroupIds) {
      expect(logGroups[id]?.Properties.RetentionInDays).toBe(30);
    }
  });

  test('no execution role carries an AWS managed policy', () => {
    const roles = template.findResources('AWS::IAM::Role', {
      Properties: {
        AssumeRolePolicyDocument: Match.objectLike({
          Statement: [Match.objectLike({ Principal: { Service: 'lambda.amazonaws.com' } })],
        }),
      },
    });
    expect(Object.keys(roles)).toHaveLength(ROUTES.length + 1 + WORKER_COUNT + TASKS.length);
    for (const role of Object.values(roles)) expect(role.Properties.ManagedPolicyArns).toBeUndefined();
  });
});

describe('HTTP API', () => {
  test('every route of the route table is a route key below the API prefix, plus $default', () => {
    const routeKeys = Object.values(template.findResources('AWS::ApiGatewayV2::Route')).map(
      (resource) => resource.Properties.RouteKey,
    );
    const expected = [...ROUTES.map((route) => `${route.method} ${API_PREFIX}${route.path}`), '$default'];
    expect(routeKeys.sort()).toEqual(expected.sort());
  });

  test('every route has no API Gateway authorizer (authentication runs in the handlers)', () => {
    for (const resource of Object.values(template.findResources('AWS::ApiGatewayV2::Route'))) {
      expect(resource.Properties.AuthorizationType ?? 'NONE').toBe('NONE');
    }
  });

  test('$default reaches the fallback function', () => {
    const fallback = stack.httpApi.functions.get(FALLBACK_HANDLER)!;
    const [defaultRoute] = Object.values(
      template.findResources('AWS::ApiGatewayV2::Route', { Properties: { RouteKey: '$default' } }),
    );
    const integrationId = (defaultRoute!.Properties.Target['Fn::Join'][1] as unknown[])[1] as { Ref: string };
    template.hasResource('AWS::ApiGatewayV2::Integration', {
      Properties: Match.objectLike({ IntegrationUri: { 'Fn::GetAtt': [logicalIdOf(fallback), 'Arn'] } }),
    });
    expect(
      template.findResources('AWS::ApiGatewayV2::Integration')[integrationId.Ref]?.Properties.IntegrationUri,
    ).toEqual({
      'Fn::GetAtt': [logicalIdOf(fallback), 'Arn'],
    });
  });

  test('integrations are Lambda proxies with payload format 2.0, invoked with the integration role', () => {
    const integrations = Object.values(template.findResources('AWS::ApiGatewayV2::Integration'));
    expect(integrations).toHaveLength(ROUTES.length + 1);
    for (const integration of integrations) {
      expect(integration.Properties).toMatchObject({
        IntegrationType: 'AWS_PROXY',
        PayloadFormatVersion: '2.0',
        CredentialsArn: { 'Fn::GetAtt': [logicalIdOf(stack.httpApi.integrationRole), 'Arn'] },
      });
    }
  });

  test('no function has a resource-based permission for API Gateway: the integration role may invoke exactly the API functions', () => {
    const permissions = Object.values(template.findResources('AWS::Lambda::Permission'));
    expect(permissions.filter((permission) => permission.Properties.Principal === 'apigateway.amazonaws.com')).toEqual(
      [],
    );
    const role = template.findResources('AWS::IAM::Role')[logicalIdOf(stack.httpApi.integrationRole)]!;
    expect(role.Properties.AssumeRolePolicyDocument.Statement).toEqual([
      { Action: 'sts:AssumeRole', Effect: 'Allow', Principal: { Service: 'apigateway.amazonaws.com' } },
    ]);
    const statements = policyStatements(template).filter((statement) =>
      statement.roles.some(
        (ref) => JSON.stringify(ref) === JSON.stringify({ Ref: logicalIdOf(stack.httpApi.integrationRole) }),
      ),
    );
    expect(statements.flatMap(actionsOf)).toEqual(['lambda:InvokeFunction']);
    expect(statements.flatMap(resourcesOf).map(asText).sort()).toEqual(
      [...stack.httpApi.functions.values()].map((fn) => `<${logicalIdOf(fn)}.Arn>`).sort(),
    );
  });

  test('the $default stage auto-deploys, throttles and writes JSON access logs with the standard fields', () => {
    const [stage] = Object.values(template.findResources('AWS::ApiGatewayV2::Stage'));
    expect(stage!.Properties).toMatchObject({
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingBurstLimit: 200, ThrottlingRateLimit: 100 },
      AccessLogSettings: { DestinationArn: { 'Fn::GetAtt': [logicalIdOf(stack.httpApi.accessLogGroup), 'Arn'] } },
    });
    const format = JSON.parse(stage!.Properties.AccessLogSettings.Format);
    expect(format).toEqual(ACCESS_LOG_FIELDS);
    expect(format).toMatchObject({
      requestId: '$context.requestId',
      ip: '$context.identity.sourceIp',
      requestTime: '$context.requestTime',
      httpMethod: '$context.httpMethod',
      routeKey: '$context.routeKey',
      status: '$context.status',
      protocol: '$context.protocol',
      responseLength: '$context.responseLength',
      integrationLatency: '$context.integrationLatency',
      integrationErrorMessage: '$context.integrationErrorMessage',
    });
  });

  test('there is no CORS configuration (keys are server-only)', () => {
    const [api] = Object.values(template.findResources('AWS::ApiGatewayV2::Api'));
    expect(api!.Properties.CorsConfiguration).toBeUndefined();
  });

  test('the ApiUrl output is the execute-api endpoint followed by /api/v1/developer', () => {
    const outputs = template.findOutputs('*');
    expect(outputs.ApiUrl?.Value).toEqual({
      'Fn::Join': ['', [{ 'Fn::GetAtt': [logicalIdOf(stack.httpApi.api), 'ApiEndpoint'] }, API_PREFIX]],
    });
    expect(outputs.TableName?.Value).toEqual({ Ref: logicalIdOf(stack.table.table) });
    expect(outputs.MediaBucketName?.Value).toEqual({ Ref: logicalIdOf(stack.media.bucket) });
  });
});

describe('DynamoDB table', () => {
  test('has the keys, GSIs and TTL of TABLE_DESIGN, on-demand, with PITR, encryption, deletion protection and a stream of new images', () => {
    const matching = template.findResources('AWS::DynamoDB::Table', {
      Properties: {
        KeySchema: [
          { AttributeName: TABLE_DESIGN.partitionKey, KeyType: 'HASH' },
          { AttributeName: TABLE_DESIGN.sortKey, KeyType: 'RANGE' },
        ],
        AttributeDefinitions: Match.arrayWith([
          { AttributeName: TABLE_DESIGN.partitionKey, AttributeType: 'S' },
          { AttributeName: TABLE_DESIGN.sortKey, AttributeType: 'S' },
          { AttributeName: TABLE_DESIGN.gsi1.partitionKey, AttributeType: 'S' },
          { AttributeName: TABLE_DESIGN.gsi1.sortKey, AttributeType: 'S' },
          { AttributeName: TABLE_DESIGN.activeJobs.partitionKey, AttributeType: 'S' },
          { AttributeName: TABLE_DESIGN.activeJobs.sortKey, AttributeType: 'S' },
          { AttributeName: TABLE_DESIGN.outbox.partitionKey, AttributeType: 'S' },
          { AttributeName: TABLE_DESIGN.outbox.sortKey, AttributeType: 'S' },
        ]),
        GlobalSecondaryIndexes: [
          {
            IndexName: TABLE_DESIGN.gsi1.indexName,
            KeySchema: [
              { AttributeName: TABLE_DESIGN.gsi1.partitionKey, KeyType: 'HASH' },
              { AttributeName: TABLE_DESIGN.gsi1.sortKey, KeyType: 'RANGE' },
            ],
            Projection: { ProjectionType: 'ALL' },
          },
          {
            IndexName: TABLE_DESIGN.activeJobs.indexName,
            KeySchema: [
              { AttributeName: TABLE_DESIGN.activeJobs.partitionKey, KeyType: 'HASH' },
              { AttributeName: TABLE_DESIGN.activeJobs.sortKey, KeyType: 'RANGE' },
            ],
            Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: [...TABLE_DESIGN.activeJobs.projection] },
          },
          {
            IndexName: TABLE_DESIGN.outbox.indexName,
            KeySchema: [
              { AttributeName: TABLE_DESIGN.outbox.partitionKey, KeyType: 'HASH' },
              { AttributeName: TABLE_DESIGN.outbox.sortKey, KeyType: 'RANGE' },
            ],
            Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: [...TABLE_DESIGN.outbox.projection] },
          },
        ],
        TimeToLiveSpecification: { AttributeName: TABLE_DESIGN.timeToLiveAttribute, Enabled: true },
        BillingMode: 'PAY_PER_REQUEST',
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        SSESpecification: { SSEEnabled: true },
        DeletionProtectionEnabled: true,
        StreamSpecification: { StreamViewType: 'NEW_IMAGE' },
      },
    });
    expect(Object.keys(matching)).toEqual([logicalIdOf(stack.table.table)]);
  });

  test('is retained when the stack is deleted', () => {
    const table = template.findResources('AWS::DynamoDB::Table')[logicalIdOf(stack.table.table)];
    expect(table).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
  });
});

describe('media bucket', () => {
  const mediaBucketId = logicalIdOf(stack.media.bucket);
  const media = template.findResources('AWS::S3::Bucket')[mediaBucketId]!;

  test('is private, SSE-KMS encrypted with the AWS managed key and a bucket key, owner-enforced, versioned and retained', () => {
    expect(media.DeletionPolicy).toBe('Retain');
    expect(media.Properties).toMatchObject({
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [
          { ServerSideEncryptionByDefault: { SSEAlgorithm: 'aws:kms' }, BucketKeyEnabled: true },
        ],
      },
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
      LoggingConfiguration: { DestinationBucketName: { Ref: logicalIdOf(stack.media.accessLogBucket) } },
      VersioningConfiguration: { Status: 'Enabled' },
      NotificationConfiguration: { EventBridgeConfiguration: { EventBridgeEnabled: true } },
    });
    // The AWS managed key: no key of the stack's for the signers and workers to be granted.
    expect(
      media.Properties.BucketEncryption.ServerSideEncryptionConfiguration[0].ServerSideEncryptionByDefault
        .KMSMasterKeyID,
    ).toBeUndefined();
    expect(media.Properties.CorsConfiguration).toBeUndefined();
  });

  test('keeps a previous version one day, then removes it and its delete marker', () => {
    expect(media.Properties.LifecycleConfiguration.Rules).toContainEqual({
      Id: 'expire-noncurrent-versions',
      NoncurrentVersionExpiration: { NoncurrentDays: 1 },
      ExpiredObjectDeleteMarker: true,
      Status: 'Enabled',
    });
  });

  test('its access-log bucket is SSE-S3 encrypted (the only encryption S3 delivers access logs to), versioned, and expires logs after 90 days', () => {
    const logs = template.findResources('AWS::S3::Bucket')[logicalIdOf(stack.media.accessLogBucket)]!;
    expect(logs.Properties).toMatchObject({
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      },
      VersioningConfiguration: { Status: 'Enabled' },
      NotificationConfiguration: { EventBridgeConfiguration: { EventBridgeEnabled: true } },
    });
    expect(logs.Properties.LifecycleConfiguration.Rules).toEqual([
      { Id: 'expire-access-logs', ExpirationInDays: 90, Status: 'Enabled' },
      {
        Id: 'expire-noncurrent-versions',
        NoncurrentVersionExpiration: { NoncurrentDays: 1 },
        ExpiredObjectDeleteMarker: true,
        Status: 'Enabled',
      },
    ]);
  });

  test("expires unconfirmed uploads under incoming/ and render outputs under renders/ after 2 days, jobs' work files after 7, and aborts multipart uploads after 1 day", () => {
    const rules = media.Properties.LifecycleConfiguration.Rules;
    expect(rules).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ Prefix: 'incoming/', ExpirationInDays: 2, Status: 'Enabled' }),
        expect.objectContaining({ Prefix: 'renders/', ExpirationInDays: 2, Status: 'Enabled' }),
        expect.objectContaining({ Prefix: 'work/', ExpirationInDays: 7, Status: 'Enabled' }),
        expect.objectContaining({ AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 }, Status: 'Enabled' }),
      ]),
    );
    // Nothing else expires: confirmed uploads and finished videos under assets/, and clips, are kept.
    expect(rules.filter((rule: { ExpirationInDays?: number }) => rule.ExpirationInDays !== undefined)).toHaveLength(3);
  });

  test('refuses to build without the S3 bucket-policy log delivery flag, naming it', () => {
    const app = new App({ outdir: assemblyOutdir(), context: { 'aws:cdk:bundling-stacks': [] } });
    expect(() => new ApiOnlyStack(app, 'NoFlag', { routes: [] })).toThrow(
      /@aws-cdk\/aws-s3:serverAccessLogsUseBucketPolicy/,
    );
  });

  test('denies every request that is not TLS 1.2+', () => {
    const [policy] = Object.values(
      template.findResources('AWS::S3::BucketPolicy', { Properties: { Bucket: { Ref: mediaBucketId } } }),
    );
    expect(policy!.Properties.PolicyDocument.Statement).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          Effect: 'Deny',
          Action: 's3:*',
          Condition: { Bool: { 'aws:SecureTransport': 'false' } },
        }),
        expect.objectContaining({
          Effect: 'Deny',
          Action: 's3:*',
          Condition: { NumericLessThan: { 's3:TlsVersion': 1.2 } },
        }),
      ]),
    );
  });
});

describe('least privilege', () => {
  test('only X-Ray statements, the state machines\' log delivery and the stream tasks\' ListStreams use Resource "*"', () => {
    const stateMachineRoles = stack.workflows.map(({ stateMachine }) =>
      JSON.stringify({ Ref: logicalIdOf(stateMachine.role) }),
    );
    const streamTaskRoles = TASKS.filter((task) => task.trigger.kind === 'table-stream').map((task) =>
      JSON.stringify({ Ref: logicalIdOf(stack.tasks.functions.get(task.name)!.role!) }),
    );
    const onEverything = policyStatements(template).filter((statement) => resourcesOf(statement).includes('*'));
    const listStreams = onEverything.filter((statement) => actionsOf(statement).includes('dynamodb:ListStreams'));
    // The stream mapping's ListStreams supports no resource-level permission (merged with X-Ray's
    // statement, which is on "*" too); nothing else of DynamoDB is on "*".
    for (const statement of listStreams) {
      expect(actionsOf(statement).filter((action) => !action.startsWith('xray:'))).toEqual(['dynamodb:ListStreams']);
      expect(statement.roles.map((role) => JSON.stringify(role)).sort()).toEqual([...streamTaskRoles].sort());
    }
    const notXray = onEverything.filter(
      (statement) =>
        !listStreams.includes(statement) && actionsOf(statement).some((action) => !action.startsWith('xray:')),
    );
    for (const statement of notXray) {
      expect(
        statement.roles.map((role) => JSON.stringify(role)).every((role) => stateMachineRoles.includes(role)),
      ).toBe(true);
      expect(actionsOf(statement).filter((action) => !/^(xray|logs):/.test(action))).toEqual([]);
      // Log delivery management only: writing events goes through the delivery, not the role.
      expect(actionsOf(statement)).not.toContain('logs:PutLogEvents');
    }
  });

  test('no policy statement grants a whole service (s3:*, dynamodb:*, states:*, bedrock:*, lambda:*, logs:*) or S3 actions on Resource "*"', () => {
    expect(broadStatements(policyStatements(template))).toEqual([]);
  });

  test('only the create function of its job type and the reconciler may start a workflow, and no other', () => {
    const starters = policyStatements(template).filter((statement) =>
      actionsOf(statement).includes('states:StartExecution'),
    );
    const reconciler = stack.tasks.functions.get('reconcile-jobs')!;
    const creators = { 'video-job': 'createVideoJob', 'split-job': 'createSplitJob' } as const;
    expect(starters.map(({ Action, Resource, roles }) => ({ Action, Resource, roles }))).toEqual([
      ...stack.workflows.map(({ workflow, stateMachine }) => ({
        Action: 'states:StartExecution',
        Resource: { Ref: logicalIdOf(stateMachine) },
        roles: [
          { Ref: logicalIdOf(stack.httpApi.functions.get(creators[workflow.name as keyof typeof creators])!.role!) },
        ],
      })),
      {
        Action: 'states:StartExecution',
        Resource: expect.arrayContaining(
          stack.workflows.map(({ stateMachine }) => ({ Ref: logicalIdOf(stateMachine) })),
        ),
        roles: [{ Ref: logicalIdOf(reconciler.role!) }],
      },
    ]);
  });

  test('only the cancel functions of its job type and the reconciler may stop a workflow’s executions, and no other', () => {
    const stoppers = policyStatements(template).filter((statement) =>
      actionsOf(statement).includes('states:StopExecution'),
    );
    const roleOf = (fn: { role?: unknown }) => ({ Ref: logicalIdOf(fn.role as never) });
    const api = (operationId: string) => roleOf(stack.httpApi.functions.get(operationId)!);
    const cancellers = {
      'video-job': [api('cancelVideoJob'), api('cancelJob')],
      'split-job': [api('cancelSplitJob'), api('cancelJob')],
    } as const;
    const reconciler = roleOf(stack.tasks.functions.get('reconcile-jobs')!);
    for (const { workflow, stateMachine } of stack.workflows) {
      const machine = logicalIdOf(stateMachine);
      const holders = stoppers
        .filter((statement) => JSON.stringify(statement.Resource).includes(`"Ref":"${machine}"`))
        .flatMap((statement) => statement.roles);
      expect(holders).toEqual(
        expect.arrayContaining([...cancellers[workflow.name as keyof typeof cancellers], reconciler]),
      );
      expect(holders).toHaveLength(3);
    }
    for (const statement of stoppers) {
      expect(statement.Action).toBe('states:StopExecution');
      expect(JSON.stringify(statement.Resource)).toContain(':execution:');
    }
  });
});

describe('the cursor key', () => {
  test('is a generated secret that only the paged lists (GET /jobs, GET /webhooks/{id}/deliveries, GET /events) may read, with its ARN in their functions alone', () => {
    const secretId = logicalIdOf(stack.cursorKey.secret);
    template.hasResourceProperties('AWS::SecretsManager::Secret', {
      GenerateSecretString: { PasswordLength: 64, ExcludePunctuation: true },
    });
    const lists = ROUTES.filter((route) => route.grants.includes('secrets.cursor-key:read')).map(
      (route) => route.operationId,
    );
    expect(lists).toEqual(['listJobs', 'listWebhookDeliveries', 'listEvents']);
    const listFunctions = lists.map((operationId) => stack.httpApi.functions.get(operationId)!);
    const readers = policyStatements(template).filter((statement) =>
      actionsOf(statement).some((action) => action.startsWith('secretsmanager:')),
    );
    expect(readers.map(({ roles }) => roles)).toEqual(
      listFunctions.map((listFunction) => [{ Ref: logicalIdOf(listFunction.role!) }]),
    );
    for (const reader of readers) {
      expect(actionsOf(reader)).toEqual(['secretsmanager:GetSecretValue']);
      expect(resourcesOf(reader)).toEqual([{ Ref: secretId }]);
    }
    const withArn = Object.entries(template.findResources('AWS::Lambda::Function')).filter(
      ([, resource]) => resource.Properties.Environment?.Variables?.CURSOR_KEY_SECRET_ARN,
    );
    expect(withArn.map(([id]) => id).sort()).toEqual(
      listFunctions.map((listFunction) => logicalIdOf(listFunction)).sort(),
    );
    for (const [, resource] of withArn) {
      expect(resource.Properties.Environment.Variables.CURSOR_KEY_SECRET_ARN).toEqual({ Ref: secretId });
    }
  });
});

describe('policies derived from route grants', () => {
  const route = (name: string, grants: Grant[]): Route => ({
    method: 'POST',
    path: `/grant-test/${name}`,
    // Names of the test's own, not of the contract: the API construct only uses them as ids.
    operationId: name as OperationId,
    scope: null,
    handler: 'me/get',
    table: [],
    grants,
  });
  const routes = [
    route('signPut', ['media.incoming:put']),
    route('inspect', ['media.incoming:inspect']),
    // The real confirmation's grants: its copy in parts needs exactly these.
    route('confirm', [...ROUTES.find((candidate) => candidate.operationId === 'confirmAssetUpload')!.grants]),
    route('signGet', ['media.assets:get']),
    route('startJob', ['states.video-job:start']),
    route('plain', []),
  ];
  const videoJobsArn = 'arn:aws:states:us-east-1:111111111111:stateMachine:video-jobs';
  const app = appWithoutBundling();
  const grantsStack = new ApiOnlyStack(app, 'Grants', {
    routes,
    // An imported machine: the API construct only needs an IStateMachine.
    stateMachines: (scope) => ({ 'video-job': sfn.StateMachine.fromStateMachineArn(scope, 'VideoJobs', videoJobsArn) }),
  });
  const grantsTemplate = Template.fromStack(grantsStack);
  const grantsLogicalIdOf = logicalIdIn(grantsStack);
  const bucketId = grantsLogicalIdOf(grantsStack.media.bucket);
  const objectsUnder = (prefix: string) => ({ 'Fn::Join': ['', [{ 'Fn::GetAtt': [bucketId, 'Arn'] }, `/${prefix}*`]] });

  function grantsOf(operationId: string) {
    const statements = statementsOfFunction(
      grantsStack,
      grantsTemplate,
      grantsStack.httpApi.functions.get(operationId)!,
    );
    return statements
      .filter((statement) => actionsOf(statement).some((action) => /^(s3|states|bedrock):/.test(action)))
      .map((statement) => ({
        actions: actionsOf(statement).sort(),
        resources: resourcesOf(statement),
        ...(statement.Condition ? { condition: statement.Condition } : {}),
      }));
  }

  test('media.incoming:put grants PutObject on incoming/* only', () => {
    expect(grantsOf('signPut')).toEqual([{ actions: ['s3:PutObject'], resources: [objectsUnder('incoming/')] }]);
  });

  const listBucket = () => ({
    actions: ['s3:ListBucket'],
    resources: [{ 'Fn::GetAtt': [bucketId, 'Arn'] }],
    condition: { StringLike: { 's3:prefix': 'incoming/*' } },
  });

  test('media.incoming:inspect grants GetObject and DeleteObject on incoming/* and ListBucket for listings under incoming/ only', () => {
    expect(grantsOf('inspect')).toEqual(
      expect.arrayContaining([
        { actions: ['s3:DeleteObject', 's3:GetObject'], resources: [objectsUnder('incoming/')] },
        listBucket(),
      ]),
    );
    expect(grantsOf('inspect')).toHaveLength(2);
  });

  test('confirm-upload adds PutObject and AbortMultipartUpload on assets/* and nothing on incoming/ beyond inspect', () => {
    expect(grantsOf('confirm')).toEqual(
      expect.arrayContaining([
        { actions: ['s3:DeleteObject', 's3:GetObject'], resources: [objectsUnder('incoming/')] },
        { actions: ['s3:AbortMultipartUpload', 's3:PutObject'], resources: [objectsUnder('assets/')] },
        listBucket(),
      ]),
    );
    expect(grantsOf('confirm')).toHaveLength(3);
  });

  test('only media.incoming:inspect routes may list the bucket', () => {
    for (const operationId of ['signPut', 'signGet', 'startJob', 'plain']) {
      expect(grantsOf(operationId)).not.toContainEqual(listBucket());
    }
  });

  test('media.assets:get grants GetObject on assets/* only', () => {
    expect(grantsOf('signGet')).toEqual([{ actions: ['s3:GetObject'], resources: [objectsUnder('assets/')] }]);
  });

  test('states.video-job:start grants StartExecution on the video job state machine and passes its ARN', () => {
    expect(grantsOf('startJob')).toEqual([{ actions: ['states:StartExecution'], resources: [videoJobsArn] }]);
    const fnId = grantsLogicalIdOf(grantsStack.httpApi.functions.get('startJob')!);
    expect(
      grantsTemplate.findResources('AWS::Lambda::Function')[fnId]!.Properties.Environment.Variables[
        VIDEO_JOB_STATE_MACHINE_ARN_ENV
      ],
    ).toBe(videoJobsArn);
  });

  test('a route without grants gets no S3 or Step Functions permission', () => {
    expect(grantsOf('plain')).toEqual([]);
  });

  test('no grant is broader than its prefix', () => {
    expect(broadStatements(policyStatements(grantsTemplate))).toEqual([]);
  });

  test('only routes that start a workflow get its ARN variable', () => {
    for (const operationId of ['signPut', 'inspect', 'confirm', 'signGet', 'plain']) {
      const fnId = grantsLogicalIdOf(grantsStack.httpApi.functions.get(operationId)!);
      expect(
        grantsTemplate.findResources('AWS::Lambda::Function')[fnId]!.Properties.Environment.Variables,
      ).not.toHaveProperty(VIDEO_JOB_STATE_MACHINE_ARN_ENV);
    }
  });

  test('a route needing a state machine missing from the given stateMachines fails synthesis with the route named', () => {
    expect(
      () =>
        new ApiOnlyStack(appWithoutBundling(), 'Missing', {
          routes: [route('startJob', ['states.video-job:start'])],
          stateMachines: () => ({}),
        }),
    ).toThrow(/startJob.*states.video-job:start.*no video-job/);
  });
});

describe('KMS keys', () => {
  test('every key of the stack refuses kms:CreateGrant to all but AWS services and grants for AWS resources', () => {
    const keys = Object.values(template.findResources('AWS::KMS::Key'));
    expect(keys).toHaveLength(2);
    for (const key of keys) {
      expect(key.Properties.KeyPolicy.Statement).toContainEqual({
        Sid: 'GrantsOnlyForAwsResources',
        Effect: 'Deny',
        Principal: { AWS: '*' },
        Action: 'kms:CreateGrant',
        Resource: '*',
        Condition: { BoolIfExists: { 'kms:GrantIsForAWSResource': 'false', 'aws:PrincipalIsAWSService': 'false' } },
      });
    }
  });
});
