import { WEBHOOK_ENVIRONMENT } from './webhook-environment';

/** The delivery feature flag: only `true` sends anything. */
export function deliveryEnabled(): boolean {
  return process.env[WEBHOOK_ENVIRONMENT.deliveryEnabled] === 'true';
}

export function loopbackAllowed(): boolean {
  return process.env[WEBHOOK_ENVIRONMENT.loopbackAllowed] === 'true';
}

export function retryScale(): number {
  const value = Number(process.env[WEBHOOK_ENVIRONMENT.retryScale] ?? '1');
  return Number.isFinite(value) && value > 0 ? value : 1;
}

/**
 * How long an attempt waits for the receiver (connection, response headers and the start of its
 * body): long enough for a receiver that answers first and works after, as the spec asks, short
 * enough that a dead one does not hold a worker.
 */
export const RESPONSE_TIMEOUT_SECONDS = 10;
