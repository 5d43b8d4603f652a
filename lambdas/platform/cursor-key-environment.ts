/**
 * Where a function finds the key that signs list cursors: its own module, so that the CDK app
 * and the local stack can name the variables without loading an AWS client.
 */
export const CURSOR_KEY_ENVIRONMENT = {
  /** ARN of the Secrets Manager secret whose current and previous versions are the keys (AWS). */
  secretArn: 'CURSOR_KEY_SECRET_ARN',
  /** `<id>:<base64 secret>`, one key (the local stack). */
  localKey: 'CURSOR_KEY_LOCAL',
} as const;
