import { RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { TABLE_DESIGN } from '#platform/table-design';

/** How much of the table a function may use. */
export type TableAccess = 'RO' | 'RW';

/**
 * Item-level actions only: no Scan (a single-table design never needs one, and a Scan over every
 * organization's items is the one query that must not be possible), no table management, no
 * PartiQL. Transactions need no actions of their own: TransactWriteItems is authorized as the
 * Put/Update/Delete/ConditionCheck it contains.
 */
const ACTIONS: Record<TableAccess, readonly string[]> = {
  RO: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query', 'dynamodb:ConditionCheckItem'],
  RW: [
    'dynamodb:GetItem',
    'dynamodb:BatchGetItem',
    'dynamodb:Query',
    'dynamodb:ConditionCheckItem',
    'dynamodb:PutItem',
    'dynamodb:UpdateItem',
    'dynamodb:DeleteItem',
    'dynamodb:BatchWriteItem',
  ],
};

/**
 * The single table of lambdas/platform/table-design.ts. On-demand billing because API traffic is
 * spiky and small (no capacity to plan or autoscale); point-in-time recovery and deletion
 * protection plus RETAIN because it holds API keys, credits and jobs that cannot be rebuilt;
 * the AWS-managed KMS key so key use shows in CloudTrail without a customer key to administer.
 * Its stream carries new images only: the webhook relay (lambdas/tasks.ts) reads the event items
 * written, and nothing needs the old image.
 */
export class DataTable extends Construct {
  public readonly table: dynamodb.Table;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.table = new dynamodb.Table(this, 'Table', {
      partitionKey: { name: TABLE_DESIGN.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: TABLE_DESIGN.sortKey, type: dynamodb.AttributeType.STRING },
      timeToLiveAttribute: TABLE_DESIGN.timeToLiveAttribute,
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: dynamodb.TableEncryption.AWS_MANAGED,
      deletionProtection: true,
      stream: dynamodb.StreamViewType[TABLE_DESIGN.streamViewType],
      removalPolicy: RemovalPolicy.RETAIN,
    });
    for (const index of TABLE_DESIGN.indexes) {
      this.table.addGlobalSecondaryIndex({
        indexName: index.indexName,
        partitionKey: { name: index.partitionKey, type: dynamodb.AttributeType.STRING },
        sortKey: { name: index.sortKey, type: dynamodb.AttributeType.STRING },
        ...(index.projection === 'all'
          ? { projectionType: dynamodb.ProjectionType.ALL }
          : { projectionType: dynamodb.ProjectionType.INCLUDE, nonKeyAttributes: [...index.projection] }),
      });
    }
  }

  get tableName(): string {
    return this.table.tableName;
  }

  /**
   * Grants item access on the table and its named indexes (not `index/*`, so the policy carries
   * no wildcard).
   */
  grantTo(grantee: iam.IGrantable, access: TableAccess): iam.Grant {
    return iam.Grant.addToPrincipal({
      grantee,
      actions: [...ACTIONS[access]],
      resourceArns: [
        this.table.tableArn,
        ...TABLE_DESIGN.indexes.map((index) => `${this.table.tableArn}/index/${index.indexName}`),
      ],
    });
  }
}
