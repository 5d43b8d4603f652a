import { RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import type { TableAccess } from '#grants';
import { TABLE_DESIGN } from '#platform/table-design';

export interface DataTableProps {
  /**
   * RETAIN unless told: kept when the stack is deleted, and protected from deletion, because it
   * holds API keys, credits and jobs that cannot be rebuilt. DESTROY, for a stage whose data is
   * disposable: unprotected and deleted with the stack.
   */
  readonly removalPolicy?: RemovalPolicy.RETAIN | RemovalPolicy.DESTROY;
}

/**
 * The single table of lambdas/platform/table-design.ts. On-demand billing because API traffic is
 * spiky and small (no capacity to plan or autoscale); point-in-time recovery in every stage (it
 * costs little on a small table, and it is what undoes a botched migration or admin command, which
 * a stage before production exists to rehearse); the AWS-managed KMS key so key use shows in
 * CloudTrail without a customer key to administer.
 * Its stream carries new images only: the webhook relay (lambdas/tasks.ts) reads the event items
 * written, and nothing needs the old image.
 */
export class DataTable extends Construct {
  public readonly table: dynamodb.Table;

  constructor(scope: Construct, id: string, props: DataTableProps = {}) {
    super(scope, id);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    this.table = new dynamodb.Table(this, 'Table', {
      partitionKey: { name: TABLE_DESIGN.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: TABLE_DESIGN.sortKey, type: dynamodb.AttributeType.STRING },
      timeToLiveAttribute: TABLE_DESIGN.timeToLiveAttribute,
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: dynamodb.TableEncryption.AWS_MANAGED,
      deletionProtection: removalPolicy === RemovalPolicy.RETAIN,
      stream: dynamodb.StreamViewType[TABLE_DESIGN.streamViewType],
      removalPolicy,
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
   * Grants exactly the declared item actions on the table, and Query on each declared index by
   * name (never `index/*`); nothing when the function declares nothing. Item actions only: no
   * Scan, table management or PartiQL is in the vocabulary (TableAction in lambdas/grants.ts).
   */
  grantTo(grantee: iam.IGrantable, access: TableAccess): void {
    if (access.table.length > 0) {
      iam.Grant.addToPrincipal({
        grantee,
        actions: access.table.map((action) => `dynamodb:${action}`),
        resourceArns: [this.table.tableArn],
      });
    }
    const indexes = access.tableIndexes ?? [];
    if (indexes.length > 0) {
      iam.Grant.addToPrincipal({
        grantee,
        actions: ['dynamodb:Query'],
        resourceArns: indexes.map((indexName) => `${this.table.tableArn}/index/${indexName}`),
      });
    }
  }
}
