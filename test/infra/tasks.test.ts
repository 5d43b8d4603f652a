import { RECONCILE_SCHEDULE } from '#domain/jobs/reconcile-schedule';
import { CLAUDE_HAIKU_5_5, LIFECYCLE_WATCH_SCHEDULE, LUMA_RAY2 } from '#domain/models/model-registry';
import { SWEEP_SCHEDULE } from '#domain/webhooks/sweep-schedule';
import { TASKS } from '#tasks';
import { actionsOf, resourcesOf, statementsOfFunction, synthesizedStack } from './fixtures';

const { stack, template, logicalIdOf } = synthesizedStack();
const rulesById = template.findResources('AWS::Events::Rule');
const ruleOf = (name: string) => rulesById[logicalIdOf(stack.tasks.rules.get(name)!)]!.Properties;
const functionOf = (name: string) =>
  template.findResources('AWS::Lambda::Function')[logicalIdOf(stack.tasks.functions.get(name)!)]!.Properties;
const stateMachineRefs = stack.workflows.map(({ stateMachine }) => ({ Ref: logicalIdOf(stateMachine) }));
const endingsQueue = stack.tasks.endingDeadLetterQueues.get('execution-ended')!;
const endingsQueueArn = { 'Fn::GetAtt': [logicalIdOf(endingsQueue), 'Arn'] };
const endingsQueuePolicy: { Effect: string }[] = Object.values(template.findResources('AWS::SQS::QueuePolicy'))
  .filter((policy) => JSON.stringify(policy.Properties.Queues) === JSON.stringify([{ Ref: logicalIdOf(endingsQueue) }]))
  .flatMap((policy) => policy.Properties.PolicyDocument.Statement);

/** Tasks run by an EventBridge rule; the others are run by an event source mapping (webhooks.test.ts). */
const RULE_TASKS = TASKS.filter((task) => task.trigger.kind === 'schedule' || task.trigger.kind === 'execution-ended');
const MAPPING_TASKS = TASKS.filter((task) => !RULE_TASKS.includes(task));

describe('tasks', () => {
  test('every task of lambdas/tasks.ts has a function, sized as the table says', () => {
    const functions = template.findResources('AWS::Lambda::Function');
    for (const task of TASKS) {
      const fn = stack.tasks.functions.get(task.name)!;
      expect(functions[logicalIdOf(fn)]!.Properties).toMatchObject({
        MemorySize: task.memoryMb,
        Timeout: task.timeoutSeconds,
        Runtime: 'nodejs24.x',
      });
    }
    expect(stack.tasks.functions.size).toBe(TASKS.length);
  });

  test('each task on a schedule or an execution ending has one rule that targets its function, and no other rule exists', () => {
    for (const task of RULE_TASKS) {
      const fn = stack.tasks.functions.get(task.name)!;
      expect(ruleOf(task.name).Targets).toEqual([
        expect.objectContaining({ Arn: { 'Fn::GetAtt': [logicalIdOf(fn), 'Arn'] } }),
      ]);
    }
    expect([...stack.tasks.rules.keys()].sort()).toEqual(RULE_TASKS.map((task) => task.name).sort());
    expect(Object.keys(rulesById)).toHaveLength(RULE_TASKS.length);
  });

  test('each task on the table stream or a queue has one event source mapping to its function, and no rule', () => {
    const mappings = Object.values(template.findResources('AWS::Lambda::EventSourceMapping'));
    for (const task of MAPPING_TASKS) {
      const fn = stack.tasks.functions.get(task.name)!;
      expect(
        mappings.filter(
          (mapping) => JSON.stringify(mapping.Properties.FunctionName) === JSON.stringify({ Ref: logicalIdOf(fn) }),
        ),
      ).toHaveLength(1);
      expect(stack.tasks.rules.has(task.name)).toBe(false);
    }
    expect(mappings).toHaveLength(MAPPING_TASKS.length);
  });

  test('the sweeper runs on its schedule', () => {
    expect(ruleOf('sweep-webhooks').ScheduleExpression).toBe(`rate(${SWEEP_SCHEDULE.everyMinutes} minutes)`);
  });

  test("the lifecycle watch reads the configured models' lifecycles four times a day, and may do nothing else", () => {
    expect(ruleOf('watch-model-lifecycle').ScheduleExpression).toBe(
      `rate(${LIFECYCLE_WATCH_SCHEDULE.everyMinutes / 60} hours)`,
    );
    const fn = stack.tasks.functions.get('watch-model-lifecycle')!;
    const bedrock = statementsOfFunction(stack, template, fn).filter((statement) =>
      actionsOf(statement).some((action) => action.startsWith('bedrock:')),
    );
    expect(bedrock.map((statement) => [actionsOf(statement), resourcesOf(statement)])).toEqual([
      [
        ['bedrock:GetFoundationModel'],
        [
          {
            'Fn::Join': [
              '',
              [
                'arn:',
                { Ref: 'AWS::Partition' },
                ':bedrock:',
                { Ref: 'AWS::Region' },
                '::foundation-model/anthropic.claude-haiku-5-5',
              ],
            ],
          },
          {
            'Fn::Join': [
              '',
              [
                'arn:',
                { Ref: 'AWS::Partition' },
                ':bedrock:',
                { Ref: 'AWS::Region' },
                '::foundation-model/luma.ray-v2:0',
              ],
            ],
          },
        ],
      ],
    ]);
    const variables =
      template.findResources('AWS::Lambda::Function')[logicalIdOf(fn)]!.Properties.Environment.Variables;
    expect(variables.WATCHED_MODEL_IDS).toBe(`${LUMA_RAY2.id},${CLAUDE_HAIKU_5_5.id}`);
  });

  test('the reconciler runs on its schedule', () => {
    expect(ruleOf('reconcile-jobs').ScheduleExpression).toBe(`rate(${RECONCILE_SCHEDULE.everyMinutes} minutes)`);
  });

  test('the execution-ended task runs when an execution of any workflow fails, times out or is stopped, and on nothing else', () => {
    expect(ruleOf('execution-ended').EventPattern).toEqual({
      source: ['aws.states'],
      'detail-type': ['Step Functions Execution Status Change'],
      detail: { status: ['FAILED', 'TIMED_OUT', 'ABORTED'], stateMachineArn: stateMachineRefs },
    });
  });

  describe('a failed ending is kept, not dropped', () => {
    test('in a dead-letter queue encrypted with SSE-SQS, refusing requests without TLS, keeping messages 14 days', () => {
      const queue = template.findResources('AWS::SQS::Queue')[logicalIdOf(endingsQueue)]!;
      expect(queue.Properties).toMatchObject({
        SqsManagedSseEnabled: true,
        MessageRetentionPeriod: 14 * 24 * 3600,
        RedriveAllowPolicy: { redrivePermission: 'allowAll' },
      });
      expect(queue.Properties.RedrivePolicy).toBeUndefined();
      expect(endingsQueuePolicy).toContainEqual(
        expect.objectContaining({
          Effect: 'Deny',
          Action: 'sqs:*',
          Condition: { Bool: { 'aws:SecureTransport': 'false' } },
        }),
      );
    });

    test("that the rule's target names as its dead-letter queue, which only the rule may send to", () => {
      const rule = stack.tasks.rules.get('execution-ended')!;
      expect(ruleOf('execution-ended').Targets).toEqual([
        expect.objectContaining({ DeadLetterConfig: { Arn: endingsQueueArn } }),
      ]);
      expect(endingsQueuePolicy.filter((statement) => statement.Effect === 'Allow')).toEqual([
        expect.objectContaining({
          Principal: { Service: 'events.amazonaws.com' },
          Action: 'sqs:SendMessage',
          Resource: endingsQueueArn,
          Condition: { ArnEquals: { 'aws:SourceArn': { 'Fn::GetAtt': [logicalIdOf(rule), 'Arn'] } } },
        }),
      ]);
    });

    test("that the task's function names as the dead-letter queue of its asynchronous invocations", () => {
      expect(functionOf('execution-ended').DeadLetterConfig).toEqual({ TargetArn: endingsQueueArn });
    });

    test('and only the execution-ended task has one: a missed schedule is the next run’s to catch up', () => {
      expect([...stack.tasks.endingDeadLetterQueues.keys()]).toEqual(['execution-ended']);
      for (const task of RULE_TASKS.filter((candidate) => candidate.name !== 'execution-ended')) {
        expect(ruleOf(task.name).Targets[0].DeadLetterConfig).toBeUndefined();
        expect(functionOf(task.name).DeadLetterConfig).toBeUndefined();
      }
    });
  });

  test('the reconciler may start every workflow and stop its executions, and use the table without scanning; the execution-ended task only the table and its dead-letter queue', () => {
    const outsideTable = (name: string) =>
      statementsOfFunction(stack, template, stack.tasks.functions.get(name)!)
        .filter((statement) => actionsOf(statement).some((action) => !/^(logs|xray|dynamodb):/.test(action)))
        .map((statement) => ({ actions: actionsOf(statement), resources: resourcesOf(statement) }));
    const reconciler = outsideTable('reconcile-jobs');
    expect(reconciler[0]).toEqual({
      actions: ['states:StartExecution'],
      resources: expect.arrayContaining(stateMachineRefs),
    });
    expect(reconciler[0]?.resources).toHaveLength(stateMachineRefs.length);
    // A job past its deadline has its execution stopped: StopExecution on each machine's executions.
    const stops = reconciler.slice(1);
    expect([...new Set(stops.flatMap((statement) => statement.actions))]).toEqual(['states:StopExecution']);
    const stopped = stops.flatMap((statement) => statement.resources).map((resource) => JSON.stringify(resource));
    expect(stopped).toHaveLength(stateMachineRefs.length);
    for (const reference of stateMachineRefs) {
      expect(stopped.filter((resource) => resource.includes(JSON.stringify(reference)))).toHaveLength(1);
    }
    // Lambda sends a failed ending to the function's dead-letter queue with the function's role.
    expect(outsideTable('execution-ended')).toEqual([{ actions: ['sqs:SendMessage'], resources: [endingsQueueArn] }]);
    for (const task of TASKS) {
      const actions = statementsOfFunction(stack, template, stack.tasks.functions.get(task.name)!).flatMap(actionsOf);
      expect(actions).not.toContain('dynamodb:Scan');
    }
  });
});
