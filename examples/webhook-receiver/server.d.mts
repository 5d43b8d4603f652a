/** Typings of server.mjs, so TypeScript tests can import its factory. */
import type { Server } from 'node:http';

export interface WebhookEvent {
  eventId: string;
  eventType: string;
  timestamp: number;
  /** The parsed JSON body. */
  payload: unknown;
}

export interface ReceiverOptions {
  /**
   * The endpoint's signing secret, or several while one is being rotated; or a function read at
   * every delivery, so the receiver can start before the endpoint exists (while it answers none,
   * deliveries get 503 with Retry-After, which the service retries).
   */
  secret: string | readonly string[] | (() => string | readonly string[] | undefined);
  /** Called once per event id, after the 204 has been sent. */
  onEvent?: (event: WebhookEvent) => void | Promise<void>;
}

export declare function createReceiver(options: ReceiverOptions): Server;
