import { Template } from 'aws-cdk-lib/assertions';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { METRICS_NAMESPACE } from '#platform/settings';
import { WORKFLOWS } from '#workflows';
import { VideoApiStack } from '../../lib/video-api-stack';
import { appWithoutBundling, logicalIdIn, synthesizedStack } from './fixtures';

// One synthesized stack for most of the file: synthesis is the slow part.
const { stack, template, logicalIdOf } = synthesizedStack();

const NAMESPACE = 'VideoAutomationApi/VideoApiStack';
const topicRef = { Ref: logicalIdOf(stack.alarmTopic.topic) };
const alarms = template.findResources('AWS::CloudWatch::Alarm');
const alarmOf = (alarm: { node: { defaultChild?: unknown } }) => alarms[logicalIdOf(alarm)]!.Properties;

interface MetricQuery {
  Id: string;
  Expression?: string;
  MetricStat?: {
    Metric: { Namespace: string; MetricName: string; Dimensions?: unknown[] };
    Stat: string;
    Period: number;
  };
}
/** The metrics a metric-math alarm reads, by query id. */
const queriesOf = (properties: { Metrics: MetricQuery[] }) =>
  Object.fromEntries(properties.Metrics.map((query) => [query.Id, query]));
const expressionOf = (properties: { Metrics: MetricQuery[] }) =>
  properties.Metrics.find((query) => query.Expression)!.Expression;

describe('the alarm topic', () => {
  const [topicId, topic] = Object.entries(template.findResources('AWS::SNS::Topic'))[0]!;

  test('is the only topic, encrypted with its own rotating key that CloudWatch may use', () => {
    expect(Object.keys(template.findResources('AWS::SNS::Topic'))).toEqual([topicId]);
    const keyId = logicalIdOf(stack.alarmTopic.key);
    expect(topic.Properties.KmsMasterKeyId).toEqual({ 'Fn::GetAtt': [keyId, 'Arn'] });
    const key = template.findResources('AWS::KMS::Key')[keyId]!;
    expect(key.Properties.EnableKeyRotation).toBe(true);
    expect(key.Properties.KeyPolicy.Statement).toContainEqual(
      expect.objectContaining({
        Effect: 'Allow',
        Principal: { Service: 'cloudwatch.amazonaws.com' },
        Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
      }),
    );
  });

  test('refuses publishers without TLS and lets only this account’s alarms publish', () => {
    const [policy] = Object.values(template.findResources('AWS::SNS::TopicPolicy'));
    expect(policy!.Properties.Topics).toEqual([{ Ref: topicId }]);
    expect(policy!.Properties.PolicyDocument.Statement).toEqual([
      expect.objectContaining({
        Effect: 'Deny',
        Action: 'sns:Publish',
        Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      }),
      expect.objectContaining({
        Effect: 'Allow',
        Principal: { Service: 'cloudwatch.amazonaws.com' },
        Action: 'sns:Publish',
        Condition: {
          StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
          ArnLike: {
            'aws:SourceArn': {
              'Fn::Join': [
                '',
                [
                  'arn:',
                  { Ref: 'AWS::Partition' },
                  ':cloudwatch:',
                  { Ref: 'AWS::Region' },
                  ':',
                  { Ref: 'AWS::AccountId' },
                  ':alarm:*',
                ],
              ],
            },
          },
        },
      }),
    ]);
  });

  test('has no subscription unless an alarm e-mail is configured', () => {
    expect(template.findResources('AWS::SNS::Subscription')).toEqual({});
  });

  test('gets an e-mail subscription from alarmEmail', () => {
    const withEmail = synthesizedStack({ alarmEmail: 'oncall@example.com' }, 'WithEmail');
    const subscriptions = Object.values(withEmail.template.findResources('AWS::SNS::Subscription'));
    expect(subscriptions.map((subscription) => subscription.Properties)).toEqual([
      {
        Protocol: 'email',
        Endpoint: 'oncall@example.com',
        TopicArn: { Ref: withEmail.logicalIdOf(withEmail.stack.alarmTopic.topic) },
      },
    ]);
  });

  test('is an output of the stack', () => {
    expect(template.findOutputs('AlarmTopicArn').AlarmTopicArn!.Value).toEqual(topicRef);
  });
});

describe('alarm actions', () => {
  test('every alarm in the template notifies the topic when it fires and when it recovers', () => {
    expect(Object.keys(alarms).length).toBeGreaterThan(50);
    for (const [id, alarm] of Object.entries(alarms)) {
      expect({ id, AlarmActions: alarm.Properties.AlarmActions, OKActions: alarm.Properties.OKActions }).toEqual({
        id,
        AlarmActions: [topicRef],
        OKActions: [topicRef],
      });
    }
  });

  test('an alarm added to the stack outside the monitoring construct gets the same actions', () => {
    const other = new VideoApiStack(appWithoutBundling(), 'Other');
    new cloudwatch.Alarm(other, 'LaterAlarm', {
      metric: new cloudwatch.Metric({ namespace: 'Test', metricName: 'Anything' }),
      threshold: 1,
      evaluationPeriods: 1,
    });
    const otherTopic = { Ref: logicalIdIn(other)(other.alarmTopic.topic) };
    const later = Object.values(
      Template.fromStack(other).findResources('AWS::CloudWatch::Alarm', { Properties: { MetricName: 'Anything' } }),
    );
    expect(later.map(({ Properties }) => [Properties.AlarmActions, Properties.OKActions])).toEqual([
      [[otherTopic], [otherTopic]],
    ]);
  });

  test('the dashboard shows every alarm of the template', () => {
    expect(stack.monitoring.alarms.map(logicalIdOf).sort()).toEqual(Object.keys(alarms).sort());
  });
});

describe('the new alarms', () => {
  const apiDimension = [{ Name: 'ApiId', Value: { Ref: logicalIdOf(stack.httpApi.api) } }];

  test('API latency: the p99 above 5 s for three periods in a row, counted only with 100 requests or more', () => {
    const alarm = alarmOf(stack.monitoring.latencyAlarm);
    expect(alarm).toMatchObject({
      Threshold: 5000,
      ComparisonOperator: 'GreaterThanThreshold',
      EvaluationPeriods: 3,
      DatapointsToAlarm: 3,
      TreatMissingData: 'notBreaching',
    });
    expect(expressionOf(alarm)).toBe('IF(requests >= 100, latency, 0)');
    const { requests, latency } = queriesOf(alarm);
    expect(latency!.MetricStat).toEqual({
      Metric: { Namespace: 'AWS/ApiGateway', MetricName: 'Latency', Dimensions: apiDimension },
      Stat: 'p99',
      Period: 300,
    });
    expect(requests!.MetricStat).toMatchObject({
      Metric: { MetricName: 'Count', Dimensions: apiDimension },
      Stat: 'Sum',
    });
  });

  test("Lambda throttles: every function's Throttles in exactly one alarm of at most 10 metrics, any throttle in 2 of 3 periods", () => {
    const allFunctions = Object.keys(template.findResources('AWS::Lambda::Function')).sort();
    const watched: string[] = [];
    for (const throttlesAlarm of stack.monitoring.functionThrottlesAlarms) {
      const alarm = alarmOf(throttlesAlarm);
      expect(alarm).toMatchObject({
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        EvaluationPeriods: 3,
        DatapointsToAlarm: 2,
      });
      expect(expressionOf(alarm)).toBe('SUM(FILL(METRICS(), 0))');
      const metrics = (alarm.Metrics as MetricQuery[]).filter((query) => query.MetricStat);
      expect(metrics.length).toBeLessThanOrEqual(10);
      for (const { MetricStat } of metrics) {
        expect(MetricStat).toMatchObject({ Metric: { Namespace: 'AWS/Lambda', MetricName: 'Throttles' }, Stat: 'Sum' });
        watched.push((MetricStat!.Metric.Dimensions as [{ Name: string; Value: { Ref: string } }])[0].Value.Ref);
      }
    }
    expect(watched.sort()).toEqual(allFunctions);
  });

  test('DynamoDB throttles: throttled requests of every operation the functions make, any in 2 of 3 periods', () => {
    const alarm = alarmOf(stack.monitoring.tableThrottlesAlarm);
    expect(alarm).toMatchObject({ Threshold: 1, EvaluationPeriods: 3, DatapointsToAlarm: 2 });
    expect(expressionOf(alarm)).toBe('SUM(FILL(METRICS(), 0))');
    const tableRef = { Ref: logicalIdOf(stack.table.table) };
    const operations = (alarm.Metrics as MetricQuery[])
      .filter((query) => query.MetricStat)
      .map(({ MetricStat }) => {
        expect(MetricStat).toMatchObject({ Metric: { Namespace: 'AWS/DynamoDB', MetricName: 'ThrottledRequests' } });
        const dimensions = MetricStat!.Metric.Dimensions as { Name: string; Value: unknown }[];
        expect(dimensions).toContainEqual({ Name: 'TableName', Value: tableRef });
        return dimensions.find((dimension) => dimension.Name === 'Operation')!.Value;
      });
    expect(operations.sort()).toEqual(
      [
        'BatchGetItem',
        'BatchWriteItem',
        'DeleteItem',
        'GetItem',
        'GetRecords',
        'PutItem',
        'Query',
        'TransactWriteItems',
        'UpdateItem',
      ].sort(),
    );
  });

  test('each workflow has an alarm on any timed-out execution', () => {
    expect(stack.monitoring.executionsTimedOutAlarms).toHaveLength(WORKFLOWS.length);
    for (const [index, { stateMachine }] of stack.workflows.entries()) {
      expect(alarmOf(stack.monitoring.executionsTimedOutAlarms[index]!)).toMatchObject({
        Namespace: 'AWS/States',
        MetricName: 'ExecutionsTimedOut',
        Dimensions: [{ Name: 'StateMachineArn', Value: { Ref: logicalIdOf(stateMachine) } }],
        Statistic: 'Sum',
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      });
    }
  });

  test('webhook failure rate: failed attempts over all attempts above 50% for three periods, with 20 attempts or more', () => {
    const alarm = alarmOf(stack.monitoring.webhookFailureRateAlarm);
    expect(alarm).toMatchObject({
      Threshold: 50,
      ComparisonOperator: 'GreaterThanThreshold',
      EvaluationPeriods: 3,
      DatapointsToAlarm: 3,
    });
    expect(expressionOf(alarm)).toBe(
      'IF(FILL(failed, 0) + FILL(succeeded, 0) >= 20, 100 * FILL(failed, 0) / (FILL(failed, 0) + FILL(succeeded, 0)), 0)',
    );
    const { failed, succeeded } = queriesOf(alarm);
    for (const [query, outcome] of [
      [failed, 'failed'],
      [succeeded, 'succeeded'],
    ] as const) {
      expect(query!.MetricStat).toEqual({
        Metric: {
          Namespace: NAMESPACE,
          MetricName: 'WebhookDeliveryAttempts',
          Dimensions: [{ Name: 'Outcome', Value: outcome }],
        },
        Stat: 'Sum',
        Period: 300,
      });
    }
  });

  test("failed execution endings: any message in the execution-ended task's dead-letter queue, notifying the alarm topic", () => {
    const deadLetters = stack.tasks.endingDeadLetterQueues.get('execution-ended')!;
    const onQueue = Object.values(alarms).filter(
      (alarm) =>
        JSON.stringify(alarm.Properties.Dimensions) ===
        JSON.stringify([{ Name: 'QueueName', Value: { 'Fn::GetAtt': [logicalIdOf(deadLetters), 'QueueName'] } }]),
    );
    expect(onQueue.map((alarm) => alarm.Properties)).toEqual([
      expect.objectContaining({
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Statistic: 'Maximum',
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        EvaluationPeriods: 1,
        TreatMissingData: 'notBreaching',
        AlarmActions: [topicRef],
        AlarmDescription: expect.stringContaining('docs/operations.md, Failed execution endings'),
      }),
    ]);
  });

  test('jobs past their bound: one alarm per job type on any ActiveJobsPastBound', () => {
    const byJobType = stack.monitoring.activeJobsPastBoundAlarms.map(alarmOf);
    expect(byJobType.map((alarm) => alarm.Dimensions)).toEqual(
      WORKFLOWS.map(({ jobType }) => [{ Name: 'JobType', Value: jobType }]),
    );
    for (const alarm of byJobType) {
      expect(alarm).toMatchObject({
        Namespace: NAMESPACE,
        MetricName: 'ActiveJobsPastBound',
        Statistic: 'Sum',
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        TreatMissingData: 'notBreaching',
      });
    }
  });

  test('reconciler errors: any in 15 minutes, and 15 minutes without a run (missing data) breach', () => {
    const alarm = alarmOf(stack.monitoring.reconcileErrorsAlarm);
    expect(alarm).toMatchObject({
      Namespace: NAMESPACE,
      MetricName: 'ReconcileErrors',
      Statistic: 'Sum',
      Period: 900,
      EvaluationPeriods: 1,
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'breaching',
    });
    expect(alarm.Dimensions).toBeUndefined();
  });
});

describe('the model lifecycle alarm', () => {
  test('fires on a reading that the video model is Legacy, unavailable or near its end, or on a day without a reading', () => {
    expect(stack.monitoring.modelLifecycleAlarms).toHaveLength(2);
    const alarm = alarmOf(stack.monitoring.modelLifecycleAlarms[0]!);
    expect(alarm).toMatchObject({
      Namespace: NAMESPACE,
      MetricName: 'ModelLifecycleProblems',
      Dimensions: [{ Name: 'ModelId', Value: 'luma.ray-v2:0' }],
      Statistic: 'Maximum',
      Period: 86400,
      EvaluationPeriods: 1,
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'breaching',
    });
    expect(alarm.AlarmDescription).toContain('docs/operations.md, "Model lifecycle"');
  });

  test('and so does the text model’s, its own alarm', () => {
    const alarm = alarmOf(stack.monitoring.modelLifecycleAlarms[1]!);
    expect(alarm).toMatchObject({
      MetricName: 'ModelLifecycleProblems',
      Dimensions: [{ Name: 'ModelId', Value: 'anthropic.claude-haiku-5-5' }],
      Statistic: 'Maximum',
      Period: 86400,
      TreatMissingData: 'breaching',
    });
    expect(alarm.AlarmDescription).toMatch(/^The text model anthropic\.claude-haiku-5-5 is Legacy/);
    expect(stack.getLogicalId(stack.monitoring.modelLifecycleAlarms[1]!.node.defaultChild as never)).toMatch(
      /^MonitoringTextModelLifecycleAlarm/,
    );
  });
});

describe('the metrics namespace', () => {
  test('every function publishes its business metrics in the stack’s namespace', () => {
    const functions = Object.entries(template.findResources('AWS::Lambda::Function'));
    expect(functions.length).toBeGreaterThan(40);
    for (const [id, resource] of functions) {
      expect({ id, namespace: resource.Properties.Environment.Variables[METRICS_NAMESPACE.variable] }).toEqual({
        id,
        namespace: NAMESPACE,
      });
    }
  });

  test('another stack gets a namespace of its own, which its functions, alarms and dashboard all use', () => {
    const { template: devTemplate } = synthesizedStack({ stage: 'dev', production: 'false' }, 'VideoApiStack-dev');
    const namespacesIn = (resources: object) =>
      [...JSON.stringify(resources).matchAll(/VideoAutomationApi[\w/-]*/g)].map(([namespace]) => namespace);
    const namespaces = new Set([
      ...Object.values(devTemplate.findResources('AWS::Lambda::Function'))
        .map((resource) => resource.Properties.Environment?.Variables?.[METRICS_NAMESPACE.variable])
        // CDK's own function that empties the buckets publishes nothing.
        .filter((namespace) => namespace !== undefined),
      ...namespacesIn(devTemplate.findResources('AWS::CloudWatch::Alarm')),
      ...namespacesIn(devTemplate.findResources('AWS::CloudWatch::Dashboard')),
    ]);
    expect([...namespaces]).toEqual(['VideoAutomationApi/VideoApiStack-dev']);
  });
});

describe('the dashboard', () => {
  const [dashboard] = Object.values(template.findResources('AWS::CloudWatch::Dashboard'));
  const body = (dashboard!.Properties.DashboardBody['Fn::Join'][1] as unknown[])
    .map((part) => (typeof part === 'string' ? part : '<token>'))
    .join('');
  const widgets = (JSON.parse(body) as { widgets: { properties: { title?: string; metrics?: unknown[] } }[] }).widgets;
  const widgetTitled = (title: string) => widgets.find((widget) => widget.properties.title === title)!.properties;

  test('graphs the jobs ended, by type and outcome, searching the stack’s namespace', () => {
    expect(JSON.stringify(widgetTitled('Jobs ended, by type and outcome').metrics)).toContain(
      `SEARCH('{\\"${NAMESPACE}\\",JobType,Outcome} MetricName=\\"JobsEnded\\"', 'Sum', 300)`,
    );
  });

  test('graphs credits charged and refunded, and the providers’ latency p50 and p99', () => {
    const credits = JSON.stringify(widgetTitled('Credits charged and refunded, by job type').metrics);
    expect(credits).toContain('MetricName=\\"CreditsCharged\\"');
    expect(credits).toContain('MetricName=\\"CreditsRefunded\\"');
    const latency = JSON.stringify(widgetTitled('Provider latency (ms), by provider and call').metrics);
    expect(latency).toContain(`{\\"${NAMESPACE}\\",Provider,Operation} MetricName=\\"ProviderLatency\\"', 'p50'`);
    expect(latency).toContain(`{\\"${NAMESPACE}\\",Provider,Operation} MetricName=\\"ProviderLatency\\"', 'p99'`);
  });

  test('graphs webhook attempts by outcome beside their failure rate', () => {
    const metrics = widgetTitled('Webhook delivery attempts').metrics!;
    expect(metrics).toEqual(
      expect.arrayContaining([
        [NAMESPACE, 'WebhookDeliveryAttempts', 'Outcome', 'succeeded', expect.objectContaining({ stat: 'Sum' })],
        [NAMESPACE, 'WebhookDeliveryAttempts', 'Outcome', 'failed', expect.objectContaining({ stat: 'Sum' })],
      ]),
    );
  });

  test('is named after the stack and its region', () => {
    expect(dashboard!.Properties.DashboardName).toEqual({
      'Fn::Join': ['', ['VideoApiStack-', { Ref: 'AWS::Region' }]],
    });
  });
});
