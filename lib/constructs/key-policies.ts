import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';

/**
 * Refuses kms:CreateGrant on `key` to every principal, unless an AWS service asks for it or the
 * grant is for an AWS resource (CT.KMS.PR.3). A grant lets its grantee use the key whatever the key
 * policy and IAM say, and nothing of this stack creates one: its functions and services call the
 * key directly.
 */
export function limitGrantsToAwsServices(key: kms.Key): void {
  key.addToResourcePolicy(
    new iam.PolicyStatement({
      sid: 'GrantsOnlyForAwsResources',
      effect: iam.Effect.DENY,
      principals: [new iam.AnyPrincipal()],
      actions: ['kms:CreateGrant'],
      resources: ['*'],
      conditions: {
        BoolIfExists: { 'kms:GrantIsForAWSResource': 'false', 'aws:PrincipalIsAWSService': 'false' },
      },
    }),
  );
}
