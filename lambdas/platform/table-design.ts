/**
 * The single table's physical design, shared by the CDK stack, the local stack's table creation
 * and the item modules. Item key shapes live in the module that owns each item type.
 */
export const TABLE_DESIGN = {
  partitionKey: 'pk',
  sortKey: 'sk',
  timeToLiveAttribute: 'expires_at',
  /** GSI1 lists an organization's items by a secondary order (API keys by creation). */
  gsi1: { indexName: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' },
} as const;
