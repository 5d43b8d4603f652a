/**
 * The path below the host where the v1 developer API lives (docs/openapi.yaml: the servers' base
 * URL ends in it). Every route's path (lambdas/routes.ts) and every API path the API gives out, such
 * as a job's result path, starts with it.
 */
export const API_PREFIX = '/api/v1/developer';
