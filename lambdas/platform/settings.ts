import type { Grant } from '#grants';
import type { TaskSetting } from '#tasks';
import type { WorkerSetting } from '#workflows';

/**
 * The functions' runtime settings: the one reader of the environment. Every variable a function
 * reads is named here once, with what gives it its value in AWS; the CDK app and the local stack
 * set them by these names (lib/constructs, local/stack.ts), and test/infra/settings.test.ts checks
 * that no function is given a variable this table does not know.
 *
 * Settings are read when used, not when a module loads: the CDK app, the local stack and the
 * tests import the modules that own a setting without a function's environment.
 */

/** What sets a variable in AWS. */
export type SettingSource =
  /** Every function, by lib/constructs/node-function.ts. */
  | { readonly by: 'every-function' }
  /** The functions holding the grant (lib/constructs/grants.ts): a function has the variable exactly when it may use it. */
  | { readonly by: 'grant'; readonly grants: readonly Grant[] }
  /** The workers declaring the setting in lambdas/workflows.ts (lib/constructs/workflow.ts). */
  | { readonly by: 'worker-setting'; readonly setting: WorkerSetting }
  /** The tasks declaring the setting in lambdas/tasks.ts (lib/constructs/tasks.ts). */
  | { readonly by: 'task-setting'; readonly setting: TaskSetting }
  /** The functions that run ffmpeg, by the media-tools layer (lib/constructs/media-tools-layer.ts). */
  | { readonly by: 'media-tools' }
  /** Lambda itself, for each invocation. */
  | { readonly by: 'lambda' }
  /** Nothing: only the local stack sets it, and in AWS the default applies. */
  | { readonly by: 'local-stack' };

export interface Setting {
  readonly variable: string;
  readonly source: SettingSource;
}

export const SETTINGS = {
  tableName: { variable: 'TABLE_NAME', source: { by: 'every-function' } },
  mediaBucketName: { variable: 'MEDIA_BUCKET_NAME', source: { by: 'every-function' } },
  /** debug, info, warn, error, or silent for none; info unless set (lambdas/platform/log.ts). */
  logLevel: { variable: 'LOG_LEVEL', source: { by: 'every-function' } },
  /** The CloudWatch namespace of the business metrics: the stack's own, so two deployments never mix. */
  metricsNamespace: { variable: 'METRICS_NAMESPACE', source: { by: 'every-function' } },
  /** ARN of the Secrets Manager secret whose current and previous versions sign list cursors. */
  cursorKeySecretArn: {
    variable: 'CURSOR_KEY_SECRET_ARN',
    source: { by: 'grant', grants: ['secrets.cursor-key:read'] },
  },
  /** `<id>:<base64 secret>`, the one key that signs cursors on the local stack. */
  cursorKeyLocal: { variable: 'CURSOR_KEY_LOCAL', source: { by: 'local-stack' } },
  videoJobStateMachineArn: {
    variable: 'VIDEO_JOB_STATE_MACHINE_ARN',
    source: { by: 'grant', grants: ['states.video-job:start'] },
  },
  splitJobStateMachineArn: {
    variable: 'SPLIT_JOB_STATE_MACHINE_ARN',
    source: { by: 'grant', grants: ['states.split-job:start'] },
  },
  webhookDeliveriesQueueUrl: {
    variable: 'WEBHOOK_DELIVERIES_QUEUE_URL',
    source: { by: 'grant', grants: ['queue.webhook-deliveries:send'] },
  },
  /** ARN of the KMS key that wraps each webhook endpoint's data key. */
  webhookSecretsKeyArn: {
    variable: 'WEBHOOK_SECRETS_KEY_ARN',
    source: { by: 'grant', grants: ['kms.webhook-secrets:encrypt', 'kms.webhook-secrets:decrypt'] },
  },
  /** Base64 of a 32-byte key that wraps the data keys on the local stack instead. */
  webhookSecretsLocalKey: { variable: 'WEBHOOK_SECRETS_LOCAL_KEY', source: { by: 'local-stack' } },
  /** `true` turns webhook delivery on (the spec's feature flag); anything else leaves deliveries pending. */
  webhookDeliveryEnabled: {
    variable: 'DEVELOPER_WEBHOOK_DELIVERY_ENABLED',
    source: { by: 'task-setting', setting: 'webhook-delivery' },
  },
  /** Multiplies the retry schedule's delays (the local stack: 0.001, so six attempts take seconds). */
  webhookRetryScale: { variable: 'WEBHOOK_RETRY_SCALE', source: { by: 'local-stack' } },
  /** `true` on the local stack only: `http://127.0.0.1:*` and `http://localhost:*` are accepted and reached. */
  webhookLoopbackAllowed: { variable: 'WEBHOOK_LOOPBACK_ALLOWED', source: { by: 'local-stack' } },
  ffmpegPath: { variable: 'FFMPEG_PATH', source: { by: 'media-tools' } },
  ffprobePath: { variable: 'FFPROBE_PATH', source: { by: 'media-tools' } },
  /** `local` or `bedrock`, never a default: the local renderer cannot work in Lambda, and Bedrock costs money. */
  videoProvider: { variable: 'VIDEO_PROVIDER', source: { by: 'worker-setting', setting: 'video-provider' } },
  /** The video model's region; the function's own unless set. */
  bedrockRegion: { variable: 'BEDROCK_REGION', source: { by: 'worker-setting', setting: 'video-provider' } },
  bedrockVideoModelId: {
    variable: 'BEDROCK_VIDEO_MODEL_ID',
    source: { by: 'worker-setting', setting: 'video-provider' },
  },
  renderPollIntervalSeconds: {
    variable: 'VIDEO_RENDER_POLL_SECONDS',
    source: { by: 'worker-setting', setting: 'render-schedule' },
  },
  renderDeadlineSeconds: {
    variable: 'VIDEO_RENDER_DEADLINE_SECONDS',
    source: { by: 'worker-setting', setting: 'render-schedule' },
  },
  /** `amazon-transcribe` or `none` (unset): a missing transcription only costs captions and titles. */
  transcriptionProvider: {
    variable: 'TRANSCRIPTION_PROVIDER',
    source: { by: 'worker-setting', setting: 'transcription' },
  },
  /** A fault the local renderer applies to every render (fail, stall, crash), for tests of the failure paths. */
  localRendererFault: { variable: 'LOCAL_RENDERER_FAULT', source: { by: 'local-stack' } },
  /** `true` on the local stack: its S3 emulator serves no bucket subdomains. */
  s3ForcePathStyle: { variable: 'S3_FORCE_PATH_STYLE', source: { by: 'local-stack' } },
  /** The running invocation's X-Ray trace header, set by Lambda when tracing is active. */
  traceHeader: { variable: '_X_AMZN_TRACE_ID', source: { by: 'lambda' } },
} as const satisfies Record<string, Setting>;

export type SettingName = keyof typeof SETTINGS;

/** The variable that carries the setting. */
export function variableOf(name: SettingName): string {
  return SETTINGS[name].variable;
}

/** The setting's value; unset and empty are the same. */
export function optionalSetting(name: SettingName): string | undefined {
  const value = process.env[variableOf(name)];
  return value === '' ? undefined : value;
}

/** The setting's value, or an error naming the variable: a function missing it is misdeployed. */
export function requiredSetting(name: SettingName): string {
  const value = optionalSetting(name);
  if (value === undefined) throw new Error(`${variableOf(name)} is not set`);
  return value;
}

/** On only when the variable is `true`. */
export function flagSetting(name: SettingName): boolean {
  return optionalSetting(name) === 'true';
}

/** A positive number, `fallback` when unset; anything else is a misdeployment. */
export function positiveNumberSetting(name: SettingName, fallback: number): number {
  const value = optionalSetting(name);
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!(number > 0) || !Number.isFinite(number)) {
    throw new Error(`${variableOf(name)} must be a positive number, got "${value}"`);
  }
  return number;
}

/** One of `choices`; `fallback` when unset, and without a fallback unset is an error too. */
export function choiceSetting<Choice extends string>(
  name: SettingName,
  choices: readonly Choice[],
  fallback?: Choice,
): Choice {
  const value = optionalSetting(name);
  if (value === undefined && fallback !== undefined) return fallback;
  if ((choices as readonly (string | undefined)[]).includes(value)) return value as Choice;
  throw new Error(
    `${variableOf(name)} must be one of ${choices.join(', ')}, got ${value === undefined ? 'nothing' : `"${value}"`}`,
  );
}
