import {
  CONFIG_KEYS,
  deploymentConfigFrom,
  deploymentConfigOf,
  lifecycleNoticeOf,
  stackNameOf,
  type DeploymentConfig,
} from '../../lib/config';
import { floodControlFrom } from '../../lib/flood-control';
import { VideoApiStack } from '../../lib/video-api-stack';
import { appWithoutBundling, synthesizedStack } from './fixtures';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { CLAUDE_HAIKU_5_5, LUMA_RAY2, type TextModelEntry } from '#domain/models/model-registry';
import { ROUTES } from '#routes';

/** The configuration from these context values, as `-c` or cdk.json would give them. */
const configWith = (context: Record<string, unknown>): DeploymentConfig => deploymentConfigFrom((key) => context[key]);

describe('the language model and its text model', () => {
  const at = (day: string, context: Record<string, unknown>) =>
    deploymentConfigFrom((key) => context[key], new Date(`${day}T12:00:00Z`));
  /** A text model of the registry as it would stand once its end of life is announced and past. */
  const ENDED: TextModelEntry = {
    ...CLAUDE_HAIKU_5_5,
    lifecycle: {
      status: 'LEGACY',
      legacySince: '2027-10-07',
      endOfLife: '2028-04-07',
      source: 'https://docs.aws.amazon.com/x',
    },
  };
  const TEXT = { role: 'text', key: CONFIG_KEYS.textModelId, defaultId: CLAUDE_HAIKU_5_5.id } as const;

  test('reads transcripts with Claude Haiku 5.5 through Bedrock unless told, which is Active: no notice', () => {
    expect(at('2026-11-28', {}).providers.language).toEqual({ kind: 'bedrock', model: CLAUDE_HAIKU_5_5 });
    expect(at('2026-11-28', { textModelId: 'anthropic.claude-haiku-5-5' }).providers.language).toEqual({
      kind: 'bedrock',
      model: CLAUDE_HAIKU_5_5,
    });
  });

  test('none leaves clips to the signals, and then takes no text model', () => {
    expect(at('2026-11-28', { languageModel: 'none' }).providers.language).toEqual({ kind: 'none' });
    expect(() => at('2026-11-28', { languageModel: 'none', textModelId: CLAUDE_HAIKU_5_5.id })).toThrow(
      'textModelId applies only with languageModel=bedrock',
    );
  });

  test('refuses a language model or a text model it does not know, naming the choices', () => {
    expect(() => at('2026-11-28', { languageModel: 'wink-nlp' })).toThrow(/languageModel.*one of bedrock, none/);
    expect(() => at('2026-11-28', { textModelId: LUMA_RAY2.id })).toThrow(
      /textModelId.*one of anthropic\.claude-haiku-5-5/,
    );
  });

  test('a text model past its end of life fails the synthesis as a video model does, unless acknowledged', () => {
    const now = new Date('2028-05-01T12:00:00Z');
    expect(() => lifecycleNoticeOf(ENDED, TEXT, [], now)).toThrow(
      /^The text model anthropic\.claude-haiku-5-5 \(Claude Haiku 5\.5\) is past its end of life: its end of life was 2028-04-07 .*-c textModelId=… \(anthropic\.claude-haiku-5-5 by default\).*modelsPastEndOfLife='\["anthropic\.claude-haiku-5-5"\]'/,
    );
    expect(lifecycleNoticeOf(ENDED, TEXT, [ENDED.id], now)).toMatch(/its end of life was 2028-04-07/);
    expect(lifecycleNoticeOf(ENDED, TEXT, [], new Date('2028-02-01T12:00:00Z'))).toMatch(
      /^The text model .*: its end of life is 2028-04-07, in 67 days/,
    );
    expect(lifecycleNoticeOf(CLAUDE_HAIKU_5_5, TEXT, [], new Date('2026-11-28T12:00:00Z'))).toBeUndefined();
  });

  test('modelsPastEndOfLife may name text models', () => {
    expect(at('2026-11-28', { modelsPastEndOfLife: [CLAUDE_HAIKU_5_5.id] }).providers.language.kind).toBe('bedrock');
    expect(() => at('2026-11-28', { modelsPastEndOfLife: ['anthropic.claude-haiku-4-5'] })).toThrow(
      /modelsPastEndOfLife.*luma\.ray-v2:0, amazon\.nova-reel-v1:1, anthropic\.claude-haiku-5-5/,
    );
  });
});

describe('the video model and its lifecycle', () => {
  const at = (day: string, context: Record<string, unknown>) =>
    deploymentConfigFrom((key) => context[key], new Date(`${day}T12:00:00Z`));

  test('a configured model past its documented end of life fails the synthesis, naming it and the way out', () => {
    expect(() => at('2026-11-28', { videoModelId: 'amazon.nova-reel-v1:1' })).toThrow(
      /^The video model amazon\.nova-reel-v1:1 \(Amazon Nova Reel 1\.1\) is past its end of life: its end of life was 2026-09-30 \(https:\/\/docs\.aws\.amazon\.com\/bedrock\/latest\/userguide\/model-lifecycle\.html\), and calls to it fail\. Choose another with -c videoModelId=… \(luma\.ray-v2:0 by default\), or, .*modelsPastEndOfLife='\["amazon\.nova-reel-v1:1"\]'/,
    );
  });

  test('an account with an arrangement to keep a model past its end names it, and synthesizes with a notice', () => {
    const config = at('2026-11-28', {
      videoModelId: 'amazon.nova-reel-v1:1',
      modelsPastEndOfLife: ['amazon.nova-reel-v1:1'],
    });
    expect(config.providers.video.id).toBe('amazon.nova-reel-v1:1');
    expect(config.providers.videoLifecycleNotice).toMatch(/its end of life was 2026-09-30/);
  });

  test('a model within 90 days of its end of life, or Legacy, synthesizes with a notice', () => {
    expect(at('2026-08-01', { videoModelId: 'amazon.nova-reel-v1:1' }).providers.videoLifecycleNotice).toBe(
      'The video model amazon.nova-reel-v1:1 (Amazon Nova Reel 1.1): its end of life is 2026-09-30, in 61 days (https://docs.aws.amazon.com/bedrock/latest/userguide/model-lifecycle.html). Plan the move to an active model.',
    );
    expect(at('2026-05-01', { videoModelId: 'amazon.nova-reel-v1:1' }).providers.videoLifecycleNotice).toMatch(
      /it is Legacy since 2026-03-30/,
    );
  });

  test('the default, Luma Ray2, is Active: no notice', () => {
    expect(at('2026-11-28', {}).providers).toEqual({
      video: LUMA_RAY2,
      transcription: 'amazon-transcribe',
      language: { kind: 'bedrock', model: CLAUDE_HAIKU_5_5 },
    });
  });

  test("the synthesis reports a model's lifecycle notice as a warning on the stack", () => {
    const stack = new VideoApiStack(
      appWithoutBundling({ videoModelId: 'amazon.nova-reel-v1:1', modelsPastEndOfLife: '["amazon.nova-reel-v1:1"]' }),
      'NovaStack',
    );
    const warnings = Annotations.fromStack(stack).findWarning(
      '/NovaStack',
      Match.stringLikeRegexp(
        '^The video model amazon.nova-reel-v1:1 \\(Amazon Nova Reel 1.1\\): its end of life was 2026-09-30',
      ),
    );
    expect(warnings).toHaveLength(1);
  });

  test('the video credit rates reach the create route, and only it', () => {
    const { stack, template, logicalIdOf } = synthesizedStack(
      { videoCreditsPerSecond: { text_to_video: 12, image_to_video: 15 } },
      'PricedStack',
    );
    const functions = template.findResources('AWS::Lambda::Function');
    const priced = Object.entries(functions)
      .filter(([, resource]) => resource.Properties.Environment?.Variables?.VIDEO_CREDITS_PER_SECOND)
      .map(([id, resource]) => [id, resource.Properties.Environment.Variables.VIDEO_CREDITS_PER_SECOND]);
    expect(priced).toEqual([
      [logicalIdOf(stack.httpApi.functions.get('createVideoJob')!), '{"text_to_video":12,"image_to_video":15}'],
    ]);
  });

  test("a stack whose region is known and is not the model's is refused at synthesis", () => {
    expect(
      () =>
        new VideoApiStack(appWithoutBundling(), 'EastStack', { env: { account: '111111111111', region: 'us-east-1' } }),
    ).toThrow(/^The stack cannot be deployed in us-east-1: the video model luma\.ray-v2:0 runs in us-west-2 only/);
  });
});

describe('the deployment configuration', () => {
  test('with nothing set is the production stage with the documented defaults', () => {
    expect(configWith({})).toEqual({
      stage: { name: 'prod', production: true },
      providers: {
        video: LUMA_RAY2,
        transcription: 'amazon-transcribe',
        language: { kind: 'bedrock', model: CLAUDE_HAIKU_5_5 },
      },
      videoCreditsPerSecond: { text_to_video: 2, image_to_video: 3 },
      webhookDeliveryEnabled: true,
      logRetention: { functions: 30, stateMachines: 30, accessLogs: 90 },
      floodControl: floodControlFrom(() => undefined),
      mediaTools: { kind: 'bundled' },
    });
  });

  test("takes the operator's own ffmpeg layer with the version it holds, on x86-64 unless told", () => {
    const layerArn = 'arn:aws:lambda:us-east-1:123456789012:layer:ffmpeg-7:3';
    expect(configWith({ mediaToolsLayerArn: layerArn, mediaToolsVersion: '7.1' }).mediaTools).toEqual({
      kind: 'layer',
      layerArn,
      ffmpegVersion: '7.1',
      architecture: 'x86_64',
    });
    expect(
      configWith({ mediaToolsLayerArn: layerArn, mediaToolsVersion: '7.1', mediaToolsArchitecture: 'arm64' })
        .mediaTools,
    ).toMatchObject({ architecture: 'arm64' });
    expect(() => configWith({ mediaToolsLayerArn: layerArn })).toThrow(
      /mediaToolsLayerArn needs mediaToolsVersion: the ffmpeg version the layer holds/,
    );
    expect(() => configWith({ mediaToolsVersion: '7.1' })).toThrow(
      /mediaToolsVersion apply only with mediaToolsLayerArn/,
    );
    expect(() =>
      configWith({ mediaToolsLayerArn: layerArn, mediaToolsVersion: '7.1', mediaToolsArchitecture: 'arm' }),
    ).toThrow(/mediaToolsArchitecture must be one of x86_64, arm64/);
    expect(() =>
      configWith({ mediaToolsLayerArn: 'arn:aws:lambda:us-east-1:1:layer:ffmpeg', mediaToolsVersion: '7.1' }),
    ).toThrow(/mediaToolsLayerArn must be the ARN of a Lambda layer version/);
    expect(() => configWith({ mediaToolsLayerArn: layerArn, mediaToolsVersion: '7.1; rm -rf' })).toThrow(
      /mediaToolsVersion must be a version/,
    );
  });

  test('reads every key in the forms the CLI gives (strings) and cdk.json gives (JSON values)', () => {
    const fromCli = configWith({
      stage: 'staging',
      production: 'false',
      videoModelId: 'amazon.nova-reel-v1:1',
      modelsPastEndOfLife: '["amazon.nova-reel-v1:1"]',
      videoCreditsPerSecond: '{"text_to_video":12,"image_to_video":15}',
      transcriptionProvider: 'none',
      webhookDeliveryEnabled: 'false',
      alarmEmail: 'oncall@example.com',
      functionLogRetentionDays: '14',
      stateMachineLogRetentionDays: '60',
      accessLogRetentionDays: '365',
      stageThrottleRateLimit: '50',
      stageThrottleBurstLimit: '80',
    });
    expect(fromCli).toMatchObject({
      stage: { name: 'staging', production: false },
      providers: { video: { id: 'amazon.nova-reel-v1:1' }, transcription: 'none' },
      videoCreditsPerSecond: { text_to_video: 12, image_to_video: 15 },
      webhookDeliveryEnabled: false,
      alarmEmail: 'oncall@example.com',
      logRetention: { functions: 14, stateMachines: 60, accessLogs: 365 },
      floodControl: { stageThrottle: { rateLimit: 50, burstLimit: 80 } },
    });
    const fromJson = configWith({
      stage: 'staging',
      production: false,
      webhookDeliveryEnabled: false,
      functionLogRetentionDays: 14,
      stateMachineLogRetentionDays: 60,
      accessLogRetentionDays: 365,
    });
    expect(fromJson.stage.production).toBe(false);
    expect(fromJson.logRetention).toEqual(fromCli.logRetention);
  });

  describe('the governed profile', () => {
    const subnets = [
      { subnetId: 'subnet-0aaaaaaaaaaaaaaa1', availabilityZone: 'us-east-1a', routeTableId: 'rtb-0aaaaaaaaaaaaaaa1' },
      { subnetId: 'subnet-0bbbbbbbbbbbbbbb2', availabilityZone: 'us-east-1b', routeTableId: 'rtb-0bbbbbbbbbbbbbbb2' },
    ];
    const network = { vpcId: 'vpc-0123456789abcdef0', vpcSubnets: JSON.stringify(subnets) };

    test('is off unless told, and then takes the VPC and its subnets, from the CLI (text) or cdk.json (JSON)', () => {
      expect(configWith({}).governed).toBeUndefined();
      expect(configWith({ governed: 'false' }).governed).toBeUndefined();
      const expected = { vpcId: 'vpc-0123456789abcdef0', subnets };
      expect(configWith({ governed: 'true', ...network }).governed).toEqual(expected);
      expect(configWith({ governed: true, vpcId: network.vpcId, vpcSubnets: subnets }).governed).toEqual(expected);
    });

    test('keeps every log group a year unless told longer, and refuses shorter', () => {
      expect(configWith({ governed: 'true', ...network }).logRetention).toEqual({
        functions: 365,
        stateMachines: 365,
        accessLogs: 365,
      });
      expect(configWith({ governed: 'true', ...network, accessLogRetentionDays: '731' }).logRetention.accessLogs).toBe(
        731,
      );
      expect(() => configWith({ governed: 'true', ...network, functionLogRetentionDays: '90' })).toThrow(
        /functionLogRetentionDays must be at least 365 \(days\) with governed=true, got "90"/,
      );
    });

    test('needs the VPC and its subnets, which mean nothing without it', () => {
      expect(() => configWith({ governed: 'true' })).toThrow(/governed=true needs vpcId and vpcSubnets/);
      expect(() => configWith({ governed: 'true', vpcId: network.vpcId })).toThrow(/governed=true needs vpcSubnets/);
      expect(() => configWith(network)).toThrow(/vpcId and vpcSubnets apply only with governed=true/);
    });

    test.each([
      [{ vpcId: 'vpc-1' }, /vpcId must be a VPC id/],
      [{ vpcSubnets: '[]' }, /vpcSubnets must be a non-empty JSON list of subnets/],
      [{ vpcSubnets: 'subnet-0aaaaaaaaaaaaaaa1' }, /vpcSubnets must be a non-empty JSON list/],
      [
        { vpcSubnets: JSON.stringify([{ subnetId: 'subnet-0aaaaaaaaaaaaaaa1' }]) },
        /vpcSubnets must be a list of subnets, each/,
      ],
      [
        { vpcSubnets: JSON.stringify([{ ...subnets[0], availabilityZone: 'us-east-1' }]) },
        /vpcSubnets must be a list of subnets/,
      ],
      [{ vpcSubnets: JSON.stringify([{ ...subnets[0], routeTableId: 'rtb-x' }]) }, /vpcSubnets must be a list/],
      [{ vpcSubnets: JSON.stringify([{ ...subnets[0], extra: 1 }]) }, /vpcSubnets must be a list/],
    ])('refuses %p', (values, message) => {
      expect(() => configWith({ governed: 'true', ...network, ...values })).toThrow(message);
    });
  });

  test('treats every stage as production unless told otherwise', () => {
    expect(configWith({ stage: 'dev' }).stage).toEqual({ name: 'dev', production: true });
    expect(configWith({ stage: 'dev', production: 'false' }).stage).toEqual({ name: 'dev', production: false });
  });

  test.each([
    [CONFIG_KEYS.stage, 'Prod', /stage must be a lower-case letter/],
    [CONFIG_KEYS.stage, 'my_stage', /stage must be/],
    [CONFIG_KEYS.stage, 'a-stage-name-far-too-long', /stage must be/],
    [CONFIG_KEYS.production, 'yes', /production must be true or false, got "yes"/],
    [
      CONFIG_KEYS.videoModelId,
      'amazon.nova-reel-v1:0',
      /videoModelId must be one of luma\.ray-v2:0, amazon\.nova-reel-v1:1, got "amazon\.nova-reel-v1:0"/,
    ],
    [CONFIG_KEYS.modelsPastEndOfLife, 'amazon.nova-reel-v1:1', /modelsPastEndOfLife must be a JSON list of model ids/],
    [CONFIG_KEYS.modelsPastEndOfLife, '["gpt-video"]', /modelsPastEndOfLife must be a JSON list of model ids/],
    [
      CONFIG_KEYS.videoCreditsPerSecond,
      '{"text_to_video":0,"image_to_video":3}',
      /videoCreditsPerSecond must be a JSON object of whole credits from 1 to 1000/,
    ],
    [CONFIG_KEYS.transcriptionProvider, 'whisper', /transcriptionProvider must be one of amazon-transcribe, none/],
    // The local recognizer needs a process that outlives an invocation: the local stack's only.
    [
      CONFIG_KEYS.transcriptionProvider,
      'pocketsphinx',
      /transcriptionProvider must be one of amazon-transcribe, none,/,
    ],
    [CONFIG_KEYS.webhookDeliveryEnabled, 'TRUE', /webhookDeliveryEnabled must be true or false/],
    [CONFIG_KEYS.alarmEmail, 'oncall', /alarmEmail must be an e-mail address, got "oncall"/],
    [
      CONFIG_KEYS.functionLogRetentionDays,
      '45',
      /functionLogRetentionDays must be one of 1, 3, 5, .* \(days\), got "45"/,
    ],
    [CONFIG_KEYS.stateMachineLogRetentionDays, 0, /stateMachineLogRetentionDays must be one of/],
    [CONFIG_KEYS.accessLogRetentionDays, '9999', /accessLogRetentionDays must be one of/],
    ['stageThrottleRateLimit', '-1', /stageThrottleRateLimit must be a number greater than 0/],
    ['stageThrottleBurstLimit', '2.5', /stageThrottleBurstLimit must be a whole number/],
  ])('refuses %s=%p with a message naming the key', (key, value, message) => {
    expect(() => configWith({ [key]: value })).toThrow(message);
  });

  test('every refusal says where the value is set', () => {
    expect(() => configWith({ transcriptionProvider: 'whisper' })).toThrow(
      /\(set with -c transcriptionProvider=… or in cdk.json's context\)/,
    );
  });

  test('refuses to make the prod stage a non-production one', () => {
    expect(() => configWith({ production: 'false' })).toThrow(/production=false cannot apply to the prod stage/);
  });

  test('names the stack after the stage, keeping the production stage on the original name', () => {
    expect(stackNameOf({ name: 'prod', production: true })).toBe('VideoApiStack');
    expect(stackNameOf({ name: 'dev', production: false })).toBe('VideoApiStack-dev');
    expect(stackNameOf({ name: 'eu-prod', production: true })).toBe('VideoApiStack-eu-prod');
  });

  test("is read from the app's context, which cdk.json and -c fill", () => {
    const app = appWithoutBundling({ stage: 'dev', production: 'false', alarmEmail: 'oncall@example.com' });
    expect(deploymentConfigOf(app)).toEqual(
      configWith({ stage: 'dev', production: 'false', alarmEmail: 'oncall@example.com' }),
    );
  });
});

describe('the stack built from the configuration', () => {
  const { stack, template, logicalIdOf } = synthesizedStack({
    transcriptionProvider: 'none',
    functionLogRetentionDays: '14',
    stateMachineLogRetentionDays: '60',
    accessLogRetentionDays: '365',
  });
  const functions = template.findResources('AWS::Lambda::Function');
  const logGroups = template.findResources('AWS::Logs::LogGroup');

  test('tells the transcribing workers the transcription provider', () => {
    const transcribing = stack.workflows.flatMap(({ workflow, workers }) =>
      Object.entries(workflow.workers)
        .filter(([, worker]) => worker.settings.includes('transcription'))
        .map(([substitution]) => workers.get(substitution)!),
    );
    expect(transcribing.length).toBeGreaterThan(0);
    for (const worker of transcribing) {
      expect(functions[logicalIdOf(worker)]!.Properties.Environment.Variables.TRANSCRIPTION_PROVIDER).toBe('none');
    }
  });

  test("keeps every function's logs, the executions' logs and the access logs for their configured days", () => {
    for (const resource of Object.values(functions)) {
      expect(logGroups[resource.Properties.LoggingConfig.LogGroup.Ref]!.Properties.RetentionInDays).toBe(14);
    }
    for (const { executionLogGroup } of stack.workflows) {
      expect(logGroups[logicalIdOf(executionLogGroup)]!.Properties.RetentionInDays).toBe(60);
    }
    expect(logGroups[logicalIdOf(stack.httpApi.accessLogGroup)]!.Properties.RetentionInDays).toBe(365);
  });

  test('an invalid setting fails the synthesis of the stack, naming the key', () => {
    expect(() => new VideoApiStack(appWithoutBundling({ accessLogRetentionDays: 'forever' }), 'Bad')).toThrow(
      /accessLogRetentionDays must be one of/,
    );
  });
});

describe('ffmpeg in AWS', () => {
  const LAYER_ARN = 'arn:aws:lambda:us-east-1:123456789012:layer:ffmpeg-7:3';

  /** Each function that runs ffmpeg, by path, with the ffmpeg synthesis reports for it. */
  function reported(stack: VideoApiStack): Map<string, string> {
    const infos = Annotations.fromStack(stack).findInfo('*', Match.stringLikeRegexp('^Runs ffmpeg'));
    return new Map(infos.map((info) => [info.id, String(info.entry.data)]));
  }
  const toolUsers = (stack: VideoApiStack) => [
    ...ROUTES.filter((route) => route.mediaTools).map((route) => stack.httpApi.functions.get(route.operationId)!),
    ...stack.workflows.flatMap(({ workflow, workers }) =>
      Object.entries(workflow.workers)
        .filter(([, worker]) => worker.mediaTools)
        .map(([substitution]) => workers.get(substitution)!),
    ),
  ];

  test("is by default the repository's build, which every function running it reports at synthesis", () => {
    const { stack } = synthesizedStack();
    const reports = reported(stack);
    expect([...reports.keys()].sort()).toEqual(
      toolUsers(stack)
        .map((fn) => `/${fn.node.path}`)
        .sort(),
    );
    for (const report of reports.values()) {
      expect(report).toMatch(
        /^Runs ffmpeg from @ffmpeg-installer\/linux-x64 \S+ \(a 2018 static build; set mediaToolsLayerArn/,
      );
    }
  });

  test("is the operator's layer when one is named: attached by ARN, on its architecture, reported with its version", () => {
    const { stack, template, logicalIdOf } = synthesizedStack({
      mediaToolsLayerArn: LAYER_ARN,
      mediaToolsVersion: '7.1',
      mediaToolsArchitecture: 'arm64',
    });
    const layers = Object.values(template.findResources('AWS::Lambda::LayerVersion'));
    expect(layers.map((layer) => String(layer.Properties.Description))).toEqual([
      expect.stringMatching(/^Caption fonts /),
      expect.stringMatching(/^People detector /),
    ]);
    const functions = template.findResources('AWS::Lambda::Function');
    const users = toolUsers(stack);
    expect(users.length).toBeGreaterThan(4);
    for (const fn of users) {
      const { Layers, Architectures } = functions[logicalIdOf(fn)]!.Properties;
      expect(Architectures).toEqual(['arm64']);
      expect(Layers).toContain(LAYER_ARN);
    }
    expect(Object.values(functions).filter((resource) => resource.Properties.Layers).length).toBe(users.length);
    expect(new Set(reported(stack).values())).toEqual(new Set([`Runs ffmpeg 7.1 from the layer ${LAYER_ARN}`]));
  });
});
