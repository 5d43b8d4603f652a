/**
 * The single table's physical design, shared by the CDK stack, the local stack's table creation
 * and the item modules. Item key shapes live in the module that owns each item type.
 */

export interface IndexDesign {
  readonly indexName: string;
  readonly partitionKey: string;
  readonly sortKey: string;
  /** Attributes copied besides the keys; `all` copies every attribute. */
  readonly projection: 'all' | readonly string[];
}

/** GSI1 lists an organization's items by a secondary order (API keys and jobs by creation). */
const gsi1 = {
  indexName: 'gsi1',
  partitionKey: 'gsi1pk',
  sortKey: 'gsi1sk',
  projection: 'all',
} as const satisfies IndexDesign;

/**
 * Active jobs across every organization, oldest first, for the reconciler. Sparse: only a
 * queued or processing job has the keys, and the transaction that ends it removes them.
 * Sharded (lambdas/domain/jobs/job-store.ts) so no single partition takes every job's writes.
 */
const activeJobs = {
  indexName: 'active-jobs',
  partitionKey: 'active_shard',
  sortKey: 'active_since',
  projection: ['organization_id', 'job_id', 'type', 'status', 'created_at'],
} as const satisfies IndexDesign;

/**
 * The webhook outbox, across every organization, by when each entry is due: an event item until
 * the relay has recorded its deliveries (due at its creation), and a delivery item while it is
 * pending (due at its next attempt). Sparse: the write that relays an event or ends a delivery
 * removes the keys. Sharded (lambdas/domain/webhooks/outbox.ts) like the active-jobs index; the
 * sweeper reads each shard's overdue entries.
 */
const outbox = {
  indexName: 'outbox',
  partitionKey: 'outbox_shard',
  sortKey: 'outbox_due',
  projection: ['organization_id'],
} as const satisfies IndexDesign;

export const TABLE_DESIGN = {
  partitionKey: 'pk',
  /** What the table's stream carries: each item as written (the webhook relay reads new event items). */
  streamViewType: 'NEW_IMAGE',
  sortKey: 'sk',
  timeToLiveAttribute: 'expires_at',
  gsi1,
  activeJobs,
  outbox,
  indexes: [gsi1, activeJobs, outbox],
} as const;

/** The name of one of the table's indexes. */
export type IndexName = (typeof TABLE_DESIGN.indexes)[number]['indexName'];

/**
 * The partition of everything an organization owns (its item, keys, jobs, assets, usage, webhook
 * endpoints, events and deliveries), and the stem of its other partitions (`<partition>#JOBS`).
 */
export function organizationPartition(organizationId: number): string {
  return `ORG#${organizationId}`;
}
