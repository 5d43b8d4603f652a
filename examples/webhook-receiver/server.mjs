import { Buffer } from 'node:buffer';
import console from 'node:console';
import { createServer } from 'node:http';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { verifyWebhook } from '@video-automation/client';

/**
 * A webhook receiver to run beside the local stack, and a starting point for a real one:
 *
 *   PORT=4000 node examples/webhook-receiver/server.mjs                    (then paste the secret)
 *   WEBHOOK_SECRET=whsec_... PORT=4000 node examples/webhook-receiver/server.mjs
 *   WEBHOOK_SECRET=whsec_new...,whsec_old... node examples/webhook-receiver/server.mjs   (while rotating)
 *
 * It verifies every delivery, answers at once, and only then hands the event on: the service
 * waits for the answer, so slow work belongs after it (fetch results through the payload's paths).
 */

const MAX_BODY_BYTES = 1024 * 1024;

/**
 * Retries carry the event id of the first attempt, so the ids already handled are remembered; the
 * oldest are forgotten past this many. Remembering in memory is enough for an example; a real
 * receiver records the id in its own store, with the work the event starts.
 */
const REMEMBERED_EVENT_IDS = 10_000;

/**
 * @typedef {{ eventId: string, eventType: string, timestamp: number, payload: unknown }} WebhookEvent
 */

/** @param {WebhookEvent} event */
function logEvent(event) {
  console.log(`${new Date().toISOString()} ${event.eventType} ${event.eventId}`);
}

/**
 * @param {import('node:http').ServerResponse} response
 * @param {number} status
 * @param {string} [error]
 */
function answer(response, status, error) {
  if (error === undefined) {
    response.writeHead(status).end();
    return;
  }
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ error }));
}

/**
 * The body as bytes, or undefined when it outgrows the cap (the rest is read and dropped, so the
 * sender still gets the answer instead of a reset connection).
 * @param {import('node:http').IncomingMessage} request
 * @returns {Promise<Buffer | undefined>}
 */
function readBody(request) {
  return new Promise((resolveBody, reject) => {
    /** @type {Buffer[]} */
    const chunks = [];
    let size = 0;
    request.on('data', (/** @type {Buffer} */ chunk) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    request.on('end', () => resolveBody(size <= MAX_BODY_BYTES ? Buffer.concat(chunks) : undefined));
    request.on('error', reject);
  });
}

/** While no secret is set, deliveries are answered 503 with this Retry-After: the service tries them again. */
const RETRY_WITHOUT_SECRET_SECONDS = 10;

/**
 * @typedef {string | readonly string[]} Secrets
 * @param {{ secret: Secrets | (() => Secrets | undefined), onEvent?: (event: WebhookEvent) => void | Promise<void> }} options
 * `secret` may be a function, read at every delivery: the receiver can start before the endpoint
 * (and so its secret) exists.
 * @returns {import('node:http').Server}
 */
export function createReceiver({ secret, onEvent = logEvent }) {
  /** @type {Set<string>} */
  const handledEventIds = new Set();

  /** @param {string} eventId */
  function firstDelivery(eventId) {
    if (handledEventIds.has(eventId)) return false;
    handledEventIds.add(eventId);
    if (handledEventIds.size > REMEMBERED_EVENT_IDS) {
      // A Set iterates in insertion order: its first value is the oldest.
      const [oldest = ''] = handledEventIds;
      handledEventIds.delete(oldest);
    }
    return true;
  }

  return createServer(async (request, response) => {
    if (request.method !== 'POST') {
      response.setHeader('allow', 'POST');
      answer(response, 405, 'method_not_allowed');
      return;
    }
    /** @type {Buffer | undefined} */
    let rawBody;
    try {
      rawBody = await readBody(request);
    } catch {
      return; // The sender went away mid-body: there is no one to answer.
    }
    if (rawBody === undefined) {
      answer(response, 413, 'body_too_large');
      return;
    }
    const secrets = typeof secret === 'function' ? secret() : secret;
    if (secrets === undefined || secrets.length === 0) {
      response.setHeader('retry-after', String(RETRY_WITHOUT_SECRET_SECONDS));
      answer(response, 503, 'secret_not_set');
      return;
    }
    const verified = verifyWebhook({ headers: request.headers, rawBody, secrets });
    if (!verified.ok) {
      answer(response, 400, verified.reason);
      return;
    }
    /** @type {unknown} */
    let payload;
    try {
      payload = JSON.parse(rawBody.toString('utf8'));
    } catch {
      answer(response, 400, 'invalid_json');
      return;
    }

    answer(response, 204);
    if (!firstDelivery(verified.eventId)) return;
    try {
      await onEvent({
        eventId: verified.eventId,
        eventType: verified.eventType,
        timestamp: verified.timestamp,
        payload,
      });
    } catch (error) {
      // Already acknowledged: the service will not retry, so the failure is this receiver's to report.
      console.error(`handling ${verified.eventId} failed`, error);
    }
  });
}

function startedDirectly() {
  return process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
}

/** @param {string} text @returns {string[]} */
function secretList(text) {
  return text
    .split(',')
    .map((secret) => secret.trim())
    .filter(Boolean);
}

if (startedDirectly()) {
  // Several secrets, comma-separated, while one is rotated: a delivery signed by any of them passes.
  let secrets = secretList(process.env.WEBHOOK_SECRET ?? '');
  const port = Number(process.env.PORT ?? 4000);
  createReceiver({ secret: () => secrets }).listen(port, () => {
    console.log(`Receiving webhooks on http://127.0.0.1:${port}/`);
    if (secrets.length > 0) return;
    // No secret yet: create the endpoint for this URL, then paste the secret its creation answers.
    // Deliveries until then are answered 503, which the service retries.
    console.log('Create the webhook endpoint for that URL, then paste its signing secret (whsec_...) here:');
    createInterface({ input: process.stdin }).on('line', (line) => {
      const pasted = secretList(line);
      if (pasted.length === 0) return;
      secrets = pasted;
      console.log(`Verifying with ${pasted.length === 1 ? 'that secret' : `those ${pasted.length} secrets`}.`);
    });
  });
}
