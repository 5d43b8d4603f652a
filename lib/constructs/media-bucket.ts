import { Duration, FeatureFlags, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { S3_SERVER_ACCESS_LOGS_USE_BUCKET_POLICY } from 'aws-cdk-lib/cx-api';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import {
  MEDIA_PREFIXES,
  PENDING_ASSET_RETENTION_SECONDS,
  WORK_RETENTION_DAYS,
  type MediaPrefix,
} from '#domain/assets/media-layout';
import { acknowledgeControl } from '../control-tower';

/**
 * How long an unconfirmed upload may stay under incoming/: the lifetime the asset record written
 * by POST /assets/upload-url carries in its TTL, so record and bytes go together.
 */
export const INCOMING_UPLOAD_LIFETIME = Duration.seconds(PENDING_ASSET_RETENTION_SECONDS);

/**
 * How long the provider's output stays under renders/. The finish-job worker copies a finished
 * video to assets/ within minutes of the render ending (the render deadline is 30 minutes), so
 * renders/ only holds scratch copies; two days leave room to investigate a failed copy.
 */
export const RENDER_OUTPUT_LIFETIME = Duration.days(2);

/** The S3 actions that apply to objects (not to the bucket), the only ones granted by prefix. */
type ObjectAction = `s3:${string}Object` | 's3:AbortMultipartUpload';

/**
 * How long an overwritten or deleted object's previous version is kept. Keys are written once, so
 * previous versions come from deletions (the lifecycle rules', a confirmation's): one day to undo
 * a deletion made by mistake, short enough that deleted videos do not pile up as paid-for copies.
 */
export const NONCURRENT_VERSION_LIFETIME = Duration.days(1);

/**
 * Common settings of both buckets: private, owner-enforced, TLS 1.2+, versioned (CT.S3.PR.11), and
 * with S3's event notifications to EventBridge on (CT.S3.PR.4: delivering AWS service events to
 * the default event bus is free, and any rule of the account may follow object changes).
 */
const PRIVATE_BUCKET: s3.BucketProps = {
  blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
  objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
  enforceSSL: true,
  minimumTLSVersion: 1.2,
  versioned: true,
};

/**
 * With versioning on, an expiration leaves a delete marker over a noncurrent version: this rule
 * deletes that version after NONCURRENT_VERSION_LIFETIME, then the marker it leaves alone.
 */
const EXPIRE_NONCURRENT_VERSIONS: s3.LifecycleRule = {
  id: 'expire-noncurrent-versions',
  noncurrentVersionExpiration: NONCURRENT_VERSION_LIFETIME,
  expiredObjectDeleteMarker: true,
};

/**
 * S3 sends object events to EventBridge. Set on the bucket resource itself: the construct's
 * `eventBridgeEnabled` would set it through a custom resource and a function of its own.
 */
function sendEventsToEventBridge(bucket: s3.Bucket): void {
  (bucket.node.defaultChild as s3.CfnBucket).notificationConfiguration = {
    eventBridgeConfiguration: { eventBridgeEnabled: true },
  };
}

export interface MediaBucketProps {
  /**
   * RETAIN unless told: both buckets are kept, objects and all, when the stack is deleted.
   * DESTROY, for a stage whose data is disposable: both are emptied and deleted with the stack.
   */
  readonly removalPolicy?: RemovalPolicy.RETAIN | RemovalPolicy.DESTROY;
}

/**
 * The private media bucket that presigned URLs read from and write to, plus its access-log bucket.
 * SSE-KMS with the AWS managed key `aws/s3` (CT.S3.PR.10): its key policy lets every principal of
 * the account use it through S3, so the roles that sign upload and download URLs, the workers,
 * and Bedrock and Amazon Transcribe writing with their callers' rights need no KMS grant, and a
 * presigned PUT needs no encryption header (the bucket's default applies). The bucket key keeps
 * the KMS requests (and their cost) to a few per object batch rather than one per request.
 * Versioned, with previous versions kept one day (NONCURRENT_VERSION_LIFETIME). No CORS: API keys
 * are server-only (spec, "What the service does"), so uploads come from servers, not browsers.
 */
/** The construct id CDK gives the function that empties auto-deleted buckets: one per stack. */
const AUTO_DELETE_PROVIDER_ID = 'Custom::S3AutoDeleteObjectsCustomResourceProvider';

/**
 * CDK's custom resource providers take no VPC settings, so the function that empties a
 * non-production stage's buckets runs outside any VPC (CT.LAMBDA.PR.3).
 */
function acknowledgeAutoDeleteProvider(stack: Stack): void {
  const provider = stack.node.tryFindChild(AUTO_DELETE_PROVIDER_ID);
  if (!provider) throw new Error(`CDK no longer names its auto-delete provider ${AUTO_DELETE_PROVIDER_ID}`);
  acknowledgeControl(
    provider,
    'CT.LAMBDA.PR.3',
    "CDK's function that empties the buckets of a non-production stage before they are deleted: CDK's custom resource providers take no VPC settings. It runs only when the stack deletes a bucket, and the two buckets' policies let its role list and delete their objects and refuse new ones, nothing else.",
  );
}

export class MediaBucket extends Construct {
  public readonly bucket: s3.Bucket;
  public readonly accessLogBucket: s3.Bucket;

  constructor(scope: Construct, id: string, props: MediaBucketProps = {}) {
    super(scope, id);
    // BucketOwnerEnforced disables ACLs, so S3 log delivery must be allowed by the log bucket's
    // policy, not the legacy LogDeliveryWrite ACL. Without the flag CDK fails with a message about
    // ObjectWriter that does not say which setting is missing; this one does.
    if (!FeatureFlags.of(this).isEnabled(S3_SERVER_ACCESS_LOGS_USE_BUCKET_POLICY)) {
      throw new Error(
        `MediaBucket needs the feature flag ${S3_SERVER_ACCESS_LOGS_USE_BUCKET_POLICY}: true in the app's context (cdk.json).`,
      );
    }

    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    // CloudFormation deletes only an empty bucket: CDK's custom resource empties it first (and
    // refuses new objects while it does).
    const lifecycle: s3.BucketProps = { removalPolicy, autoDeleteObjects: removalPolicy === RemovalPolicy.DESTROY };

    // Needs no access log of its own: cdk-nag (S1) recognises it as the media bucket's log target.
    // SSE-S3: S3 delivers server access logs only to a bucket whose default encryption is SSE-S3.
    this.accessLogBucket = new s3.Bucket(this, 'AccessLogs', {
      ...PRIVATE_BUCKET,
      ...lifecycle,
      encryption: s3.BucketEncryption.S3_MANAGED,
      lifecycleRules: [{ id: 'expire-access-logs', expiration: Duration.days(90) }, EXPIRE_NONCURRENT_VERSIONS],
    });
    sendEventsToEventBridge(this.accessLogBucket);
    acknowledgeControl(
      this.accessLogBucket,
      'CT.S3.PR.2',
      "It is where the media bucket's access logs go. Logging its own access would need a further bucket, itself unlogged, or its own (S3 advises against a bucket logging to itself: each delivery writes logs about logs). Only S3's log delivery writes to it (its bucket policy), no function of the service reads it, and CloudTrail records changes to its settings.",
    );
    acknowledgeControl(
      this.accessLogBucket,
      'CT.S3.PR.10',
      'S3 delivers server access logs only to a bucket whose default encryption is SSE-S3 (Amazon S3 User Guide, "Enabling Amazon S3 server access logging"): the logs are encrypted at rest with S3 managed keys (AES-256).',
    );
    acknowledgeControl(
      this.accessLogBucket,
      'CT.S3.PR.9',
      "S3 refuses Object Lock default retention on a server access log destination, and logs expire after 90 days. Only S3's log delivery writes to it, no function of the service may delete from it, and versioning keeps an overwritten or deleted log a day.",
    );

    this.bucket = new s3.Bucket(this, 'Bucket', {
      ...PRIVATE_BUCKET,
      ...lifecycle,
      encryption: s3.BucketEncryption.KMS_MANAGED,
      bucketKeyEnabled: true,
      serverAccessLogsBucket: this.accessLogBucket,
      serverAccessLogsPrefix: 'media/',
      lifecycleRules: [
        {
          id: 'expire-unconfirmed-uploads',
          prefix: MEDIA_PREFIXES.incoming,
          expiration: INCOMING_UPLOAD_LIFETIME,
        },
        { id: 'expire-render-outputs', prefix: MEDIA_PREFIXES.renders, expiration: RENDER_OUTPUT_LIFETIME },
        { id: 'expire-job-work-files', prefix: MEDIA_PREFIXES.work, expiration: Duration.days(WORK_RETENTION_DAYS) },
        { id: 'abort-incomplete-multipart-uploads', abortIncompleteMultipartUploadAfter: Duration.days(1) },
        EXPIRE_NONCURRENT_VERSIONS,
      ],
    });
    sendEventsToEventBridge(this.bucket);
    acknowledgeControl(
      this.bucket,
      'CT.S3.PR.9',
      "Object Lock would keep objects that must go: unconfirmed uploads, render outputs and jobs' work files expire by lifecycle rules, a confirmed upload leaves incoming/ once copied, and the product keeps nothing it does not need. What protects the objects instead: only three functions may delete, each under one prefix (the functions' grants name a prefix and actions each): confirmation under incoming/, and the steps that remove a finished video or a clip's files whose job or clip ended otherwise meanwhile under assets/ and clips/; versioning keeps a deleted object a day, and a production stage retains the bucket when the stack is deleted.",
    );
    if (lifecycle.autoDeleteObjects) acknowledgeAutoDeleteProvider(Stack.of(this));
  }

  get bucketName(): string {
    return this.bucket.bucketName;
  }

  /** `arn:…:bucket/<prefix>*`: the only shape of S3 resource a route is ever granted. */
  objectsUnder(prefix: MediaPrefix): string {
    return this.bucket.arnForObjects(`${MEDIA_PREFIXES[prefix]}*`);
  }

  /**
   * Grants exactly the named object actions on the keys under one prefix, and records on the
   * grantee's policy why that one key wildcard is fine (object keys are ids minted per request,
   * so no narrower resource exists when the policy is written).
   */
  grantObjects(grantee: iam.IGrantable, prefix: MediaPrefix, actions: readonly ObjectAction[]): iam.Grant {
    const grant = iam.Grant.addToPrincipal({
      grantee,
      actions: [...actions],
      resourceArns: [this.objectsUnder(prefix)],
    });
    if (grantee.grantPrincipal instanceof Construct) {
      const keys = MEDIA_PREFIXES[prefix].replace('/', '\\/');
      NagSuppressions.addResourceSuppressions(
        grantee.grantPrincipal,
        [
          {
            id: 'AwsSolutions-IAM5',
            reason: `Object keys under ${MEDIA_PREFIXES[prefix]} embed ids created per request, so the grant names the prefix (${actions.join(', ')} on ${MEDIA_PREFIXES[prefix]}* only), never the whole bucket.`,
            appliesTo: [{ regex: `/^Resource::<[A-Za-z0-9]+\\.Arn>\\/${keys}\\*$/` }],
          },
        ],
        true,
      );
    }
    return grant;
  }

  /**
   * s3:ListBucket on the bucket, for listings whose Prefix lies under one prefix only (`s3:prefix`
   * is the listing's Prefix parameter; a listing without one, of the whole bucket, is refused).
   * It reveals key names (organization and asset ids) under that prefix, never content. It does
   * not make HeadObject or GetObject answer 404 for a missing key: those requests carry no
   * `s3:prefix`, so only an unconditional ListBucket would, on every key of the bucket.
   */
  grantListingUnder(grantee: iam.IGrantable, prefix: MediaPrefix): iam.Grant {
    return iam.Grant.addToPrincipal({
      grantee,
      actions: ['s3:ListBucket'],
      resourceArns: [this.bucket.bucketArn],
      conditions: { StringLike: { 's3:prefix': `${MEDIA_PREFIXES[prefix]}*` } },
    });
  }
}
