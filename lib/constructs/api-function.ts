import * as path from 'node:path';
import { Duration } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { NodeFunction, PROJECT_ROOT } from './node-function';

/** Where route handler modules live; a route's `handler` names a module below it. */
export const HANDLERS_DIR = path.join(PROJECT_ROOT, 'lambdas', 'handlers');

/**
 * API Gateway HTTP APIs stop waiting for an integration after 30 s (a hard limit). The function
 * stops one second earlier so it neither keeps running (and billing) for a response nobody will
 * receive nor leaves a timeout in API Gateway's log without one in its own.
 */
export const API_HANDLER_TIMEOUT = Duration.seconds(29);

export interface ApiFunctionProps {
  /** Module below lambdas/handlers exporting `handler`, as the route table names it (`me/get`). */
  readonly handlerModule: string;
  /** Shown in the console next to the function name; the route key is the useful thing to put here. */
  readonly description?: string;
  readonly tableName: string;
  readonly mediaBucketName: string;
  /** `info` unless told; `silent` turns off the request log lines (lambdas/http/log.ts). */
  readonly logLevel?: string;
  /** Extra variables for this function only (e.g. a state machine ARN). */
  readonly environment?: Record<string, string>;
  readonly timeout?: Duration;
}

/**
 * One Lambda behind one API route, with the NodeFunction defaults. 512 MB because Lambda allocates
 * CPU in proportion to memory and the cold start (SDK clients, compiled ajv validators) and key
 * hashing are CPU-bound (at 128 MB cold starts take several times longer for a few hundredths of a
 * cent saved); 29 s, just under API Gateway's integration limit.
 */
export class ApiFunction extends NodeFunction {
  constructor(scope: Construct, id: string, props: ApiFunctionProps) {
    super(scope, id, {
      entry: path.join(HANDLERS_DIR, `${props.handlerModule}.ts`),
      description: props.description,
      purpose: props.handlerModule,
      memorySize: 512,
      timeout: props.timeout ?? API_HANDLER_TIMEOUT,
      tableName: props.tableName,
      mediaBucketName: props.mediaBucketName,
      logLevel: props.logLevel,
      environment: props.environment,
    });
  }
}
