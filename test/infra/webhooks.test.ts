import { GenerateDataKeyCommand, DecryptCommand, KMSClient } from '@aws-sdk/client-kms';
import { Stack } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import { mockClient } from 'aws-sdk-client-mock';
import { DataTable } from '../../lib/constructs/data-table';
import { MediaBucket } from '../../lib/constructs/media-bucket';
import { ServiceQueues } from '../../lib/constructs/queues';
import { TaskFunctions } from '../../lib/constructs/tasks';
import { WEBHOOK_SECRET_ENCRYPTION_CONTEXT_KEYS } from '../../lib/constructs/webhook-secrets-key';
import { CONFIG_KEYS } from '../../lib/config';
import { VideoApiStack } from '../../lib/video-api-stack';
import type { OperationId } from '#contract/types';
import { EVENT_STREAM_FILTER } from '#domain/events/event-stream';
import { openSecret, sealSecret } from '#domain/webhooks/secret-sealing';
import {
  DEVELOPER_WEBHOOK_DELIVERY_ENABLED,
  WEBHOOK_LOOPBACK_ALLOWED,
  WEBHOOK_RETRY_SCALE,
  WEBHOOK_SECRETS_KEY_ARN,
  WEBHOOK_SECRETS_LOCAL_KEY,
} from '#platform/settings';
import type { Grant } from '#grants';
import { queueNamed, VISIBILITY_TIMEOUT_PER_FUNCTION_TIMEOUT } from '#queues';
import type { Route } from '#routes';
import { TASKS, type Task } from '#tasks';
import {
  ApiOnlyStack,
  actionsOf,
  appWithoutBundling,
  logicalIdIn,
  policyStatements,
  resourcesOf,
  statementsOfFunction,
  synthesizedStack,
  type Statement,
} from './fixtures';

// One synthesized stack for most of the file: synthesis is the slow part.
const { stack, template, logicalIdOf } = synthesizedStack();

const functions = template.findResources('AWS::Lambda::Function');
const queues = template.findResources('AWS::SQS::Queue');
const mappings = Object.values(template.findResources('AWS::Lambda::EventSourceMapping'));
const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm'));

const taskNamed = (name: string): Task => TASKS.find((task) => task.name === name)!;
const taskFunction = (name: string) => stack.tasks.functions.get(name)!;
const relay = taskFunction('relay-events');
const deliver = taskFunction('deliver-webhooks');
const sweep = taskFunction('sweep-webhooks');
const createWebhook = stack.httpApi.functions.get('createWebhook')!;
const rotateSecret = stack.httpApi.functions.get('rotateWebhookSecret')!;
const testWebhook = stack.httpApi.functions.get('testWebhook')!;
const resendDelivery = stack.httpApi.functions.get('resendWebhookDelivery')!;
const recoverDeliveries = stack.httpApi.functions.get('recoverWebhookDeliveries')!;

const deliveries = stack.queues.queues.get('webhook-deliveries')!;
const deliveriesId = logicalIdOf(deliveries.queue);
const deadLettersId = logicalIdOf(deliveries.deadLetterQueue);
const relayFailures = stack.tasks.streamFailureQueues.get('relay-events')!;
const relayFailuresId = logicalIdOf(relayFailures);
const keyId = logicalIdOf(stack.webhookSecretsKey.key);

const arnOf = (id: string) => ({ 'Fn::GetAtt': [id, 'Arn'] });
const roleRef = (fn: { role?: unknown }) => JSON.stringify({ Ref: logicalIdOf(fn.role as never) });
const rolesOf = (statements: Statement[]) =>
  [...new Set(statements.flatMap((statement) => statement.roles.map((role) => JSON.stringify(role))))].sort();
const mappingOf = (fn: { node: { defaultChild?: unknown } }) =>
  mappings.filter(
    (mapping) => JSON.stringify(mapping.Properties.FunctionName) === JSON.stringify({ Ref: logicalIdOf(fn) }),
  );
const environmentOf = (fn: { node: { defaultChild?: unknown } }): Record<string, unknown> =>
  functions[logicalIdOf(fn)]!.Properties.Environment.Variables;

/** Statements allowing `action` (minimized policies may hold several actions and resources each). */
const allowing = (action: string, statements = policyStatements(template)) =>
  statements.filter((statement) => statement.Effect === 'Allow' && actionsOf(statement).includes(action));
const on = (resource: unknown) => (statement: Statement) =>
  resourcesOf(statement).some((candidate) => JSON.stringify(candidate) === JSON.stringify(resource));

describe('the table stream', () => {
  test('carries new images only', () => {
    const table = template.findResources('AWS::DynamoDB::Table')[logicalIdOf(stack.table.table)]!;
    expect(table.Properties.StreamSpecification).toEqual({ StreamViewType: 'NEW_IMAGE' });
  });

  test("runs the relay on new event items only (EVENT_STREAM_FILTER), reporting partial batch failures, and gives up on a batch into the relay's failures queue", () => {
    const [mapping, ...others] = mappingOf(relay);
    expect(others).toEqual([]);
    const trigger = taskNamed('relay-events').trigger;
    expect(trigger.kind).toBe('table-stream');
    expect(mapping!.Properties).toMatchObject({
      EventSourceArn: { 'Fn::GetAtt': [logicalIdOf(stack.table.table), 'StreamArn'] },
      StartingPosition: 'TRIM_HORIZON',
      BatchSize: trigger.kind === 'table-stream' ? trigger.batchSize : undefined,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BisectBatchOnFunctionError: true,
      DestinationConfig: { OnFailure: { Destination: arnOf(relayFailuresId) } },
    });
    const filters = mapping!.Properties.FilterCriteria.Filters as { Pattern: string }[];
    expect(filters.map((filter) => JSON.parse(filter.Pattern))).toEqual([
      JSON.parse(JSON.stringify(EVENT_STREAM_FILTER)),
    ]);
    // Bounded retries, within the stream's 24-hour retention; what is given up on, the sweeper relays.
    expect(mapping!.Properties.MaximumRetryAttempts).toBeGreaterThan(0);
    expect(mapping!.Properties.MaximumRetryAttempts).toBeLessThanOrEqual(10_000);
    expect(mapping!.Properties.MaximumRecordAgeInSeconds).toBeLessThanOrEqual(24 * 3600);
  });

  test('only the relay reads the stream, and only it may send to its failures queue', () => {
    expect(rolesOf(allowing('dynamodb:GetRecords'))).toEqual([roleRef(relay)]);
    expect(rolesOf(allowing('sqs:SendMessage').filter(on(arnOf(relayFailuresId))))).toEqual([roleRef(relay)]);
  });
});

describe('the webhook deliveries queue', () => {
  const queue = queues[deliveriesId]!;
  const deadLetters = queues[deadLettersId]!;

  test('moves a message to its dead-letter queue after the maxReceiveCount of lambdas/queues.ts (5)', () => {
    expect(queueNamed('webhook-deliveries').maxReceiveCount).toBe(5);
    expect(queue.Properties.RedrivePolicy).toEqual({ deadLetterTargetArn: arnOf(deadLettersId), maxReceiveCount: 5 });
  });

  test("has a visibility timeout of at least six times its consumer's timeout", () => {
    const consumerTimeout = functions[logicalIdOf(deliver)]!.Properties.Timeout as number;
    expect(consumerTimeout).toBeGreaterThan(0);
    expect(VISIBILITY_TIMEOUT_PER_FUNCTION_TIMEOUT).toBe(6);
    expect(queue.Properties.VisibilityTimeout).toBeGreaterThanOrEqual(6 * consumerTimeout);
  });

  test('its dead-letter queue keeps messages 14 days, and says it is one (a redrive permission, no redrive policy)', () => {
    expect(deadLetters.Properties.MessageRetentionPeriod).toBe(14 * 24 * 3600);
    expect(deadLetters.Properties.RedrivePolicy).toBeUndefined();
    expect(deadLetters.Properties.RedriveAllowPolicy).toEqual({ redrivePermission: 'allowAll' });
  });

  test("the relay's failures queue is a dead-letter queue like the deliveries' one", () => {
    expect(queues[relayFailuresId]!.Properties).toMatchObject({
      MessageRetentionPeriod: 14 * 24 * 3600,
      RedriveAllowPolicy: { redrivePermission: 'allowAll' },
    });
    expect(queues[relayFailuresId]!.Properties.RedrivePolicy).toBeUndefined();
  });

  test('every queue of the stack is SSE-SQS encrypted and denies requests without TLS', () => {
    const endingsId = logicalIdOf(stack.tasks.endingDeadLetterQueues.get('execution-ended')!);
    expect(Object.keys(queues).sort()).toEqual([deliveriesId, deadLettersId, relayFailuresId, endingsId].sort());
    const policies = Object.values(template.findResources('AWS::SQS::QueuePolicy'));
    for (const [id, resource] of Object.entries(queues)) {
      expect(resource.Properties.SqsManagedSseEnabled).toBe(true);
      expect(resource.Properties.KmsMasterKeyId).toBeUndefined();
      const statements = policies
        .filter((policy) => JSON.stringify(policy.Properties.Queues) === JSON.stringify([{ Ref: id }]))
        .flatMap((policy) => policy.Properties.PolicyDocument.Statement);
      expect(statements).toContainEqual({
        Effect: 'Deny',
        Principal: { AWS: '*' },
        Action: 'sqs:*',
        Resource: arnOf(id),
        Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      });
    }
  });

  test('runs deliver-webhooks in batches of 10, reporting partial batch failures, at most maxConcurrency at once', () => {
    const trigger = taskNamed('deliver-webhooks').trigger;
    expect(trigger).toMatchObject({ kind: 'queue', queue: 'webhook-deliveries', batchSize: 10 });
    const [mapping, ...others] = mappingOf(deliver);
    expect(others).toEqual([]);
    expect(mapping!.Properties).toEqual({
      EventSourceArn: arnOf(deliveriesId),
      FunctionName: { Ref: logicalIdOf(deliver) },
      BatchSize: 10,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: trigger.kind === 'queue' ? trigger.maxConcurrency : undefined },
    });
  });

  test('is an output of the stack', () => {
    expect(template.findOutputs('WebhookDeliveriesQueueUrl').WebhookDeliveriesQueueUrl?.Value).toEqual({
      Ref: deliveriesId,
    });
  });
});

describe('the webhook secrets key', () => {
  test('is a customer managed key with rotation, a description and an alias, retained with the stack', () => {
    const key = template.findResources('AWS::KMS::Key')[keyId]!;
    expect(key).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    expect(key.Properties.EnableKeyRotation).toBe(true);
    expect(key.Properties.Description).toMatch(/webhook signing secrets/);
    template.hasResourceProperties('AWS::KMS::Alias', {
      AliasName: 'alias/VideoApiStack/webhook-secrets',
      TargetKeyId: arnOf(keyId),
    });
  });

  const contextCondition = {
    'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': [...WEBHOOK_SECRET_ENCRYPTION_CONTEXT_KEYS] },
    Null: { 'kms:EncryptionContextKeys': 'false' },
  };

  test('only createWebhook and rotateWebhookSecret may generate data keys, and only deliver-webhooks decrypt, each on this key and with an encryption context of exactly its two keys', () => {
    const kmsStatements = policyStatements(template).filter((statement) =>
      actionsOf(statement).some((action) => action.startsWith('kms:')),
    );
    expect(
      kmsStatements.map(({ Action, Resource, Condition, roles }) => ({ Action, Resource, Condition, roles })),
    ).toEqual(
      expect.arrayContaining([
        {
          Action: 'kms:GenerateDataKey',
          Resource: arnOf(keyId),
          Condition: contextCondition,
          roles: [{ Ref: logicalIdOf(createWebhook.role!) }],
        },
        {
          Action: 'kms:GenerateDataKey',
          Resource: arnOf(keyId),
          Condition: contextCondition,
          roles: [{ Ref: logicalIdOf(rotateSecret.role!) }],
        },
        {
          Action: 'kms:Decrypt',
          Resource: arnOf(keyId),
          Condition: contextCondition,
          roles: [{ Ref: logicalIdOf(deliver.role!) }],
        },
      ]),
    );
    expect(kmsStatements).toHaveLength(3);
  });

  test("the grants' encryption context keys are the ones secret-sealing.ts sends on GenerateDataKey and Decrypt", async () => {
    const kms = mockClient(KMSClient);
    const dataKey = new Uint8Array(32).fill(7);
    kms.on(GenerateDataKeyCommand).resolves({ Plaintext: dataKey, CiphertextBlob: new Uint8Array([1, 2, 3]) });
    kms.on(DecryptCommand).resolves({ Plaintext: new Uint8Array(32).fill(7) });
    const saved = {
      arn: process.env[WEBHOOK_SECRETS_KEY_ARN.variable],
      local: process.env[WEBHOOK_SECRETS_LOCAL_KEY.variable],
    };
    process.env[WEBHOOK_SECRETS_KEY_ARN.variable] = 'arn:aws:kms:us-east-1:111111111111:key/test';
    delete process.env[WEBHOOK_SECRETS_LOCAL_KEY.variable];
    try {
      const owner = { organizationId: 42, webhookId: 'webhook_test' };
      const sealed = await sealSecret('whsec_test', owner);
      expect(await openSecret(sealed, owner)).toBe('whsec_test');
      const keysOf = (context: Record<string, string> | undefined) => Object.keys(context ?? {}).sort();
      const contextKeys = [
        keysOf(kms.commandCalls(GenerateDataKeyCommand)[0]!.args[0].input.EncryptionContext),
        keysOf(kms.commandCalls(DecryptCommand)[0]!.args[0].input.EncryptionContext),
      ];
      expect(contextKeys).toEqual([
        [...WEBHOOK_SECRET_ENCRYPTION_CONTEXT_KEYS].sort(),
        [...WEBHOOK_SECRET_ENCRYPTION_CONTEXT_KEYS].sort(),
      ]);
    } finally {
      kms.restore();
      for (const [variable, value] of [
        [WEBHOOK_SECRETS_KEY_ARN.variable, saved.arn],
        [WEBHOOK_SECRETS_LOCAL_KEY.variable, saved.local],
      ] as const) {
        if (value === undefined) delete process.env[variable];
        else process.env[variable] = value;
      }
    }
  });

  test("only createWebhook, rotateWebhookSecret and deliver-webhooks know the key's ARN", () => {
    const withArn = Object.entries(functions)
      .filter(([, resource]) => resource.Properties.Environment?.Variables?.[WEBHOOK_SECRETS_KEY_ARN.variable])
      .map(([id]) => id)
      .sort();
    expect(withArn).toEqual([logicalIdOf(createWebhook), logicalIdOf(rotateSecret), logicalIdOf(deliver)].sort());
    expect(environmentOf(createWebhook)[WEBHOOK_SECRETS_KEY_ARN.variable]).toEqual(arnOf(keyId));
    expect(environmentOf(rotateSecret)[WEBHOOK_SECRETS_KEY_ARN.variable]).toEqual(arnOf(keyId));
    expect(environmentOf(deliver)[WEBHOOK_SECRETS_KEY_ARN.variable]).toEqual(arnOf(keyId));
  });
});

describe('least privilege of the webhook path', () => {
  test('only the relay, deliver-webhooks, the sweeper, resend and recover may send to the deliveries queue, and know its URL', () => {
    const queueWriters = [relay, deliver, sweep, resendDelivery, recoverDeliveries];
    const senders = allowing('sqs:SendMessage').filter(on(arnOf(deliveriesId)));
    expect(rolesOf(senders)).toEqual(queueWriters.map(roleRef).sort());
    const urlVariable = queueNamed('webhook-deliveries').urlSetting.variable;
    const withUrl = Object.entries(functions)
      .filter(([, resource]) => resource.Properties.Environment?.Variables?.[urlVariable])
      .map(([id]) => id)
      .sort();
    expect(withUrl).toEqual(queueWriters.map((fn) => logicalIdOf(fn)).sort());
    for (const fn of queueWriters) expect(environmentOf(fn)[urlVariable]).toEqual({ Ref: deliveriesId });
  });

  test('resend and recover may send deliveries but not open secrets or receive messages', () => {
    for (const fn of [resendDelivery, recoverDeliveries]) {
      const actions = statementsOfFunction(stack, template, fn).flatMap(actionsOf);
      expect(actions.filter((action) => /^(sqs|kms):/.test(action))).toEqual(['sqs:SendMessage']);
    }
  });

  test('only deliver-webhooks may receive and delete deliveries', () => {
    for (const action of ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:ChangeMessageVisibility']) {
      expect(rolesOf(allowing(action))).toEqual([roleRef(deliver)]);
    }
  });

  test('the test route writes an event and nothing else: no SQS, no KMS; createWebhook may not send or decrypt', () => {
    const testActions = statementsOfFunction(stack, template, testWebhook).flatMap(actionsOf);
    expect(testActions.filter((action) => /^(sqs|kms):/.test(action))).toEqual([]);
    const createActions = statementsOfFunction(stack, template, createWebhook).flatMap(actionsOf);
    expect(createActions.filter((action) => action.startsWith('sqs:'))).toEqual([]);
    expect(createActions).not.toContain('kms:Decrypt');
    expect(createActions.filter((action) => action.startsWith('kms:'))).toEqual(['kms:GenerateDataKey']);
  });

  test('the relay and the sweeper may not touch the secrets key', () => {
    for (const fn of [relay, sweep]) {
      const actions = statementsOfFunction(stack, template, fn).flatMap(actionsOf);
      expect(actions.filter((action) => action.startsWith('kms:'))).toEqual([]);
    }
  });
});

describe('the webhook delivery setting', () => {
  const withSetting = TASKS.filter((task) => task.settings?.includes('webhook-delivery')).map((task) => task.name);
  const variable = DEVELOPER_WEBHOOK_DELIVERY_ENABLED.variable;

  /** Every function of a stack holding the variable, by logical id, with its value. */
  const flagsOf = (someTemplate: Template) =>
    Object.fromEntries(
      Object.entries(someTemplate.findResources('AWS::Lambda::Function'))
        .filter(([, resource]) => resource.Properties.Environment?.Variables?.[variable] !== undefined)
        .map(([id, resource]) => [id, resource.Properties.Environment.Variables[variable]]),
    );
  const expectedFlags = (someStack: VideoApiStack, value: string) =>
    Object.fromEntries(
      withSetting.map((name) => [logicalIdIn(someStack)(someStack.tasks.functions.get(name)!), value]),
    );

  test('is declared by deliver-webhooks and the sweeper', () => {
    expect(withSetting.sort()).toEqual(['deliver-webhooks', 'sweep-webhooks']);
  });

  test("is 'true' by default, on exactly the tasks with the setting", () => {
    expect(flagsOf(template)).toEqual(expectedFlags(stack, 'true'));
  });

  test.each([false, 'false'])("is 'false' with the context webhookDeliveryEnabled=%p", (value) => {
    const off = synthesizedStack({ [CONFIG_KEYS.webhookDeliveryEnabled]: value }, 'Off');
    expect(flagsOf(off.template)).toEqual(expectedFlags(off.stack, 'false'));
  });

  test('any other context value fails the synthesis, naming the key', () => {
    for (const value of ['no', 'TRUE', 0, '']) {
      expect(
        () => new VideoApiStack(appWithoutBundling({ [CONFIG_KEYS.webhookDeliveryEnabled]: value }), 'Bad'),
      ).toThrow(/webhookDeliveryEnabled must be true or false/);
    }
  });

  test('the local-only variables (retry scale, loopback endpoints, local key) are set on no function', () => {
    for (const resource of Object.values(functions)) {
      const variables = resource.Properties.Environment?.Variables ?? {};
      expect(variables).not.toHaveProperty(WEBHOOK_RETRY_SCALE.variable);
      expect(variables).not.toHaveProperty(WEBHOOK_LOOPBACK_ALLOWED.variable);
      expect(variables).not.toHaveProperty(WEBHOOK_SECRETS_LOCAL_KEY.variable);
    }
  });
});

describe('webhook alarms', () => {
  const alarmsOn = (metricName: string, dimension: unknown) =>
    alarms.filter(
      (alarm) =>
        alarm.Properties.MetricName === metricName &&
        JSON.stringify(alarm.Properties.Dimensions) === JSON.stringify([dimension]),
    );
  const queueDimension = (id: string) => ({ Name: 'QueueName', Value: { 'Fn::GetAtt': [id, 'QueueName'] } });
  const functionDimension = (fn: { node: { defaultChild?: unknown } }) => ({
    Name: 'FunctionName',
    Value: { Ref: logicalIdOf(fn) },
  });

  test.each([
    ['the deliveries dead-letter queue', deadLettersId],
    ["the relay's failures queue", relayFailuresId],
  ])('any message in %s raises an alarm', (_name, id) => {
    const [alarm, ...others] = alarmsOn('ApproximateNumberOfMessagesVisible', queueDimension(id));
    expect(others).toEqual([]);
    expect(alarm!.Properties).toMatchObject({
      Namespace: 'AWS/SQS',
      Statistic: 'Maximum',
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
    });
  });

  test("the deliveries queue's oldest message waiting past SQS's longest delay (15 min) raises an alarm", () => {
    const [alarm, ...others] = alarmsOn('ApproximateAgeOfOldestMessage', queueDimension(deliveriesId));
    expect(others).toEqual([]);
    expect(alarm!.Properties).toMatchObject({ Namespace: 'AWS/SQS', ComparisonOperator: 'GreaterThanThreshold' });
    expect(alarm!.Properties.Threshold).toBeGreaterThanOrEqual(15 * 60);
    expect(alarm!.Properties.Threshold).toBeLessThanOrEqual(60 * 60);
  });

  test('the relay lagging more than 5 minutes behind the stream raises an alarm', () => {
    const [alarm, ...others] = alarmsOn('IteratorAge', functionDimension(relay));
    expect(others).toEqual([]);
    expect(alarm!.Properties).toMatchObject({
      Namespace: 'AWS/Lambda',
      Statistic: 'Maximum',
      Threshold: 5 * 60 * 1000,
      ComparisonOperator: 'GreaterThanThreshold',
    });
  });

  test('errors of each webhook task raise an alarm', () => {
    for (const fn of [relay, deliver, sweep]) {
      expect(alarmsOn('Errors', functionDimension(fn))).toHaveLength(1);
    }
  });

  test('the dashboard shows the new alarms', () => {
    const [dashboard] = Object.values(template.findResources('AWS::CloudWatch::Dashboard'));
    const body = JSON.stringify(dashboard!.Properties.DashboardBody);
    for (const alarm of [
      ...stack.monitoring.deadLetterAlarms,
      ...stack.monitoring.oldestMessageAgeAlarms,
      ...stack.monitoring.iteratorAgeAlarms,
    ]) {
      expect(body).toContain(logicalIdOf(alarm));
    }
  });
});

describe('cdk-nag suppressions of the webhook path', () => {
  const suppressedRules = (resource: { Metadata?: { cdk_nag?: { rules_to_suppress?: { id: string }[] } } }) =>
    (resource.Metadata?.cdk_nag?.rules_to_suppress ?? []).map((rule) => rule.id);

  test("only the relay's failures queue suppresses AwsSolutions-SQS3 (an on-failure destination, which cdk-nag does not recognize as a dead-letter queue); the deliveries queue and its dead-letter queue suppress nothing", () => {
    expect(suppressedRules(queues[relayFailuresId]!)).toEqual(['AwsSolutions-SQS3']);
    expect(suppressedRules(queues[deadLettersId]!)).toEqual([]);
    expect(suppressedRules(queues[deliveriesId]!)).toEqual([]);
  });

  test("the relay role's wildcard suppression names ListStreams; the other task roles' do not", () => {
    const reasonsOf = (fn: { role?: unknown }) =>
      (
        template.findResources('AWS::IAM::Role')[logicalIdOf(fn.role as never)]!.Metadata.cdk_nag.rules_to_suppress as {
          id: string;
          reason: string;
        }[]
      )
        .filter((rule) => rule.id === 'AwsSolutions-IAM5')
        .map((rule) => rule.reason)
        .join(' ');
    expect(reasonsOf(relay)).toMatch(/dynamodb:ListStreams/);
    expect(reasonsOf(deliver)).not.toMatch(/ListStreams/);
  });
});

describe('missing parts fail the synthesis, naming the function', () => {
  const route = (name: string, grants: Grant[]): Route => ({
    method: 'POST',
    path: `/grant-test/${name}`,
    operationId: name as OperationId,
    scope: null,
    handler: 'me/get',
    table: [],
    grants,
  });

  test.each([
    ['queue.webhook-deliveries:send', /sender.*queue\.webhook-deliveries:send.*no webhook-deliveries/],
    ['kms.webhook-secrets:encrypt', /sender.*kms\.webhook-secrets:encrypt.*no webhook secrets key/],
    ['kms.webhook-secrets:decrypt', /sender.*kms\.webhook-secrets:decrypt.*no webhook secrets key/],
  ] as const)('a route granted %s without it', (grant, message) => {
    expect(() => new ApiOnlyStack(appWithoutBundling(), 'Missing', { routes: [route('sender', [grant])] })).toThrow(
      message,
    );
  });

  /** A stack with only the table, the bucket and the given tasks. */
  const tasksStack = (tasks: Task[], extra: { queues?: boolean; webhookDelivery?: boolean } = {}) => {
    const scope = new Stack(appWithoutBundling(), 'Tasks');
    const queueConstruct = extra.queues ? new ServiceQueues(scope, 'Queues', { tasks }) : undefined;
    return new TaskFunctions(scope, 'Tasks', {
      table: new DataTable(scope, 'Data'),
      media: new MediaBucket(scope, 'Media'),
      stateMachines: {},
      queues: queueConstruct?.byName,
      webhookDelivery: extra.webhookDelivery === undefined ? undefined : { enabled: extra.webhookDelivery },
      tasks,
    });
  };

  test('a task triggered by a queue that was not given', () => {
    // Without grants, so that the missing queue is the first thing missing.
    const task: Task = { ...taskNamed('deliver-webhooks'), grants: [] };
    expect(() => tasksStack([task], { webhookDelivery: true })).toThrow(
      /Task deliver-webhooks.*queue webhook-deliveries/,
    );
  });

  test('a task with the webhook-delivery setting but no setting given', () => {
    const task: Task = { ...taskNamed('sweep-webhooks'), grants: [] };
    expect(() => tasksStack([task])).toThrow(/Task sweep-webhooks.*webhook-delivery/);
  });

  test('a queue that no task consumes', () => {
    expect(() => new ServiceQueues(new Stack(appWithoutBundling(), 'NoConsumer'), 'Queues', { tasks: [] })).toThrow(
      /webhook-deliveries needs exactly one task/,
    );
  });
});
