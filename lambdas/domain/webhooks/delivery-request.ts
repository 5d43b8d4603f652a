import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions, type LookupOptions } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction, Socket } from 'node:net';
import { addressAllowed, forbiddenAddressClass, webhookUrlProblem } from '#domain/webhooks/address-policy';

/**
 * One HTTP attempt of one webhook delivery, and nothing more: retries, signing and bookkeeping
 * belong to the caller. The endpoint is the customer's, so the attempt is guarded: it connects
 * only to addresses the address policy allows (checked on the address resolved for the socket,
 * so a name that rebinds between checks gains nothing), follows no redirect, reads little of the
 * response and gives up after one overall deadline.
 */

export type AddressLookup = (
  hostname: string,
  options: LookupAllOptions,
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

export interface DeliveryRequest {
  url: string;
  /** Already signed; Content-Type and User-Agent are added here. */
  headers: Record<string, string>;
  /** The raw JSON body, sent byte for byte. */
  body: string;
  /** The whole attempt: connecting, the response headers and reading the body. */
  timeoutMs: number;
  /** The local stack only: loopback addresses may be reached, over http too. */
  loopbackAllowed: boolean;
  /** Replaces `dns.lookup` (tests resolve names to chosen addresses). */
  lookup?: AddressLookup;
}

export type DeliveryResult =
  | {
      kind: 'response';
      status: number;
      retryAfterSeconds?: number;
      /** The start of the response body, at most RESPONSE_BODY_CAP_BYTES, as received. */
      body: Buffer;
      durationMs: number;
    }
  /** The address is not allowed: nothing was sent. */
  | { kind: 'refused'; reason: string; durationMs: number }
  | { kind: 'error'; reason: 'timeout' | 'connection' | 'tls' | 'invalid-url'; message: string; durationMs: number };

/**
 * The status decides; the start of the body only goes, redacted and cut, into the delivery log. A
 * receiver that answers with more is not read to its end.
 */
export const RESPONSE_BODY_CAP_BYTES = 4096;

export const USER_AGENT = 'VideoAPI-Webhooks/1';

/** Node's messages for these name no header value; the cap keeps a stored attempt small. */
const MAX_MESSAGE_CHARS = 300;

type ErrorReason = Extract<DeliveryResult, { kind: 'error' }>['reason'];

/** A result before its duration is stamped on it. */
type WithoutDuration<Result> = Result extends unknown ? Omit<Result, 'durationMs'> : never;
type Outcome = WithoutDuration<DeliveryResult>;

/** OpenSSL's certificate verification codes, and Node's own TLS and SSL error codes. */
const TLS_ERROR_CODE =
  /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT$|SELF_SIGNED_CERT_IN_CHAIN$|HOSTNAME_MISMATCH$|INVALID_CA$|INVALID_PURPOSE$|PATH_LENGTH_EXCEEDED$|ERR_OSSL_)/;

const errorReason = (error: NodeJS.ErrnoException): ErrorReason =>
  error.code && TLS_ERROR_CODE.test(error.code) ? 'tls' : 'connection';

/** Refusals travel through the request's error event, recognised by this class. */
class AddressRefused extends Error {}

/**
 * A lookup for the socket that resolves every address of the name and refuses them all when any
 * one is forbidden: a name that mixes public and private addresses is not a receiver's.
 */
function guardedLookup(resolve: AddressLookup, loopbackAllowed: boolean): LookupFunction {
  return (hostname: string, options: LookupOptions, callback) => {
    resolve(hostname, { all: true }, (error, addresses) => {
      if (error) return callback(error, '');
      const forbidden = addresses.find(({ address }) => !addressAllowed(address, { loopbackAllowed }));
      if (forbidden) {
        const refusal = `${hostname} resolves to a forbidden address (${forbiddenAddressClass(forbidden.address)}).`;
        return callback(new AddressRefused(refusal), '');
      }
      const usable = options.family ? addresses.filter(({ family }) => family === options.family) : addresses;
      const [first] = usable;
      if (!first) return callback(new AddressRefused(`${hostname} has no address of the family asked for.`), '');
      if (options.all) callback(null, usable);
      else callback(null, first.address, first.family);
    });
  };
}

/**
 * Delta seconds, or an IMF-fixdate. The obsolete HTTP-date forms are not read: the header is a
 * hint, and without it the retry schedule applies.
 */
const IMF_FIXDATE = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/;

function retryAfterSeconds(header: string | undefined): number | undefined {
  const value = header?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value);
  const date = IMF_FIXDATE.test(value) ? Date.parse(value) : NaN;
  return Number.isNaN(date) ? undefined : Math.max(0, Math.floor((date - Date.now()) / 1000));
}

export async function sendDelivery(request: DeliveryRequest): Promise<DeliveryResult> {
  const started = performance.now();
  const durationMs = () => Math.round(performance.now() - started);
  const { loopbackAllowed } = request;

  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    return {
      kind: 'error',
      reason: 'invalid-url',
      message: 'The endpoint URL does not parse.',
      durationMs: durationMs(),
    };
  }
  // IP-literal hosts never reach the lookup below, so the URL's own rules are checked first.
  const problem = webhookUrlProblem(request.url, { loopbackAllowed });
  if (problem) return { kind: 'refused', reason: problem, durationMs: durationMs() };

  const body = Buffer.from(request.body, 'utf8');
  const transport = url.protocol === 'https:' ? https : http;

  return new Promise<DeliveryResult>((settle) => {
    const outgoing = transport.request(url, {
      method: 'POST',
      // A fresh connection per attempt: a pooled socket would skip the lookup.
      agent: false,
      lookup: guardedLookup(request.lookup ?? dnsLookup, loopbackAllowed),
      headers: {
        ...request.headers,
        'Content-Type': 'application/json',
        'Content-Length': String(body.length),
        'User-Agent': USER_AGENT,
      },
    });

    let settled = false;
    const finish = (outcome: Outcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      // Whatever is left (an unread body, a connection still opening) is of no use to the attempt.
      outgoing.destroy();
      settle({ ...outcome, durationMs: durationMs() });
    };
    const deadline = setTimeout(
      () =>
        finish({ kind: 'error', reason: 'timeout', message: `No complete response within ${request.timeoutMs} ms.` }),
      request.timeoutMs,
    );

    const onError = (error: NodeJS.ErrnoException) => {
      if (error instanceof AddressRefused) finish({ kind: 'refused', reason: error.message });
      else finish({ kind: 'error', reason: errorReason(error), message: error.message.slice(0, MAX_MESSAGE_CHARS) });
    };

    outgoing.on('socket', (socket: Socket) => {
      // The lookup guards names; this guards the socket itself, whatever route its address took.
      const checkConnectedAddress = () => {
        const address = socket.remoteAddress ?? '';
        if (addressAllowed(address, { loopbackAllowed })) return;
        socket.destroy(
          new AddressRefused(`The connection reached a forbidden address (${forbiddenAddressClass(address)}).`),
        );
      };
      if (socket.connecting) socket.once('connect', checkConnectedAddress);
      else checkConnectedAddress();
    });

    outgoing.on('response', (response) => {
      const status = response.statusCode ?? 0;
      const retryAfter = retryAfterSeconds(response.headers['retry-after']);
      const chunks: Buffer[] = [];
      let received = 0;
      const respond = () =>
        finish({
          kind: 'response',
          status,
          ...(retryAfter === undefined ? {} : { retryAfterSeconds: retryAfter }),
          body: Buffer.concat(chunks).subarray(0, RESPONSE_BODY_CAP_BYTES),
        });
      response.on('data', (chunk: Buffer) => {
        if (received < RESPONSE_BODY_CAP_BYTES) chunks.push(chunk);
        received += chunk.length;
        if (received >= RESPONSE_BODY_CAP_BYTES) respond();
      });
      response.on('end', respond);
      response.on('error', onError);
    });

    outgoing.on('error', onError);
    outgoing.end(body);
  });
}
