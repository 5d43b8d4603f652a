import type { Scope } from '#contract/types';

export type { Scope };

/** The API key scopes of v1, in the order the spec lists them. */
export const SCOPES = [
  'assets:create',
  'assets:read',
  'video:create',
  'video:read',
  'split:create',
  'split:read',
  'jobs:read',
  'usage:read',
  'webhooks:read',
  'webhooks:write',
] as const satisfies readonly Scope[];
