/**
 * What of the table's stream the event relay reads: new event items only. Declared once, as a
 * Lambda event filter pattern, for the CDK app's event source mapping and the local stack's
 * stream poller, which applies the same pattern.
 */
export const EVENT_ITEM_PREFIX = 'EVENT#';

export const EVENT_STREAM_FILTER = {
  eventName: ['INSERT'],
  dynamodb: { NewImage: { sk: { S: [{ prefix: EVENT_ITEM_PREFIX }] } } },
} as const;
