import * as path from 'node:path';
import { RemovalPolicy, Size, type Duration } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat, type BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { NagSuppressions } from 'cdk-nag';
import type { Construct } from 'constructs';
import { LOG_LEVEL, MEDIA_BUCKET_NAME, METRICS_NAMESPACE, TABLE_NAME } from '#platform/settings';
import { metricsNamespaceOf } from './business-metrics';
import type { Governance } from './governance';
import type { CaptionFontsLayer } from './caption-fonts-layer';
import type { PeopleDetectorLayer } from './people-detector-layer';
import type { MediaToolsLayer } from './media-tools-layer';

/** The repository root: esbuild's working directory and the root every entry must sit under. */
export const PROJECT_ROOT = path.resolve(__dirname, '..', '..');

/** Long enough to follow an incident reported a few weeks late; function logs carry no audit value. */
export const DEFAULT_FUNCTION_LOG_RETENTION = logs.RetentionDays.ONE_MONTH;

/**
 * How esbuild bundles every function, on this machine as `cdk synth` runs it; the cold-init bench
 * (scripts/bench/function-bundles.ts) bundles with these same options.
 */
export const FUNCTION_BUNDLING = {
  // esbuild runs on this machine; Docker is never needed (and not available in CI).
  forceDockerBundling: false,
  minify: true,
  sourceMap: true,
  // The map only needs line mappings; embedding the sources would double the bundle size.
  sourcesContent: false,
  target: 'node24',
  // CommonJS avoids the createRequire banner that ESM bundles of the AWS SDK need.
  format: OutputFormat.CJS,
  // Bundle the exact @aws-sdk/* versions package-lock.json pins instead of the runtime's copy:
  // the code that was tested is the code that runs, whatever SDK version Lambda ships today.
  bundleAwsSDK: true,
  // Prefer the ES module builds (the SDK ships both) so esbuild can drop unused commands.
  mainFields: ['module', 'main'],
  // The local language model (lambdas/domain/split-jobs/language/wink-nlp.ts), which no deployment
  // may choose, loads these on first use only; bundled, its English model would add megabytes.
  externalModules: ['wink-nlp', 'wink-eng-lite-web-model'],
} satisfies BundlingOptions;

export interface NodeFunctionProps {
  /** Absolute path of the TypeScript module exporting `handler`. */
  readonly entry: string;
  /** Shown in the console next to the function name. */
  readonly description?: string;
  /** What the role is for, in its description (`Execution role of …`). */
  readonly purpose: string;
  readonly memorySize: number;
  readonly timeout: Duration;
  readonly tableName: string;
  readonly mediaBucketName: string;
  /** `info` unless told; `silent` turns off the log lines (lambdas/http/log.ts). */
  readonly logLevel?: string;
  /** How long its log group keeps lines; a month unless told (the deployment's `functionLogRetentionDays`). */
  readonly logRetention?: logs.RetentionDays;
  /** Variables beyond the ones every function gets. */
  readonly environment?: Record<string, string>;
  /** ffmpeg and ffprobe, for a function that runs them: the layer, and the x86-64 it is built for. */
  readonly mediaTools?: MediaToolsLayer;
  /** The fonts captions are drawn with, for a function that draws them. */
  readonly captionFonts?: CaptionFontsLayer;
  /** The people detector, for a function that finds people in frames. */
  readonly peopleDetector?: PeopleDetectorLayer;
  /** Lambda's /tmp; 512 MB unless told. */
  readonly ephemeralStorageMb?: number;
  /** An event source mapping on the table's stream runs it, whose grant adds dynamodb:ListStreams on "*". */
  readonly readsTableStream?: boolean;
  /** Executions reserved for (and capping) this function; none unless told (lib/flood-control.ts). */
  readonly reservedConcurrentExecutions?: number;
  /** Where Lambda sends the event of an asynchronous invocation that failed its retries; none unless told. */
  readonly deadLetterQueue?: sqs.IQueue;
  /** The governed profile: the function runs in its network, and its log group is encrypted with its key. */
  readonly governance?: Governance;
}

/** What a route handler or a workflow worker states about itself; the rest follows from its kind. */
export interface HandlerModuleProps extends Pick<
  NodeFunctionProps,
  | 'description'
  | 'tableName'
  | 'mediaBucketName'
  | 'logLevel'
  | 'logRetention'
  | 'environment'
  | 'mediaTools'
  | 'captionFonts'
  | 'peopleDetector'
  | 'governance'
> {
  /** Module exporting `handler`, as the route table or the workflow list names it (`me/get`). */
  readonly handlerModule: string;
}

/**
 * Every Lambda default, shared by the API functions and the workflow workers, so their own classes
 * state only handler folder, memory and timeout: Node 24 (the current LTS, the Node the toolchain and tests run) on Graviton (about 20% cheaper per ms
 * than x86 for the same work; functions running ffmpeg use x86-64, see media-tools-layer.ts), active X-Ray tracing, its own log group with a retention, and its
 * own role whose only built-in permission is writing to that log group (no
 * AWSLambdaBasicExecutionRole, which allows writing to every log group in the account).
 */
export class NodeFunction extends NodejsFunction {
  /** The module bundled into it, as `props.entry` gave it. */
  public readonly entry: string;

  constructor(scope: Construct, id: string, props: NodeFunctionProps) {
    // Created before super() because the function needs both at construction; siblings, not children.
    const logGroup = new logs.LogGroup(scope, `${id}Logs`, {
      retention: props.logRetention ?? DEFAULT_FUNCTION_LOG_RETENTION,
      encryptionKey: props.governance?.logsKey,
      // Diagnostic logs bounded by the retention; they go with the stack (the data does not).
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const role = new iam.Role(scope, `${id}Role`, {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Execution role of ${props.purpose}`,
    });

    super(scope, id, {
      entry: props.entry,
      handler: 'handler',
      description: props.description,
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: path.join(PROJECT_ROOT, 'package-lock.json'),
      runtime: lambda.Runtime.NODEJS_24_X,
      architecture: props.mediaTools?.architecture ?? lambda.Architecture.ARM_64,
      memorySize: props.memorySize,
      timeout: props.timeout,
      ephemeralStorageSize: props.ephemeralStorageMb ? Size.mebibytes(props.ephemeralStorageMb) : undefined,
      reservedConcurrentExecutions: props.reservedConcurrentExecutions,
      deadLetterQueue: props.deadLetterQueue,
      tracing: lambda.Tracing.ACTIVE,
      logGroup,
      role,
      ...props.governance?.network.placement,
      environment: {
        // Stack traces point at lambdas/**/*.ts lines instead of the minified bundle.
        NODE_OPTIONS: '--enable-source-maps',
        [TABLE_NAME.variable]: props.tableName,
        [MEDIA_BUCKET_NAME.variable]: props.mediaBucketName,
        [LOG_LEVEL.variable]: props.logLevel ?? 'info',
        [METRICS_NAMESPACE.variable]: metricsNamespaceOf(scope),
        ...props.environment,
      },
      bundling: FUNCTION_BUNDLING,
    });

    this.entry = props.entry;
    props.mediaTools?.attachTo(this);
    props.captionFonts?.attachTo(this);
    props.peopleDetector?.attachTo(this);

    // `this.logGroup` (inherited) returns this group; the role may write to it and nowhere else.
    logGroup.grantWrite(this);

    const onEverything = [
      'Active tracing adds xray:PutTraceSegments and xray:PutTelemetryRecords',
      ...(props.readsTableStream ? ["the table stream's event source mapping dynamodb:ListStreams"] : []),
    ];
    let reason = `${onEverything.join(', and ')}, which support no resource-level permissions, so their Resource must be "*"${props.readsTableStream ? " (DescribeStream, GetRecords and GetShardIterator name the table's stream)" : ''}.`;
    if (props.governance) {
      // What AWS's AWSLambdaVPCAccessExecutionRole allows, without its CloudWatch Logs part: Lambda
      // manages the function's network interfaces in the VPC with the function's own role.
      role.addToPrincipalPolicy(
        new iam.PolicyStatement({
          actions: [
            'ec2:CreateNetworkInterface',
            'ec2:DescribeNetworkInterfaces',
            'ec2:DescribeSubnets',
            'ec2:DeleteNetworkInterface',
            'ec2:AssignPrivateIpAddresses',
            'ec2:UnassignPrivateIpAddresses',
          ],
          resources: ['*'],
        }),
      );
      reason +=
        " In the VPC, Lambda creates, describes and deletes the function's network interfaces with its role (the actions of AWSLambdaVPCAccessExecutionRole, without its log permissions): the interfaces get their ids when Lambda creates them, and the Describe actions support no resource-level permissions.";
    }
    NagSuppressions.addResourceSuppressions(
      role,
      [{ id: 'AwsSolutions-IAM5', reason, appliesTo: ['Resource::*'] }],
      true,
    );
  }
}
