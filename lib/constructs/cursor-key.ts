import { RemovalPolicy } from 'aws-cdk-lib';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';

/**
 * The key that signs list cursors (lambdas/platform/cursor-keys.ts): a generated secret whose
 * current version signs and whose current and previous versions verify. Rotating it is one
 * `aws secretsmanager put-secret-value` with a new random value (docs/data-model.md): cursors
 * signed before keep working through one rotation.
 */
export class CursorKey extends Construct {
  public readonly secret: secretsmanager.Secret;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.secret = new secretsmanager.Secret(this, 'Secret', {
      description: 'Signs the pagination cursors of the developer API (HMAC-SHA256).',
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
      // Cursors are short-lived; a new key costs clients nothing but a restarted listing.
      removalPolicy: RemovalPolicy.DESTROY,
    });
    NagSuppressions.addResourceSuppressions(this.secret, [
      {
        id: 'AwsSolutions-SMG4',
        reason:
          'An HMAC key with no counterpart to update: rotation is one put-secret-value by the operator (docs/data-model.md), and the previous version keeps verifying, so no rotation function is needed.',
      },
    ]);
  }
}
