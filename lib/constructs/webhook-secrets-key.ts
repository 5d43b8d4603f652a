import { RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';
import { limitGrantsToAwsServices } from './key-policies';

/**
 * The encryption context keys lambdas/domain/webhooks/secret-sealing.ts binds every wrapped data
 * key to (`organization_id`, `webhook_id`). The grants require exactly these, so a call without
 * a context, or with other keys, is refused by IAM before KMS looks at the ciphertext.
 */
export const WEBHOOK_SECRET_ENCRYPTION_CONTEXT_KEYS = ['organization_id', 'webhook_id'] as const;

/**
 * The customer managed key that wraps each webhook endpoint's data key (envelope encryption of
 * its signing secret, lambdas/domain/webhooks/secret-sealing.ts). A key of the service's own, not
 * the AWS-managed one, so that only the functions granted here can unwrap a secret: reading the
 * table is not enough to sign as the service. Yearly automatic rotation (old key material keeps
 * decrypting what it wrapped); it follows the table's removal policy (RETAIN unless told), since
 * the sealed secrets in the table can be opened with this key only. The key policy is CDK's default (the account's IAM
 * policies decide) and refuses KMS grants to all but AWS services, so the grants below are the whole
 * of who may use it.
 */
export class WebhookSecretsKey extends Construct {
  public readonly key: kms.Key;

  constructor(scope: Construct, id: string, props: { readonly removalPolicy?: RemovalPolicy } = {}) {
    super(scope, id);
    this.key = new kms.Key(this, 'Key', {
      description: `Wraps the data keys that encrypt webhook signing secrets (${Stack.of(this).stackName}).`,
      alias: `alias/${Stack.of(this).stackName}/webhook-secrets`,
      enableKeyRotation: true,
      removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
    });
    limitGrantsToAwsServices(this.key);
  }

  get keyArn(): string {
    return this.key.keyArn;
  }

  /** kms:GenerateDataKey only: a new data key, returned in the clear and wrapped. */
  grantGenerateDataKey(grantee: iam.IGrantable): iam.Grant {
    return this.grantWithContext(grantee, 'kms:GenerateDataKey');
  }

  /** kms:Decrypt only: unwraps a data key. */
  grantDecrypt(grantee: iam.IGrantable): iam.Grant {
    return this.grantWithContext(grantee, 'kms:Decrypt');
  }

  /**
   * One action on this key, only with an encryption context whose keys are exactly
   * WEBHOOK_SECRET_ENCRYPTION_CONTEXT_KEYS: ForAllValues alone would also match a request with no
   * context at all (an empty set), which the Null condition refuses.
   */
  private grantWithContext(grantee: iam.IGrantable, action: string): iam.Grant {
    return iam.Grant.addToPrincipal({
      grantee,
      actions: [action],
      resourceArns: [this.key.keyArn],
      conditions: {
        'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': [...WEBHOOK_SECRET_ENCRYPTION_CONTEXT_KEYS] },
        Null: { 'kms:EncryptionContextKeys': 'false' },
      },
    });
  }
}
