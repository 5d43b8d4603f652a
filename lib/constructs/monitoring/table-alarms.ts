import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import { PERIOD, THROTTLE_EVALUATION, onAny } from './alarm-options';

/**
 * The table operations the functions make (items, queries, batches, transactions) and the relay's
 * stream reads. DynamoDB publishes ThrottledRequests per operation only, so the alarm sums these.
 */
const TABLE_OPERATIONS = [
  dynamodb.Operation.GET_ITEM,
  dynamodb.Operation.BATCH_GET_ITEM,
  dynamodb.Operation.QUERY,
  dynamodb.Operation.PUT_ITEM,
  dynamodb.Operation.UPDATE_ITEM,
  dynamodb.Operation.DELETE_ITEM,
  dynamodb.Operation.BATCH_WRITE_ITEM,
  dynamodb.Operation.TRANSACT_WRITE_ITEMS,
  dynamodb.Operation.GET_RECORDS,
];

/** The alarm on the table throttling requests, made in `scope`. */
export class TableAlarms {
  public readonly table: dynamodb.ITable;
  public readonly throttledRequests: cloudwatch.MathExpression;
  public readonly throttlesAlarm: cloudwatch.Alarm;

  constructor(scope: Construct, table: dynamodb.ITable) {
    this.table = table;
    this.throttledRequests = new cloudwatch.MathExpression({
      expression: 'SUM(FILL(METRICS(), 0))',
      usingMetrics: Object.fromEntries(
        TABLE_OPERATIONS.map((operation) => [
          operation.toLowerCase(),
          table.metric('ThrottledRequests', {
            period: PERIOD,
            statistic: 'Sum',
            dimensionsMap: { TableName: table.tableName, Operation: operation },
          }),
        ]),
      ),
      period: PERIOD,
      label: 'throttled requests',
    });
    this.throttlesAlarm = this.throttledRequests.createAlarm(
      scope,
      'TableThrottlesAlarm',
      onAny(
        `DynamoDB throttled requests to the table in ${THROTTLE_EVALUATION.datapointsToAlarm} of ${THROTTLE_EVALUATION.evaluationPeriods} periods of 5 minutes: the SDK retries each a few times, then the call fails.`,
        THROTTLE_EVALUATION,
      ),
    );
  }
}
