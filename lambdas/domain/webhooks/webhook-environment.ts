/**
 * The variables that steer webhook delivery: a module of its own, so that the CDK app and the
 * local stack can name them without loading an AWS client.
 */
export const WEBHOOK_ENVIRONMENT = {
  /** `true` turns delivery on (the spec's feature flag); anything else leaves deliveries pending. */
  deliveryEnabled: 'DEVELOPER_WEBHOOK_DELIVERY_ENABLED',
  /** Multiplies the retry schedule's delays (the local stack: 0.001, so six attempts take seconds). */
  retryScale: 'WEBHOOK_RETRY_SCALE',
  /** `true` on the local stack only: `http://127.0.0.1:*` and `http://localhost:*` are accepted and reached. */
  loopbackAllowed: 'WEBHOOK_LOOPBACK_ALLOWED',
  /** ARN of the KMS key that wraps each endpoint's data key (AWS). */
  secretsKeyArn: 'WEBHOOK_SECRETS_KEY_ARN',
  /** Base64 of a 32-byte key that wraps the data keys instead (the local stack). */
  secretsLocalKey: 'WEBHOOK_SECRETS_LOCAL_KEY',
} as const;
