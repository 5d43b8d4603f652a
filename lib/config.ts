import * as logs from 'aws-cdk-lib/aws-logs';
import type { IConstruct } from 'constructs';
import {
  DEPLOYED_TRANSCRIPTION_PROVIDER_KINDS,
  type DeployedTranscriptionProviderKind,
} from '#domain/split-jobs/transcription/factory';
import type { VpcSubnet } from './constructs/function-network';
import { GOVERNED_MINIMUM_LOG_RETENTION, type GovernedProfile } from './constructs/governance';
import { DEPLOYED_LANGUAGE_MODEL_KINDS, type DeployedLanguageModelKind } from '#domain/split-jobs/language/factory';
import {
  DEFAULT_TEXT_MODEL_ID,
  DEFAULT_VIDEO_MODEL_ID,
  lifecycleVerdict,
  modelIdsOfKind,
  textModelById,
  videoModelById,
  type ModelEntry,
  type TextModelEntry,
  type VideoModelEntry,
} from '#domain/models/model-registry';
import { DEFAULT_ACCESS_LOG_RETENTION } from './constructs/http-api';
import { DEFAULT_FUNCTION_LOG_RETENTION } from './constructs/node-function';
import {
  DEFAULT_VIDEO_CREDITS_PER_SECOND,
  videoCreditRatesIn,
  type VideoCreditRates,
} from '#domain/video-jobs/video-pricing';
import {
  DEFAULT_EXECUTION_LOG_RETENTION,
  DEFAULT_LANGUAGE_MODEL,
  DEFAULT_TRANSCRIPTION_PROVIDER,
} from './constructs/workflow';
import { MEDIA_TOOLS_ARCHITECTURES, type MediaToolsSource } from './constructs/media-tools-layer';
import { arrayIn, booleanIn, numberIn, objectIn, refusal } from './context-values';
import { floodControlFrom, type FloodControl } from './flood-control';

/**
 * Every deploy-time setting of the stack, read from CDK context only (`cdk deploy -c key=value`,
 * or cdk.json's `context`), so that a synthesis depends on the command line and the repository and
 * never on the shell it runs in. docs/operations.md has the table of keys.
 */
export interface DeploymentConfig {
  readonly stage: Stage;
  readonly providers: {
    /** The model of the registry the render workers call; the stack must be in one of its regions. */
    readonly video: VideoModelEntry;
    /**
     * What the model's documented lifecycle says at synthesis, when it is Legacy or within
     * END_OF_LIFE_NOTICE_DAYS of its end of life (or past it, acknowledged): reported as a warning.
     */
    readonly videoLifecycleNotice?: string;
    /** What the split-job workers transcribe speech with; `none` gives clips without captions or titles. */
    readonly transcription: DeployedTranscriptionProviderKind;
    /** What chooses clips by what is said; `none` ranks them by their sound and picture alone. */
    readonly language: LanguageProvider;
  };
  /** What a second of generated video costs in credits, by mode. */
  readonly videoCreditsPerSecond: VideoCreditRates;
  /** Whether webhook deliveries are attempted; off, they are recorded and left pending. */
  readonly webhookDeliveryEnabled: boolean;
  /** Subscribed to the alarm topic when given (the address must confirm the subscription). */
  readonly alarmEmail?: string;
  readonly logRetention: {
    /** Each Lambda function's log group. */
    readonly functions: logs.RetentionDays;
    /** Each workflow's execution log group. */
    readonly stateMachines: logs.RetentionDays;
    /** The API stage's access log group. */
    readonly accessLogs: logs.RetentionDays;
  };
  /** Throttles, reserved concurrency and the edge firewall (lib/flood-control.ts), the stage throttle included. */
  readonly floodControl: FloodControl;
  /** The ffmpeg and ffprobe of the functions that run them. */
  readonly mediaTools: MediaToolsSource;
  /**
   * Given, the stack meets AWS Control Tower's proactive controls that cost money to meet: its
   * functions run in the operator's VPC with the endpoints they need, and its log groups are
   * encrypted with a key of the stack's and kept a year at least.
   */
  readonly governed?: GovernedProfile;
}

/** The language model of a deployment: a text model of the registry through Bedrock, or none. */
export type LanguageProvider =
  | {
      readonly kind: Extract<DeployedLanguageModelKind, 'bedrock'>;
      /** The text model of the registry; the stack must be in a Region of its inference profile. */
      readonly model: TextModelEntry;
      /** As `videoLifecycleNotice`, of the text model. */
      readonly lifecycleNotice?: string;
    }
  | { readonly kind: Extract<DeployedLanguageModelKind, 'none'> };

export interface Stage {
  /** Names the stack and its metrics namespace: `prod` deploys VideoApiStack, `dev` VideoApiStack-dev. */
  readonly name: string;
  /**
   * Whether the stack holds data that must outlive it: the table and the buckets retained and
   * protected, the stack protected from termination. Off, `cdk destroy` removes everything.
   */
  readonly production: boolean;
}

/** The context keys, as `-c` and cdk.json's `context` spell them; the flood-control keys are in lib/flood-control.ts. */
export const CONFIG_KEYS = {
  stage: 'stage',
  production: 'production',
  videoModelId: 'videoModelId',
  modelsPastEndOfLife: 'modelsPastEndOfLife',
  videoCreditsPerSecond: 'videoCreditsPerSecond',
  transcriptionProvider: 'transcriptionProvider',
  languageModel: 'languageModel',
  textModelId: 'textModelId',
  webhookDeliveryEnabled: 'webhookDeliveryEnabled',
  alarmEmail: 'alarmEmail',
  functionLogRetentionDays: 'functionLogRetentionDays',
  stateMachineLogRetentionDays: 'stateMachineLogRetentionDays',
  accessLogRetentionDays: 'accessLogRetentionDays',
  mediaToolsLayerArn: 'mediaToolsLayerArn',
  mediaToolsVersion: 'mediaToolsVersion',
  mediaToolsArchitecture: 'mediaToolsArchitecture',
  governed: 'governed',
  vpcId: 'vpcId',
  vpcSubnets: 'vpcSubnets',
} as const;

/** The stage a deployment is unless told otherwise, and the one stage that can never be non-production. */
export const PRODUCTION_STAGE = 'prod';

/** The video models of the registry (lambdas/domain/models/model-registry.ts). */
export const VIDEO_MODEL_IDS: readonly string[] = modelIdsOfKind('video');

/** The text models of the registry. */
export const TEXT_MODEL_IDS: readonly string[] = modelIdsOfKind('text');

/** The constructs' own defaults, each with its reason next to it. */
export const DEFAULT_LOG_RETENTION = {
  functions: DEFAULT_FUNCTION_LOG_RETENTION,
  stateMachines: DEFAULT_EXECUTION_LOG_RETENTION,
  accessLogs: DEFAULT_ACCESS_LOG_RETENTION,
} as const;

/** The values CloudWatch Logs accepts as a retention, in days; never-expiring is not offered. */
const RETENTION_DAYS = Object.values(logs.RetentionDays).filter(
  (days): days is logs.RetentionDays => typeof days === 'number' && days !== logs.RetentionDays.INFINITE,
);

/** Lower-case letters, digits and hyphens: it ends up in the stack name, log group names and a KMS alias. */
const STAGE_NAME = /^[a-z][a-z0-9-]{0,15}$/;
const EMAIL_ADDRESS = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;
/** A layer version's ARN: `arn:aws:lambda:<region>:<account>:layer:<name>:<version>`. */
const LAYER_VERSION_ARN = /^arn:aws[a-z-]*:lambda:[a-z]{2}(-[a-z]+)+-\d+:\d{12}:layer:[A-Za-z0-9_-]{1,140}:\d+$/;
const MEDIA_TOOLS_VERSION = /^[\w.+~-]{1,64}$/;
const VPC_ID = /^vpc-[0-9a-f]{8,17}$/;
const SUBNET_ID = /^subnet-[0-9a-f]{8,17}$/;
const ROUTE_TABLE_ID = /^rtb-[0-9a-f]{8,17}$/;
const AVAILABILITY_ZONE = /^[a-z]{2}(-[a-z]+)+-\d+[a-z]$/;

function invalid(key: string, expected: string, value: unknown): Error {
  return new Error(`${refusal(key, expected, value)} (set with -c ${key}=… or in cdk.json's context)`);
}

function booleanSetting(key: string, value: unknown): boolean {
  const setting = booleanIn(value);
  if (setting === undefined) throw invalid(key, 'true or false', value);
  return setting;
}

function oneOf<T extends string>(key: string, allowed: readonly T[], value: unknown): T {
  const match = allowed.find((candidate) => candidate === value);
  if (match === undefined) throw invalid(key, `one of ${allowed.join(', ')}`, value);
  return match;
}

function matching(key: string, pattern: RegExp, expected: string, value: unknown): string {
  if (typeof value !== 'string' || !pattern.test(value)) throw invalid(key, expected, value);
  return value;
}

/**
 * One of CloudWatch Logs' retentions, in days, as a number or its text; `minimum` and up only
 * (the governed profile's year), which is then also the default.
 */
function retentionSetting(
  key: string,
  value: unknown,
  defaultRetention: logs.RetentionDays,
  minimum?: logs.RetentionDays,
): logs.RetentionDays {
  if (value === undefined) return minimum ?? defaultRetention;
  const days = numberIn(value);
  const retention = RETENTION_DAYS.find((candidate) => candidate === days);
  if (retention === undefined) throw invalid(key, `one of ${RETENTION_DAYS.join(', ')} (days)`, value);
  if (minimum !== undefined && retention < minimum) {
    throw invalid(key, `at least ${minimum} (days) with ${CONFIG_KEYS.governed}=true`, value);
  }
  return retention;
}

/** One entry of `vpcSubnets`: `{"subnetId": "subnet-…", "availabilityZone": "us-east-1a", "routeTableId": "rtb-…"}`. */
function vpcSubnetFrom(value: unknown): VpcSubnet {
  const subnet = objectIn(value);
  const expected =
    'a list of subnets, each {"subnetId": "subnet-…", "availabilityZone": "us-east-1a", "routeTableId": "rtb-…"}';
  if (
    !subnet ||
    Object.keys(subnet).length !== 3 ||
    typeof subnet.subnetId !== 'string' ||
    !SUBNET_ID.test(subnet.subnetId) ||
    typeof subnet.availabilityZone !== 'string' ||
    !AVAILABILITY_ZONE.test(subnet.availabilityZone) ||
    typeof subnet.routeTableId !== 'string' ||
    !ROUTE_TABLE_ID.test(subnet.routeTableId)
  ) {
    throw invalid(CONFIG_KEYS.vpcSubnets, expected, value);
  }
  return { subnetId: subnet.subnetId, availabilityZone: subnet.availabilityZone, routeTableId: subnet.routeTableId };
}

/** The governed profile, when `governed` is true: it needs the VPC and its subnets, which mean nothing without it. */
function governedFrom(read: (key: string) => unknown): GovernedProfile | undefined {
  const governed = booleanSetting(CONFIG_KEYS.governed, read(CONFIG_KEYS.governed) ?? false);
  const network = [CONFIG_KEYS.vpcId, CONFIG_KEYS.vpcSubnets] as const;
  if (!governed) {
    const stray = network.filter((key) => read(key) !== undefined);
    if (stray.length > 0) throw new Error(`${stray.join(' and ')} apply only with ${CONFIG_KEYS.governed}=true`);
    return undefined;
  }
  const missing = network.filter((key) => read(key) === undefined);
  if (missing.length > 0) {
    throw new Error(
      `${CONFIG_KEYS.governed}=true needs ${missing.join(' and ')}: the VPC the functions run in and its subnets (docs/operations.md)`,
    );
  }
  const subnets = arrayIn(read(CONFIG_KEYS.vpcSubnets));
  if (!subnets || subnets.length === 0) {
    throw invalid(CONFIG_KEYS.vpcSubnets, 'a non-empty JSON list of subnets', read(CONFIG_KEYS.vpcSubnets));
  }
  return {
    vpcId: matching(CONFIG_KEYS.vpcId, VPC_ID, 'a VPC id (vpc-…)', read(CONFIG_KEYS.vpcId)),
    subnets: subnets.map(vpcSubnetFrom),
  };
}

function stageFrom(read: (key: string) => unknown): Stage {
  const name = matching(
    CONFIG_KEYS.stage,
    STAGE_NAME,
    'a lower-case letter followed by up to 15 lower-case letters, digits or hyphens',
    read(CONFIG_KEYS.stage) ?? PRODUCTION_STAGE,
  );
  // Production unless said otherwise: a stage wrongly taken for a throwaway one would lose its
  // data with the stack, while the opposite mistake only leaves a table to delete by hand.
  const production = booleanSetting(CONFIG_KEYS.production, read(CONFIG_KEYS.production) ?? true);
  if (name === PRODUCTION_STAGE && !production) {
    throw new Error(`${CONFIG_KEYS.production}=false cannot apply to the ${PRODUCTION_STAGE} stage`);
  }
  return { name, production };
}

/**
 * The build the repository ships (a static 2018 ffmpeg, offline and without Docker), unless the
 * operator names a layer of their own: its ARN, the ffmpeg version it holds (reported at synth and
 * in the functions' descriptions) and its architecture.
 */
function mediaToolsFrom(read: (key: string) => unknown): MediaToolsSource {
  const layerArn = read(CONFIG_KEYS.mediaToolsLayerArn);
  const version = read(CONFIG_KEYS.mediaToolsVersion);
  const architecture = read(CONFIG_KEYS.mediaToolsArchitecture);
  if (layerArn === undefined) {
    const stray = [CONFIG_KEYS.mediaToolsVersion, CONFIG_KEYS.mediaToolsArchitecture].filter(
      (key) => read(key) !== undefined,
    );
    if (stray.length > 0) throw new Error(`${stray.join(' and ')} apply only with ${CONFIG_KEYS.mediaToolsLayerArn}`);
    return { kind: 'bundled' };
  }
  if (version === undefined) {
    throw new Error(
      `${CONFIG_KEYS.mediaToolsLayerArn} needs ${CONFIG_KEYS.mediaToolsVersion}: the ffmpeg version the layer holds (for example 7.1)`,
    );
  }
  return {
    kind: 'layer',
    layerArn: matching(
      CONFIG_KEYS.mediaToolsLayerArn,
      LAYER_VERSION_ARN,
      'the ARN of a Lambda layer version (arn:aws:lambda:<region>:<account>:layer:<name>:<version>)',
      layerArn,
    ),
    ffmpegVersion: matching(
      CONFIG_KEYS.mediaToolsVersion,
      MEDIA_TOOLS_VERSION,
      'a version of up to 64 letters, digits and . + ~ - _',
      version,
    ),
    architecture: oneOf(CONFIG_KEYS.mediaToolsArchitecture, MEDIA_TOOLS_ARCHITECTURES, architecture ?? 'x86_64'),
  };
}

/** The models `modelsPastEndOfLife` names: ids of the registry's video and text models. */
function modelsPastEndOfLifeFrom(read: (key: string) => unknown): string[] {
  const known = [...VIDEO_MODEL_IDS, ...TEXT_MODEL_IDS];
  const value = read(CONFIG_KEYS.modelsPastEndOfLife) ?? [];
  const ids = arrayIn(value);
  if (!ids || ids.some((id) => typeof id !== 'string' || !known.includes(id))) {
    throw invalid(CONFIG_KEYS.modelsPastEndOfLife, `a JSON list of model ids of ${known.join(', ')}`, value);
  }
  return ids as string[];
}

/** How a configured model is named in messages, and the setting that chooses another. */
export interface ModelChoice {
  readonly role: 'video' | 'text';
  readonly key: string;
  readonly defaultId: string;
}

/**
 * A configured model, refused when its documented end of life has passed (calls to it fail)
 * unless `modelsPastEndOfLife` names it: an account with a private arrangement with the provider
 * may go on using it. A model that is Legacy, or near its end, is let through with a notice.
 */
export function lifecycleNoticeOf(
  model: ModelEntry,
  choice: ModelChoice,
  acknowledged: readonly string[],
  now: Date,
): string | undefined {
  const verdict = lifecycleVerdict(model.lifecycle, now);
  const about = `The ${choice.role} model ${model.id} (${model.name})`;
  const source = `(${model.lifecycle.source})`;
  if (verdict.state === 'ended' && !acknowledged.includes(model.id)) {
    throw new Error(
      `${about} is past its end of life: ${verdict.reason} ${source}, and calls to it fail. Choose another with -c ${choice.key}=… (${choice.defaultId} by default), or, for an account whose arrangement with the provider keeps it working, name it in -c ${CONFIG_KEYS.modelsPastEndOfLife}='["${model.id}"]'.`,
    );
  }
  if (verdict.state === 'active') return undefined;
  return `${about}: ${verdict.reason} ${source}. Plan the move to an active model.`;
}

/** The configured video model, judged by its lifecycle (lifecycleNoticeOf). */
function videoModelFrom(
  read: (key: string) => unknown,
  now: Date,
): Pick<DeploymentConfig['providers'], 'video' | 'videoLifecycleNotice'> {
  const video = videoModelById(
    oneOf(CONFIG_KEYS.videoModelId, VIDEO_MODEL_IDS, read(CONFIG_KEYS.videoModelId) ?? DEFAULT_VIDEO_MODEL_ID),
  );
  const notice = lifecycleNoticeOf(
    video,
    { role: 'video', key: CONFIG_KEYS.videoModelId, defaultId: DEFAULT_VIDEO_MODEL_ID },
    modelsPastEndOfLifeFrom(read),
    now,
  );
  return notice === undefined ? { video } : { video, videoLifecycleNotice: notice };
}

/**
 * The language model: Bedrock with the configured text model (judged by its lifecycle as the
 * video model is), unless `languageModel` is none, which leaves `textModelId` meaningless.
 */
function languageFrom(read: (key: string) => unknown, now: Date): LanguageProvider {
  const kind = oneOf(
    CONFIG_KEYS.languageModel,
    DEPLOYED_LANGUAGE_MODEL_KINDS,
    read(CONFIG_KEYS.languageModel) ?? DEFAULT_LANGUAGE_MODEL,
  );
  if (kind === 'none') {
    if (read(CONFIG_KEYS.textModelId) !== undefined) {
      throw new Error(`${CONFIG_KEYS.textModelId} applies only with ${CONFIG_KEYS.languageModel}=bedrock`);
    }
    return { kind };
  }
  const model = textModelById(
    oneOf(CONFIG_KEYS.textModelId, TEXT_MODEL_IDS, read(CONFIG_KEYS.textModelId) ?? DEFAULT_TEXT_MODEL_ID),
  );
  const notice = lifecycleNoticeOf(
    model,
    { role: 'text', key: CONFIG_KEYS.textModelId, defaultId: DEFAULT_TEXT_MODEL_ID },
    modelsPastEndOfLifeFrom(read),
    now,
  );
  return notice === undefined ? { kind, model } : { kind, model, lifecycleNotice: notice };
}

/** `{"text_to_video": 2, "image_to_video": 3}` unless set: whole credits a second, from 1 to 1,000. */
function videoCreditsFrom(value: unknown): VideoCreditRates {
  if (value === undefined) return DEFAULT_VIDEO_CREDITS_PER_SECOND;
  const rates = videoCreditRatesIn(objectIn(value));
  if (!rates) {
    throw invalid(
      CONFIG_KEYS.videoCreditsPerSecond,
      'a JSON object of whole credits from 1 to 1000 for text_to_video and image_to_video',
      value,
    );
  }
  return rates;
}

/**
 * The configuration from one source of settings (`read` returns undefined for a key not set):
 * each key validated, an invalid one failing the synthesis with a message that names it. `now`
 * is the day model lifecycles are judged on.
 */
export function deploymentConfigFrom(read: (key: string) => unknown, now = new Date()): DeploymentConfig {
  const alarmEmail = read(CONFIG_KEYS.alarmEmail);
  const governed = governedFrom(read);
  const minimumRetention = governed ? GOVERNED_MINIMUM_LOG_RETENTION : undefined;
  return {
    stage: stageFrom(read),
    providers: {
      ...videoModelFrom(read, now),
      transcription: oneOf(
        CONFIG_KEYS.transcriptionProvider,
        DEPLOYED_TRANSCRIPTION_PROVIDER_KINDS,
        read(CONFIG_KEYS.transcriptionProvider) ?? DEFAULT_TRANSCRIPTION_PROVIDER,
      ),
      language: languageFrom(read, now),
    },
    videoCreditsPerSecond: videoCreditsFrom(read(CONFIG_KEYS.videoCreditsPerSecond)),
    webhookDeliveryEnabled: booleanSetting(
      CONFIG_KEYS.webhookDeliveryEnabled,
      read(CONFIG_KEYS.webhookDeliveryEnabled) ?? true,
    ),
    ...(alarmEmail === undefined
      ? {}
      : { alarmEmail: matching(CONFIG_KEYS.alarmEmail, EMAIL_ADDRESS, 'an e-mail address', alarmEmail) }),
    logRetention: {
      functions: retentionSetting(
        CONFIG_KEYS.functionLogRetentionDays,
        read(CONFIG_KEYS.functionLogRetentionDays),
        DEFAULT_LOG_RETENTION.functions,
        minimumRetention,
      ),
      stateMachines: retentionSetting(
        CONFIG_KEYS.stateMachineLogRetentionDays,
        read(CONFIG_KEYS.stateMachineLogRetentionDays),
        DEFAULT_LOG_RETENTION.stateMachines,
        minimumRetention,
      ),
      accessLogs: retentionSetting(
        CONFIG_KEYS.accessLogRetentionDays,
        read(CONFIG_KEYS.accessLogRetentionDays),
        DEFAULT_LOG_RETENTION.accessLogs,
        minimumRetention,
      ),
    },
    floodControl: floodControlFrom(read),
    mediaTools: mediaToolsFrom(read),
    ...(governed ? { governed } : {}),
  };
}

/** The configuration from the CDK context visible at `scope` (the app's, cdk.json's and `-c`'s). */
export function deploymentConfigOf(scope: IConstruct): DeploymentConfig {
  return deploymentConfigFrom((key) => scope.node.tryGetContext(key));
}

/**
 * The stack of a stage: the production stage keeps the name the stack has always had, any other
 * gets its own, so a second stage in the same account and region never updates the first one's stack.
 */
export function stackNameOf(stage: Stage): string {
  return stage.name === PRODUCTION_STAGE ? 'VideoApiStack' : `VideoApiStack-${stage.name}`;
}
