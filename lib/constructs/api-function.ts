import * as path from 'node:path';
import { Duration } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { NodeFunction, PROJECT_ROOT, type HandlerModuleProps } from './node-function';

/** Where route handler modules live; a route's `handler` names a module below it. */
export const HANDLERS_DIR = path.join(PROJECT_ROOT, 'lambdas', 'handlers');

/**
 * API Gateway HTTP APIs stop waiting for an integration after 30 s (a hard limit). The function
 * stops one second earlier so it neither keeps running (and billing) for a response nobody will
 * receive nor leaves a timeout in API Gateway's log without one in its own.
 */
export const API_HANDLER_TIMEOUT = Duration.seconds(29);

/** `handlerModule` is below lambdas/handlers; the route key makes a useful `description`. */
export interface ApiFunctionProps extends HandlerModuleProps {
  readonly timeout?: Duration;
  readonly reservedConcurrentExecutions?: number;
}

/**
 * One Lambda behind one API route, with the NodeFunction defaults. 512 MB because Lambda allocates
 * CPU in proportion to memory and the cold start (SDK clients, compiled ajv validators) and key
 * hashing are CPU-bound (at 128 MB cold starts take several times longer for a few hundredths of a
 * cent saved); 29 s, just under API Gateway's integration limit.
 */
export class ApiFunction extends NodeFunction {
  constructor(scope: Construct, id: string, props: ApiFunctionProps) {
    const { handlerModule, timeout, ...common } = props;
    super(scope, id, {
      ...common,
      entry: path.join(HANDLERS_DIR, `${handlerModule}.ts`),
      purpose: handlerModule,
      memorySize: 512,
      timeout: timeout ?? API_HANDLER_TIMEOUT,
    });
  }
}
