import * as fs from 'node:fs';
import * as path from 'node:path';
import { CLAUDE_HAIKU_5_5, DEFAULT_VIDEO_MODEL_ID, LUMA_RAY2 } from '#domain/models/model-registry';
import { definitionWithWorkers, WORKFLOWS, type Workflow } from '#workflows';
import { PROJECT_ROOT } from '../../lib/constructs/node-function';
import type { WorkflowStateMachine } from '../../lib/constructs/workflow';
import { actionsOf, asText, policyStatements, resourcesOf, statementsOfFunction, synthesizedStack } from './fixtures';

// One synthesized stack for the file: synthesis is the slow part.
const { stack, template, logicalIdOf } = synthesizedStack();

/** Every `action resource` pair a function's role is granted, beyond its log group, X-Ray and the table. */
function grantPairs(fn: Parameters<typeof statementsOfFunction>[2]): string[] {
  return statementsOfFunction(stack, template, fn)
    .filter((statement) => actionsOf(statement).some((action) => !/^(logs|xray|dynamodb):/.test(action)))
    .flatMap((statement) =>
      actionsOf(statement).flatMap((action) =>
        resourcesOf(statement).map((resource) => `${action} ${asText(resource)}`),
      ),
    )
    .sort();
}

const bucket = `<${logicalIdOf(stack.media.bucket)}.Arn>`;
const MODEL_ARN = `arn:<AWS::Partition>:bedrock:<AWS::Region>::foundation-model/${LUMA_RAY2.id}`;
const INVOCATIONS_ARN = 'arn:<AWS::Partition>:bedrock:<AWS::Region>:<AWS::AccountId>:async-invoke/*';

const deployed = (name: string): WorkflowStateMachine => {
  const found = stack.workflows.find(({ workflow }) => workflow.name === name);
  if (!found) throw new Error(`No deployed workflow ${name}`);
  return found;
};
const workerOf = (workflow: string, substitution: string) => deployed(workflow).workers.get(substitution)!;

describe('state machines', () => {
  const machines = template.findResources('AWS::StepFunctions::StateMachine');

  test('there is one STANDARD state machine per workflow of lambdas/workflows.ts', () => {
    expect(Object.keys(machines)).toHaveLength(WORKFLOWS.length);
    expect(stack.workflows.map(({ workflow }) => workflow.name)).toEqual(WORKFLOWS.map(({ name }) => name));
    for (const { stateMachine } of stack.workflows) {
      expect(machines[logicalIdOf(stateMachine)]!.Properties.StateMachineType).toBe('STANDARD');
    }
  });

  test.each(WORKFLOWS.map((workflow) => [workflow.name, workflow] as const))(
    '%s runs its ASL file unchanged except that every ${Substitution} is its worker function ARN',
    (name, workflow) => {
      const { stateMachine, workers } = deployed(name);
      const properties = machines[logicalIdOf(stateMachine)]!.Properties;
      expect(properties.DefinitionSubstitutions).toBeUndefined();
      const definition = asText(properties.DefinitionString);
      expect(definition).not.toContain('${');

      const source = fs.readFileSync(path.join(PROJECT_ROOT, workflow.definitionFile), 'utf8');
      const expected = source.replace(
        /\$\{(\w+)\}/g,
        (_, substitution: string) => `<${logicalIdOf(workers.get(substitution)!)}.Arn>`,
      );
      expect(JSON.parse(definition)).toEqual(JSON.parse(expected));
      // The workers are what the definition names, and every one of them is named.
      expect([...workers.keys()].sort()).toEqual(Object.keys(workflow.workers).sort());
      for (const fn of workers.values()) expect(definition).toContain(`<${logicalIdOf(fn)}.Arn>`);
    },
  );

  test('each logs ALL events without execution data to its own vended-logs group, and traces with X-Ray', () => {
    const logGroups = template.findResources('AWS::Logs::LogGroup');
    for (const { stateMachine, executionLogGroup, workflow } of stack.workflows) {
      const logGroupId = logicalIdOf(executionLogGroup);
      expect(machines[logicalIdOf(stateMachine)]!.Properties).toMatchObject({
        LoggingConfiguration: {
          Level: 'ALL',
          IncludeExecutionData: false,
          Destinations: [{ CloudWatchLogsLogGroup: { LogGroupArn: { 'Fn::GetAtt': [logGroupId, 'Arn'] } } }],
        },
        TracingConfiguration: { Enabled: true },
      });
      expect(logGroups[logGroupId]!.Properties).toMatchObject({
        LogGroupName: `/aws/vendedlogs/states/VideoApiStack-${workflow.name}`,
        RetentionInDays: 30,
      });
    }
  });

  test('each may invoke exactly its own workers, by unqualified ARN, and call no other service beyond logs and X-Ray', () => {
    for (const { stateMachine, workers } of stack.workflows) {
      const role = JSON.stringify({ Ref: logicalIdOf(stateMachine.role) });
      const statements = policyStatements(template).filter((statement) =>
        statement.roles.some((ref) => JSON.stringify(ref) === role),
      );
      const invoke = statements.filter((statement) =>
        actionsOf(statement).some((action) => action.startsWith('lambda:')),
      );
      expect(invoke.flatMap(actionsOf)).toEqual(['lambda:InvokeFunction']);
      expect(invoke.flatMap(resourcesOf).map(asText).sort()).toEqual(
        [...workers.values()].map((fn) => `<${logicalIdOf(fn)}.Arn>`).sort(),
      );
      expect(statements.flatMap(actionsOf).filter((action) => !/^(lambda|logs|xray):/.test(action))).toEqual([]);
    }
  });
});

describe('workers', () => {
  const functions = template.findResources('AWS::Lambda::Function');
  const allWorkers = stack.workflows.flatMap(({ workflow, workers }) =>
    [...workers].map(([substitution, fn]) => ({ workflow, substitution, fn, resource: functions[logicalIdOf(fn)]! })),
  );

  test('every worker runs Node 24 with X-Ray (on arm64, or x86-64 with the media-tools layer), sized as lambdas/workflows.ts says, from its module under lambdas/workers', () => {
    expect(allWorkers).toHaveLength(
      WORKFLOWS.reduce((count, workflow) => count + Object.keys(workflow.workers).length, 0),
    );
    for (const { resource, workflow, substitution } of allWorkers) {
      const worker = workflow.workers[substitution]!;
      expect(resource.Properties).toMatchObject({
        Runtime: 'nodejs24.x',
        Architectures: [worker.mediaTools ? 'x86_64' : 'arm64'],
        MemorySize: worker.memoryMb,
        Timeout: worker.timeoutSeconds,
        TracingConfig: { Mode: 'Active' },
        Handler: 'index.handler',
      });
      expect(resource.Properties.Description).toContain(
        `lambdas/workers/${workflow.workers[substitution]!.handler}.ts`,
      );
    }
  });

  test('every worker knows the table and the bucket, and exactly the settings its entry in lambdas/workflows.ts names', () => {
    const settings = {
      'video-provider': { VIDEO_PROVIDER: 'bedrock', VIDEO_MODEL_ID: 'luma.ray-v2:0' },
      'render-schedule': { VIDEO_RENDER_POLL_SECONDS: '15', VIDEO_RENDER_DEADLINE_SECONDS: '1200' },
      transcription: { TRANSCRIPTION_PROVIDER: 'amazon-transcribe' },
      'language-model': { LANGUAGE_MODEL: 'bedrock', TEXT_MODEL_ID: 'anthropic.claude-haiku-5-5' },
    };
    for (const { resource, workflow, substitution } of allWorkers) {
      const worker = workflow.workers[substitution]!;
      expect(resource.Properties.Environment.Variables).toEqual({
        NODE_OPTIONS: '--enable-source-maps',
        TABLE_NAME: { Ref: logicalIdOf(stack.table.table) },
        MEDIA_BUCKET_NAME: { Ref: logicalIdOf(stack.media.bucket) },
        LOG_LEVEL: 'info',
        METRICS_NAMESPACE: 'VideoAutomationApi/VideoApiStack',
        ...Object.assign({}, ...worker.settings.map((setting) => settings[setting])),
        ...(worker.mediaTools ? { FFMPEG_PATH: '/opt/bin/ffmpeg', FFPROBE_PATH: '/opt/bin/ffprobe' } : {}),
        ...(worker.captionFonts ? { CAPTION_FONTS_DIR: '/opt/caption-fonts' } : {}),
        ...(worker.peopleDetector ? { PEOPLE_DETECTOR_DIR: '/opt/people-detector' } : {}),
      });
    }
  });

  test('only the render workers know the video model, and only start-render the render schedule', () => {
    const variables = (substitution: string) =>
      Object.keys(functions[logicalIdOf(workerOf('video-job', substitution))]!.Properties.Environment.Variables);
    expect(variables('StartRenderFunction')).toEqual(
      expect.arrayContaining(['VIDEO_PROVIDER', 'VIDEO_RENDER_POLL_SECONDS', 'VIDEO_RENDER_DEADLINE_SECONDS']),
    );
    expect(variables('PollRenderFunction')).toContain('VIDEO_PROVIDER');
    expect(variables('PollRenderFunction')).not.toContain('VIDEO_RENDER_POLL_SECONDS');
    expect(variables('FinishJobFunction')).not.toContain('VIDEO_PROVIDER');
  });

  test('the default synthesis renders with an Active model of the registry: Luma Ray2', () => {
    expect(stack.workflows[0]!.workflow.name).toBe('video-job');
    for (const substitution of ['StartRenderFunction', 'PollRenderFunction']) {
      const variables = functions[logicalIdOf(workerOf('video-job', substitution))]!.Properties.Environment.Variables;
      expect(variables.VIDEO_MODEL_ID).toBe(DEFAULT_VIDEO_MODEL_ID);
    }
    expect(LUMA_RAY2).toMatchObject({ id: DEFAULT_VIDEO_MODEL_ID, lifecycle: { status: 'ACTIVE' } });
  });

  test('finish-job cannot call Bedrock', () => {
    expect(
      grantPairs(workerOf('video-job', 'FinishJobFunction')).filter((pair) => pair.startsWith('bedrock:')),
    ).toEqual([]);
  });

  test('start-render cannot write under assets/ (only start images and the provider output under renders/)', () => {
    const objects = grantPairs(workerOf('video-job', 'StartRenderFunction')).filter((pair) => pair.startsWith('s3:'));
    expect(objects).toEqual([
      `s3:GetObject ${bucket}/assets/*`,
      `s3:GetObject ${bucket}/renders/*`,
      `s3:PutObject ${bucket}/renders/*`,
    ]);
  });

  test('start-render may only start async invocations of the video model, and poll-render only read them', () => {
    const bedrock = (substitution: string) =>
      grantPairs(workerOf('video-job', substitution)).filter((pair) => pair.startsWith('bedrock:'));
    expect(bedrock('StartRenderFunction')).toEqual(
      [
        `bedrock:InvokeModel ${INVOCATIONS_ARN}`,
        `bedrock:InvokeModel ${MODEL_ARN}`,
        `bedrock:StartAsyncInvoke ${INVOCATIONS_ARN}`,
        `bedrock:StartAsyncInvoke ${MODEL_ARN}`,
      ].sort(),
    );
    expect(bedrock('PollRenderFunction')).toEqual([`bedrock:GetAsyncInvoke ${INVOCATIONS_ARN}`]);
  });

  test('finish-video runs ffmpeg from the media-tools layer, reading and writing only under renders/', () => {
    const finishVideo = workerOf('video-job', 'FinishVideoFunction');
    const resource = template.findResources('AWS::Lambda::Function')[logicalIdOf(finishVideo)]!;
    const [layer] = Object.entries(template.findResources('AWS::Lambda::LayerVersion'))
      .filter(([, resource]) => String(resource.Properties.Description).startsWith('ffmpeg'))
      .map(([id]) => id);
    expect(resource.Properties.Layers).toEqual([{ Ref: layer }]);
    expect(resource.Properties.Environment.Variables).toMatchObject({
      FFMPEG_PATH: '/opt/bin/ffmpeg',
      FFPROBE_PATH: '/opt/bin/ffprobe',
    });
    expect(grantPairs(finishVideo)).toEqual([`s3:GetObject ${bucket}/renders/*`, `s3:PutObject ${bucket}/renders/*`]);
  });

  test('poll-render may not write under renders/: Bedrock writes the render with the rights of its starter', () => {
    expect(
      grantPairs(workerOf('video-job', 'PollRenderFunction')).filter((pair) => pair.startsWith('s3:PutObject')),
    ).toEqual([]);
  });

  test('poll-render lists only under renders/, to find the video Bedrock named', () => {
    const listings = statementsOfFunction(stack, template, workerOf('video-job', 'PollRenderFunction')).filter(
      (statement) => actionsOf(statement).includes('s3:ListBucket'),
    );
    expect(listings).toEqual([expect.objectContaining({ Condition: { StringLike: { 's3:prefix': 'renders/*' } } })]);
  });
});

describe('the text model of the language step', () => {
  const functions = template.findResources('AWS::Lambda::Function');
  const PROFILE_ARN =
    'arn:<AWS::Partition>:bedrock:<AWS::Region>:<AWS::AccountId>:inference-profile/us.anthropic.claude-haiku-5-5';

  /** The Bedrock statements of a function, each as its actions, resources (as text) and condition. */
  const bedrockStatements = (fn: Parameters<typeof statementsOfFunction>[2], from = { stack, template }) =>
    statementsOfFunction(from.stack, from.template, fn)
      .filter((statement) => actionsOf(statement).some((action) => action.startsWith('bedrock:')))
      .map((statement) => ({
        actions: actionsOf(statement),
        resources: resourcesOf(statement).map(asText),
        condition: (statement as { Condition?: unknown }).Condition,
      }));

  test('choose-clips may converse with it through its inference profile only, and knows which it is', () => {
    expect(bedrockStatements(workerOf('split-job', 'ChooseClipsFunction'))).toEqual([
      { actions: ['bedrock:InvokeModel'], resources: [PROFILE_ARN], condition: undefined },
      {
        actions: ['bedrock:InvokeModel'],
        resources: ['arn:<AWS::Partition>:bedrock:*::foundation-model/anthropic.claude-haiku-5-5'],
        condition: {
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
                  ':inference-profile/us.anthropic.claude-haiku-5-5',
                ],
              ],
            },
          },
        },
      },
    ]);
    const variables =
      functions[logicalIdOf(workerOf('split-job', 'ChooseClipsFunction'))]!.Properties.Environment.Variables;
    expect(variables).toMatchObject({ LANGUAGE_MODEL: 'bedrock', TEXT_MODEL_ID: CLAUDE_HAIKU_5_5.id });
  });

  test('no other worker may call it', () => {
    for (const deployedWorkflow of stack.workflows) {
      for (const [substitution, fn] of deployedWorkflow.workers) {
        if (substitution === 'ChooseClipsFunction') continue;
        expect({ substitution, pairs: grantPairs(fn).filter((pair) => pair.includes('inference-profile')) }).toEqual({
          substitution,
          pairs: [],
        });
      }
    }
  });

  test('choose-clips waits for it within its own time-out', () => {
    expect(functions[logicalIdOf(workerOf('split-job', 'ChooseClipsFunction'))]!.Properties.Timeout).toBe(180);
  });

  test('a deployment without a language model grants nothing of it, sets no model and watches only the video model', () => {
    const none = synthesizedStack({ languageModel: 'none' }, 'NoLanguageModel');
    const chooseClips = none.stack.workflows
      .find(({ workflow }) => workflow.name === 'split-job')!
      .workers.get('ChooseClipsFunction')!;
    expect(bedrockStatements(chooseClips, none)).toEqual([]);
    const variables =
      none.template.findResources('AWS::Lambda::Function')[none.logicalIdOf(chooseClips)]!.Properties.Environment
        .Variables;
    expect(variables.LANGUAGE_MODEL).toBe('none');
    expect(variables.TEXT_MODEL_ID).toBeUndefined();
    const watch = none.stack.tasks.functions.get('watch-model-lifecycle')!;
    expect(
      none.template.findResources('AWS::Lambda::Function')[none.logicalIdOf(watch)]!.Properties.Environment.Variables
        .WATCHED_MODEL_IDS,
    ).toBe(LUMA_RAY2.id);
    expect(none.stack.monitoring.modelLifecycleAlarms).toHaveLength(1);
  });
});

describe("the video model's region", () => {
  test("is the stack's own, which a template rule holds to the model's regions before anything is created", () => {
    const rules = template.toJSON().Rules as Record<
      string,
      { Assertions: { Assert: unknown; AssertDescription: string }[] }
    >;
    expect(rules.VideoModelRegion!.Assertions).toEqual([
      {
        Assert: { 'Fn::Contains': [['us-west-2'], { Ref: 'AWS::Region' }] },
        AssertDescription: expect.stringMatching(
          /^This stack must be deployed in us-west-2: the video model luma\.ray-v2:0 runs in us-west-2 only/,
        ),
      },
    ]);
  });

  test('follows the configured model: Nova Reel 1.1 is held to us-east-1', () => {
    const { template: nova } = synthesizedStack(
      { videoModelId: 'amazon.nova-reel-v1:1', modelsPastEndOfLife: ['amazon.nova-reel-v1:1'] },
      'NovaRegion',
    );
    const rules = nova.toJSON().Rules as Record<string, { Assertions: { Assert: unknown }[] }>;
    expect(rules.VideoModelRegion!.Assertions[0]!.Assert).toEqual({
      'Fn::Contains': [['us-east-1'], { Ref: 'AWS::Region' }],
    });
  });
});

describe('ASL files and lambdas/workflows.ts must agree', () => {
  const videoJob = WORKFLOWS.find(({ name }) => name === 'video-job')!;
  const arns = Object.fromEntries(Object.keys(videoJob.workers).map((name) => [name, `arn:test:${name}`]));

  test('a ${Substitution} without a worker fails the synthesis, naming it', () => {
    const workers = Object.fromEntries(
      Object.entries(videoJob.workers).filter(([name]) => name !== 'FinishJobFunction'),
    );
    const workflow: Workflow = { ...videoJob, workers };
    expect(() => definitionWithWorkers(workflow, arns)).toThrow(/no worker for \$\{FinishJobFunction\}/);
  });

  test('a worker no state names fails the synthesis, naming it', () => {
    const workflow: Workflow = {
      ...videoJob,
      workers: {
        ...videoJob.workers,
        SpareFunction: {
          handler: 'video-jobs/finish-job',
          table: [],
          grants: [],
          memoryMb: 512,
          timeoutSeconds: 60,
          settings: [],
        },
      },
    };
    expect(() => definitionWithWorkers(workflow, arns)).toThrow(/not used by any state: SpareFunction/);
  });

  test("a workflow whose time-out is not its own ASL file's fails the synthesis", () => {
    const splitJob = WORKFLOWS.find(({ name }) => name === 'split-job')!;
    const workflow: Workflow = { ...videoJob, executionTimeoutSeconds: splitJob.executionTimeoutSeconds };
    expect(() => definitionWithWorkers(workflow, arns)).toThrow(
      /video-job.asl.json has TimeoutSeconds 3600, but the video-job workflow of lambdas\/workflows.ts times out after 14400 seconds: its executionTimeoutSeconds must be imported from its own ASL file/,
    );
  });

  test.each(WORKFLOWS.map((workflow) => [workflow.name, workflow] as const))(
    'every outcome the %s ASL file compares $.outcome to, or writes itself, is one lambdas/workflows.ts lists',
    (_, workflow) => {
      expect(() => definitionWithWorkers(workflow, {})).not.toThrow();
    },
  );

  test('a Choice on an outcome no step produces fails the synthesis, naming the file, the state and the value', () => {
    const workflow: Workflow = {
      ...videoJob,
      outcomes: videoJob.outcomes.filter((outcome) => outcome !== 'in_progress'),
    };
    expect(() => definitionWithWorkers(workflow, arns)).toThrow(
      'state-machines/video-job.asl.json: the Choice state RenderOutcome compares $.outcome to "in_progress", which no step produces',
    );
  });

  test('an outcome the ASL file writes itself must be listed too', () => {
    const splitJob = WORKFLOWS.find(({ name }) => name === 'split-job')!;
    const workflow: Workflow = {
      ...splitJob,
      outcomes: splitJob.outcomes.filter((outcome) => outcome !== 'unreadable'),
    };
    expect(() => definitionWithWorkers(workflow, {})).toThrow(
      'state-machines/split-job.asl.json: the state SourceUnreadable writes the outcome "unreadable", which is not listed',
    );
  });

  test('Choices inside a Map, and rules inside And and Not, are read too', () => {
    const workflow: Workflow = {
      ...videoJob,
      definitionFile: 'test/infra/state-machines/nested-outcome-choice.asl.json',
      executionTimeoutSeconds: 60,
      outcomes: ['done'],
      workers: { StepFunction: videoJob.workers.FinishJobFunction! },
    };
    expect(() => definitionWithWorkers(workflow, {})).toThrow(
      /nested-outcome-choice.asl.json: the Choice state ItemOutcome compares \$.outcome to "skipped", which no step produces \(lambdas\/workflows.ts lists the outcomes of the video-job workflow: done\)/,
    );
    expect(() => definitionWithWorkers({ ...workflow, outcomes: ['done', 'skipped'] }, {})).not.toThrow();
  });

  test.each(WORKFLOWS.map((workflow) => [workflow.name, workflow] as const))(
    'the deployed %s state machine times out as lambdas/workflows.ts says',
    (_, workflow) => {
      const definition = JSON.parse(definitionWithWorkers(workflow, {})) as { TimeoutSeconds: number };
      expect(definition.TimeoutSeconds).toBe(workflow.executionTimeoutSeconds);
    },
  );
});

describe('monitoring', () => {
  const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm'));

  test('each workflow has an alarm on any failed execution', () => {
    for (const { stateMachine } of stack.workflows) {
      const failed = alarms.filter(
        (alarm) =>
          alarm.Properties.MetricName === 'ExecutionsFailed' &&
          JSON.stringify(alarm.Properties.Dimensions) ===
            JSON.stringify([{ Name: 'StateMachineArn', Value: { Ref: logicalIdOf(stateMachine) } }]),
      );
      expect(failed).toHaveLength(1);
      expect(failed[0]!.Properties).toMatchObject({
        Namespace: 'AWS/States',
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      });
    }
  });

  test('each worker has an errors alarm, like the API functions (a worker crash ends in FinishCrashed, not in a failed execution)', () => {
    for (const { workers } of stack.workflows) {
      for (const fn of workers.values()) {
        const errors = alarms.filter(
          (alarm) =>
            alarm.Properties.MetricName === 'Errors' &&
            JSON.stringify(alarm.Properties.Dimensions) ===
              JSON.stringify([{ Name: 'FunctionName', Value: { Ref: logicalIdOf(fn) } }]),
        );
        expect(errors).toHaveLength(1);
      }
    }
  });

  test('the dashboard graphs started, failed and timed-out executions and execution time', () => {
    const [dashboard] = Object.values(template.findResources('AWS::CloudWatch::Dashboard'));
    const body = asText(dashboard!.Properties.DashboardBody);
    for (const metric of ['ExecutionsStarted', 'ExecutionsFailed', 'ExecutionsTimedOut', 'ExecutionTime']) {
      expect(body).toContain(
        `"AWS/States","${metric}","StateMachineArn","<${logicalIdOf(deployed('video-job').stateMachine)}>"`,
      );
    }
  });
});
