import { ArnFormat, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { Grant } from '#grants';
import { FunctionNetwork, type VpcSubnet } from './function-network';
import { limitGrantsToAwsServices } from './key-policies';

/**
 * The governed profile's settings (`governed=true`, docs/operations.md): the operator's VPC, by id,
 * and the subnets of it the functions run in.
 */
export interface GovernedProfile {
  readonly vpcId: string;
  readonly subnets: readonly VpcSubnet[];
}

/** What AWS Control Tower's CT.CLOUDWATCH.PR.2 asks of every log group: a year at least. */
export const GOVERNED_MINIMUM_LOG_RETENTION = logs.RetentionDays.ONE_YEAR;

export interface GovernanceProps {
  readonly profile: GovernedProfile;
  /** Every grant a function of the stack holds, for the VPC endpoints of their services. */
  readonly grants: readonly Grant[];
  /** Of the logs key: the data's (log groups retained with the stack stay readable with it). */
  readonly removalPolicy: RemovalPolicy;
}

/**
 * What the governed profile gives every function and log group of the stack: the network the
 * functions run in (CT.LAMBDA.PR.3), and a customer managed key that encrypts every log group
 * (CT.CLOUDWATCH.PR.3). CloudWatch Logs uses the key for log groups of this account and region
 * only, on behalf of anyone who may read them, so readers need no KMS permission of their own.
 */
export class Governance extends Construct {
  public readonly network: FunctionNetwork;
  public readonly logsKey: kms.Key;

  constructor(scope: Construct, id: string, props: GovernanceProps) {
    super(scope, id);
    const stack = Stack.of(this);
    this.network = new FunctionNetwork(this, 'Network', {
      vpcId: props.profile.vpcId,
      subnets: props.profile.subnets,
      grants: props.grants,
    });
    this.logsKey = new kms.Key(this, 'LogsKey', {
      description: `Encrypts the log groups of ${stack.stackName}.`,
      enableKeyRotation: true,
      removalPolicy: props.removalPolicy,
    });
    this.logsKey.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'CloudWatchLogsEncryptsThisAccountsLogGroups',
        principals: [new iam.ServicePrincipal(`logs.${stack.region}.amazonaws.com`)],
        actions: ['kms:Encrypt*', 'kms:Decrypt*', 'kms:ReEncrypt*', 'kms:GenerateDataKey*', 'kms:Describe*'],
        resources: ['*'],
        conditions: {
          ArnLike: {
            'kms:EncryptionContext:aws:logs:arn': stack.formatArn({
              service: 'logs',
              resource: 'log-group',
              resourceName: '*',
              arnFormat: ArnFormat.COLON_RESOURCE_NAME,
            }),
          },
        },
      }),
    );
    limitGrantsToAwsServices(this.logsKey);
  }
}
