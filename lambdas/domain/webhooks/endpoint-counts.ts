import { paginateQuery } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from '#platform/clients/dynamodb';

/**
 * How many webhook endpoints an organization has, by status. Endpoints are items `ORG#<id>` /
 * `WEBHOOK#<webhook id>` (docs/data-model.md), at most the organization's `webhook_endpoints`
 * limit, so one Query of their statuses is a page of a few small items. A deleted endpoint
 * counts in neither status, whether its item is removed or kept with status `deleted`.
 *
 * The webhook routes, when they come, own the endpoint item: its key belongs with them, and
 * this read should move next to it.
 */

export interface EndpointCounts {
  total: number;
  active: number;
  disabled: number;
}

export async function webhookEndpointCounts(organizationId: number): Promise<EndpointCounts> {
  const counts: EndpointCounts = { total: 0, active: 0, disabled: 0 };
  const pages = paginateQuery(
    { client: dynamo },
    {
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :endpoint)',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':pk': `ORG#${organizationId}`, ':endpoint': 'WEBHOOK#' },
      ProjectionExpression: '#status',
      ConsistentRead: true,
    },
  );
  for await (const page of pages) {
    for (const item of page.Items ?? []) {
      if (item.status === 'active') counts.active += 1;
      else if (item.status === 'disabled') counts.disabled += 1;
    }
  }
  counts.total = counts.active + counts.disabled;
  return counts;
}
