/**
 * The functions' runtime settings: the one reader of the environment. Every variable a function
 * reads is a constant here, with what gives it its value in AWS; the CDK app and the local stack
 * set the variables through these constants (lib/constructs, local/stack.ts), and a stack test
 * (test/infra/stack.test.ts) checks that no function is given a variable this module does not know.
 * One constant a setting, rather than one table, so that a bundle carries only the settings its
 * code reads: esbuild drops the constants nothing uses, and SETTINGS with them.
 *
 * Settings are read when used, not when a module loads: the CDK app, the local stack and the
 * tests import the modules that own a setting without a function's environment.
 */

/**
 * What sets a variable in AWS. Grants and the setting groups are the tables' names, written here as
 * strings: each table checks the names it owns (`SettingSourceNames`), so the platform imports none.
 */
export type SettingSource =
  /** Every function, by lib/constructs/node-function.ts. */
  | { readonly by: 'every-function' }
  /** The functions holding the grant (lib/constructs/grants.ts): a function has the variable exactly when it may use it. */
  | { readonly by: 'grant'; readonly grants: readonly string[] }
  /** The routes declaring the setting in lambdas/routes.ts (lib/constructs/http-api.ts). */
  | { readonly by: 'route-setting'; readonly setting: string }
  /** The workers declaring the setting in lambdas/workflows.ts (lib/constructs/workflow.ts). */
  | { readonly by: 'worker-setting'; readonly setting: string }
  /** The tasks declaring the setting in lambdas/tasks.ts (lib/constructs/tasks.ts). */
  | { readonly by: 'task-setting'; readonly setting: string }
  /** The functions that run ffmpeg, by the media-tools layer (lib/constructs/media-tools-layer.ts). */
  | { readonly by: 'media-tools' }
  /** The functions that draw captions, by the caption-fonts layer (lib/constructs/caption-fonts-layer.ts). */
  | { readonly by: 'caption-fonts' }
  /** The functions that find people in frames, by the people-detector layer (lib/constructs/people-detector-layer.ts). */
  | { readonly by: 'people-detector' }
  /** Lambda itself, for each invocation. */
  | { readonly by: 'lambda' }
  /** Nothing: only the local stack sets it, and in AWS the default applies. */
  | { readonly by: 'local-stack' };

export interface Setting {
  readonly variable: string;
  readonly source: SettingSource;
}

export const TABLE_NAME = { variable: 'TABLE_NAME', source: { by: 'every-function' } } as const satisfies Setting;
export const MEDIA_BUCKET_NAME = {
  variable: 'MEDIA_BUCKET_NAME',
  source: { by: 'every-function' },
} as const satisfies Setting;
/** debug, info, warn, error, or silent for none; info unless set (lambdas/platform/log.ts). */
export const LOG_LEVEL = { variable: 'LOG_LEVEL', source: { by: 'every-function' } } as const satisfies Setting;
/** The CloudWatch namespace of the business metrics: the stack's own, so two deployments never mix. */
export const METRICS_NAMESPACE = {
  variable: 'METRICS_NAMESPACE',
  source: { by: 'every-function' },
} as const satisfies Setting;
/** ARN of the Secrets Manager secret whose current and previous versions sign list cursors. */
export const CURSOR_KEY_SECRET_ARN = {
  variable: 'CURSOR_KEY_SECRET_ARN',
  source: { by: 'grant', grants: ['secrets.cursor-key:read'] },
} as const satisfies Setting;
/** `<id>:<base64 secret>`, the one key that signs cursors on the local stack. */
export const CURSOR_KEY_LOCAL = {
  variable: 'CURSOR_KEY_LOCAL',
  source: { by: 'local-stack' },
} as const satisfies Setting;
export const VIDEO_JOB_STATE_MACHINE_ARN = {
  variable: 'VIDEO_JOB_STATE_MACHINE_ARN',
  source: { by: 'grant', grants: ['states.video-job:start'] },
} as const satisfies Setting;
export const SPLIT_JOB_STATE_MACHINE_ARN = {
  variable: 'SPLIT_JOB_STATE_MACHINE_ARN',
  source: { by: 'grant', grants: ['states.split-job:start'] },
} as const satisfies Setting;
export const WEBHOOK_DELIVERIES_QUEUE_URL = {
  variable: 'WEBHOOK_DELIVERIES_QUEUE_URL',
  source: { by: 'grant', grants: ['queue.webhook-deliveries:send'] },
} as const satisfies Setting;
/** ARN of the KMS key that wraps each webhook endpoint's data key. */
export const WEBHOOK_SECRETS_KEY_ARN = {
  variable: 'WEBHOOK_SECRETS_KEY_ARN',
  source: { by: 'grant', grants: ['kms.webhook-secrets:encrypt', 'kms.webhook-secrets:decrypt'] },
} as const satisfies Setting;
/** Base64 of a 32-byte key that wraps the data keys on the local stack instead. */
export const WEBHOOK_SECRETS_LOCAL_KEY = {
  variable: 'WEBHOOK_SECRETS_LOCAL_KEY',
  source: { by: 'local-stack' },
} as const satisfies Setting;
/** `true` turns webhook delivery on (the spec's feature flag); anything else leaves deliveries pending. */
export const DEVELOPER_WEBHOOK_DELIVERY_ENABLED = {
  variable: 'DEVELOPER_WEBHOOK_DELIVERY_ENABLED',
  source: { by: 'task-setting', setting: 'webhook-delivery' },
} as const satisfies Setting;
/** Multiplies the retry schedule's delays (the local stack: 0.001, so six attempts take seconds). */
export const WEBHOOK_RETRY_SCALE = {
  variable: 'WEBHOOK_RETRY_SCALE',
  source: { by: 'local-stack' },
} as const satisfies Setting;
/** `true` on the local stack only: `http://127.0.0.1:*` and `http://localhost:*` are accepted and reached. */
export const WEBHOOK_LOOPBACK_ALLOWED = {
  variable: 'WEBHOOK_LOOPBACK_ALLOWED',
  source: { by: 'local-stack' },
} as const satisfies Setting;
export const FFMPEG_PATH = { variable: 'FFMPEG_PATH', source: { by: 'media-tools' } } as const satisfies Setting;
export const FFPROBE_PATH = { variable: 'FFPROBE_PATH', source: { by: 'media-tools' } } as const satisfies Setting;
/** The directory of the fonts captions are drawn with, laid out as lambdas/platform/caption-fonts.ts says. */
export const CAPTION_FONTS_DIR = {
  variable: 'CAPTION_FONTS_DIR',
  source: { by: 'caption-fonts' },
} as const satisfies Setting;
/** The directory of the people detector's engine, WebAssembly and models, laid out as lambdas/platform/people-detector-files.ts says. */
export const PEOPLE_DETECTOR_DIR = {
  variable: 'PEOPLE_DETECTOR_DIR',
  source: { by: 'people-detector' },
} as const satisfies Setting;
/**
 * What a second of generated video costs in credits, as JSON `{"text_to_video": 2, "image_to_video": 3}`;
 * those defaults unless set (lambdas/domain/video-jobs/create-video-job.ts).
 */
export const VIDEO_CREDITS_PER_SECOND = {
  variable: 'VIDEO_CREDITS_PER_SECOND',
  source: { by: 'route-setting', setting: 'video-pricing' },
} as const satisfies Setting;
/** `local` or `bedrock`, never a default: the local renderer cannot work in Lambda, and Bedrock costs money. */
export const VIDEO_PROVIDER = {
  variable: 'VIDEO_PROVIDER',
  source: { by: 'worker-setting', setting: 'video-provider' },
} as const satisfies Setting;
/**
 * The id of the model of the registry (lambdas/domain/models/model-registry.ts) that video jobs
 * render with; the registry's default unless set. Bedrock is called in the function's own region,
 * which the CDK app makes the model's.
 */
export const VIDEO_MODEL_ID = {
  variable: 'VIDEO_MODEL_ID',
  source: { by: 'worker-setting', setting: 'video-provider' },
} as const satisfies Setting;
/**
 * The ids of the models whose lifecycle the watch-model-lifecycle task reads from Bedrock, comma
 * separated; none unless set (the local stack calls no Bedrock model).
 */
export const WATCHED_MODEL_IDS = {
  variable: 'WATCHED_MODEL_IDS',
  source: { by: 'grant', grants: ['bedrock-control.models:describe'] },
} as const satisfies Setting;
/**
 * What chooses clips by what is said (lambdas/domain/split-jobs/language/factory.ts): `bedrock`,
 * or `none` (unset), which leaves clips to be ranked by their sound and picture alone.
 */
export const LANGUAGE_MODEL = {
  variable: 'LANGUAGE_MODEL',
  source: { by: 'worker-setting', setting: 'language-model' },
} as const satisfies Setting;
/**
 * The id of the text model of the registry (lambdas/domain/models/model-registry.ts) the
 * `bedrock` language model reads transcripts with; the registry's default unless set.
 */
export const TEXT_MODEL_ID = {
  variable: 'TEXT_MODEL_ID',
  source: { by: 'worker-setting', setting: 'language-model' },
} as const satisfies Setting;
export const VIDEO_RENDER_POLL_SECONDS = {
  variable: 'VIDEO_RENDER_POLL_SECONDS',
  source: { by: 'worker-setting', setting: 'render-schedule' },
} as const satisfies Setting;
export const VIDEO_RENDER_DEADLINE_SECONDS = {
  variable: 'VIDEO_RENDER_DEADLINE_SECONDS',
  source: { by: 'worker-setting', setting: 'render-schedule' },
} as const satisfies Setting;
/**
 * `amazon-transcribe`, `pocketsphinx` (the local stack's, when the machine has it) or `none`
 * (unset): a missing transcription only costs captions and titles.
 */
export const TRANSCRIPTION_PROVIDER = {
  variable: 'TRANSCRIPTION_PROVIDER',
  source: { by: 'worker-setting', setting: 'transcription' },
} as const satisfies Setting;
/** The local recognizer, pocketsphinx_continuous, where the local stack found it. */
export const POCKETSPHINX_PATH = {
  variable: 'POCKETSPHINX_PATH',
  source: { by: 'local-stack' },
} as const satisfies Setting;
/** A fault the local renderer applies to every render (fail, stall, crash), for tests of the failure paths. */
export const LOCAL_RENDERER_FAULT = {
  variable: 'LOCAL_RENDERER_FAULT',
  source: { by: 'local-stack' },
} as const satisfies Setting;
/**
 * The x264 preset of the local renderer, which stands in for the video model: `veryfast` unless
 * set; the integration tests' stacks take `ultrafast`, about twice as fast for larger files.
 */
export const LOCAL_RENDERER_PRESET = {
  variable: 'LOCAL_RENDERER_PRESET',
  source: { by: 'local-stack' },
} as const satisfies Setting;
/** `true` on the local stack: its S3 emulator serves no bucket subdomains. */
export const S3_FORCE_PATH_STYLE = {
  variable: 'S3_FORCE_PATH_STYLE',
  source: { by: 'local-stack' },
} as const satisfies Setting;
/** The running invocation's X-Ray trace header, set by Lambda when tracing is active. */
export const _X_AMZN_TRACE_ID = { variable: '_X_AMZN_TRACE_ID', source: { by: 'lambda' } } as const satisfies Setting;

/** Every setting, for what checks or sets them all (the CDK app's tests, the local stack). */
export const SETTINGS = {
  TABLE_NAME,
  MEDIA_BUCKET_NAME,
  LOG_LEVEL,
  METRICS_NAMESPACE,
  CURSOR_KEY_SECRET_ARN,
  CURSOR_KEY_LOCAL,
  VIDEO_JOB_STATE_MACHINE_ARN,
  SPLIT_JOB_STATE_MACHINE_ARN,
  WEBHOOK_DELIVERIES_QUEUE_URL,
  WEBHOOK_SECRETS_KEY_ARN,
  WEBHOOK_SECRETS_LOCAL_KEY,
  DEVELOPER_WEBHOOK_DELIVERY_ENABLED,
  WEBHOOK_RETRY_SCALE,
  WEBHOOK_LOOPBACK_ALLOWED,
  FFMPEG_PATH,
  FFPROBE_PATH,
  CAPTION_FONTS_DIR,
  PEOPLE_DETECTOR_DIR,
  VIDEO_CREDITS_PER_SECOND,
  VIDEO_PROVIDER,
  VIDEO_MODEL_ID,
  WATCHED_MODEL_IDS,
  LANGUAGE_MODEL,
  TEXT_MODEL_ID,
  VIDEO_RENDER_POLL_SECONDS,
  VIDEO_RENDER_DEADLINE_SECONDS,
  TRANSCRIPTION_PROVIDER,
  POCKETSPHINX_PATH,
  LOCAL_RENDERER_FAULT,
  LOCAL_RENDERER_PRESET,
  S3_FORCE_PATH_STYLE,
  _X_AMZN_TRACE_ID,
} as const;

type SourceOf<By extends SettingSource['by']> = Extract<
  (typeof SETTINGS)[keyof typeof SETTINGS]['source'],
  { readonly by: By }
>;

/**
 * The names the settings give to what sets them, by kind. The tables own these names (Grant in
 * lambdas/grants.ts, the setting groups in routes.ts, workflows.ts and tasks.ts) and check them
 * with `NamedIn`, so a setting naming a grant or a group that does not exist does not compile.
 */
export interface SettingSourceNames {
  readonly grant: SourceOf<'grant'>['grants'][number];
  readonly 'route-setting': SourceOf<'route-setting'>['setting'];
  readonly 'worker-setting': SourceOf<'worker-setting'>['setting'];
  readonly 'task-setting': SourceOf<'task-setting'>['setting'];
}

/** `Names`, each of which must be one of `Owned`: how a table checks the names settings give it. */
export type NamedIn<Names extends Owned, Owned> = Names;

/** The setting's value; unset and empty are the same. */
export function optionalSetting(setting: Setting): string | undefined {
  const value = process.env[setting.variable];
  return value === '' ? undefined : value;
}

/** The setting's value, or an error naming the variable: a function missing it is misdeployed. */
export function requiredSetting(setting: Setting): string {
  const value = optionalSetting(setting);
  if (value === undefined) throw new Error(`${setting.variable} is not set`);
  return value;
}

/** On only when the variable is `true`. */
export function flagSetting(setting: Setting): boolean {
  return optionalSetting(setting) === 'true';
}

/** A positive number, `fallback` when unset; anything else is a misdeployment. */
export function positiveNumberSetting(setting: Setting, fallback: number): number {
  const value = optionalSetting(setting);
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!(number > 0) || !Number.isFinite(number)) {
    throw new Error(`${setting.variable} must be a positive number, got "${value}"`);
  }
  return number;
}

/** One of `choices`; `fallback` when unset, and without a fallback unset is an error too. */
export function choiceSetting<Choice extends string>(
  setting: Setting,
  choices: readonly Choice[],
  fallback?: Choice,
): Choice {
  const value = optionalSetting(setting);
  if (value === undefined && fallback !== undefined) return fallback;
  if ((choices as readonly (string | undefined)[]).includes(value)) return value as Choice;
  throw new Error(
    `${setting.variable} must be one of ${choices.join(', ')}, got ${value === undefined ? 'nothing' : `"${value}"`}`,
  );
}
