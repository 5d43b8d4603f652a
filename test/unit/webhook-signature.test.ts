import { createHmac } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import fc from 'fast-check';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import {
  deliveryHeaders,
  newSigningSecret,
  SIGNATURE_HEADERS,
  signatureOf,
  STANDARD_HEADERS,
  standardSignatureOf,
} from '#domain/webhooks/signature';
import {
  newSigningSecret as newClientSigningSecret,
  signWebhook,
  STANDARD_WEBHOOK_HEADERS,
  verifyWebhook,
} from '@video-automation/client';
import { createReceiver, type WebhookEvent } from '../../examples/webhook-receiver/server.mjs';

const SECRET = 'whsec_MfKQ9r2Hm0Yyy4m8Hw5Fq1eTzQ3oTt1z0G8j6c4V2sA';
const OTHER_SECRET = 'whsec_O0oGwN2nV8u1X9a7n3k5J6c1Q2p4R8s0T7e9W5y3Z1b';
const SENT_AT = new Date('2026-03-01T12:00:00Z');
const SENT_AT_SECONDS = SENT_AT.getTime() / 1000;
const BODY = '{"id":"evt_1","type":"job.completed","data":{"job":{"id":"job_1","status":"completed"}}}';

/** A delivery as the service sends it, and the receiver's clock `secondsLater` after. */
function delivery({ body = BODY, secret = SECRET, eventId = 'evt_1', secondsLater = 0 } = {}) {
  return {
    headers: deliveryHeaders({ eventId, eventType: 'job.completed', secret, rawBody: body, now: SENT_AT }),
    rawBody: body,
    now: (SENT_AT_SECONDS + secondsLater) * 1000,
  };
}

describe('webhook signatures', () => {
  it('carry the event id, type, timestamp in Unix seconds and a v1 signature, in both sets of headers', () => {
    expect(delivery().headers).toEqual({
      [SIGNATURE_HEADERS.id]: 'evt_1',
      [SIGNATURE_HEADERS.event]: 'job.completed',
      [SIGNATURE_HEADERS.timestamp]: String(SENT_AT_SECONDS),
      [SIGNATURE_HEADERS.signature]: expect.stringMatching(/^v1=[0-9a-f]{64}$/),
      'webhook-id': 'evt_1',
      'webhook-timestamp': String(SENT_AT_SECONDS),
      'webhook-signature': expect.stringMatching(/^v1,[A-Za-z0-9+/]{43}=$/),
    });
  });

  it('are the hex HMAC-SHA256 of "<timestamp>.<body>" keyed with the whole secret string', () => {
    const expected = createHmac('sha256', Buffer.from('whsec_test', 'utf8'))
      .update('1700000000.{"a":1}', 'utf8')
      .digest('hex');

    expect(signatureOf('whsec_test', 1700000000, '{"a":1}')).toBe(`v1=${expected}`);
    expect(
      verifyWebhook({
        headers: {
          'Service-Webhook-Id': 'evt_vector',
          'Service-Webhook-Event': 'webhook.test',
          'Service-Webhook-Timestamp': '1700000000',
          'Service-Webhook-Signature': `v1=${expected}`,
        },
        rawBody: '{"a":1}',
        secrets: 'whsec_test',
        now: 1700000000 * 1000,
      }),
    ).toEqual({ ok: true, eventId: 'evt_vector', eventType: 'webhook.test', timestamp: 1700000000 });
  });

  it('verify for the receiver, returning the event id, type and timestamp', () => {
    expect(verifyWebhook({ ...delivery(), secrets: SECRET })).toEqual({
      ok: true,
      eventId: 'evt_1',
      eventType: 'job.completed',
      timestamp: SENT_AT_SECONDS,
    });
  });

  it('verify a body given as bytes', () => {
    const sent = delivery({ body: '{"title":"Café ☕"}' });
    expect(verifyWebhook({ ...sent, rawBody: Buffer.from(sent.rawBody, 'utf8'), secrets: SECRET }).ok).toBe(true);
  });

  it('do not verify a body with one byte changed', () => {
    const sent = delivery();
    const tampered = Buffer.from(sent.rawBody, 'utf8');
    tampered[10] = tampered[10]! ^ 1;
    expect(verifyWebhook({ ...sent, rawBody: tampered, secrets: SECRET })).toEqual({
      ok: false,
      reason: 'no_matching_signature',
    });
  });

  it('do not verify with another secret', () => {
    expect(verifyWebhook({ ...delivery(), secrets: OTHER_SECRET })).toEqual({
      ok: false,
      reason: 'no_matching_signature',
    });
  });

  it('are accepted up to five minutes old and refused after', () => {
    expect(verifyWebhook({ ...delivery({ secondsLater: 299 }), secrets: SECRET }).ok).toBe(true);
    expect(verifyWebhook({ ...delivery({ secondsLater: 300 }), secrets: SECRET }).ok).toBe(true);
    expect(verifyWebhook({ ...delivery({ secondsLater: 301 }), secrets: SECRET })).toEqual({
      ok: false,
      reason: 'timestamp_out_of_tolerance',
    });
  });

  it('are refused when dated more than five minutes ahead of the receiver', () => {
    expect(verifyWebhook({ ...delivery({ secondsLater: -299 }), secrets: SECRET }).ok).toBe(true);
    expect(verifyWebhook({ ...delivery({ secondsLater: -301 }), secrets: SECRET })).toEqual({
      ok: false,
      reason: 'timestamp_out_of_tolerance',
    });
  });

  it('are refused when the timestamp is not Unix seconds', () => {
    for (const timestamp of ['', 'soon', '1.7e9', '-1', '1700000000.5', `${SENT_AT.getTime()}0`]) {
      const sent = delivery();
      const headers = { ...sent.headers, [SIGNATURE_HEADERS.timestamp]: timestamp };
      const reason = timestamp === '' ? 'missing_headers' : 'invalid_timestamp';
      expect(verifyWebhook({ ...sent, headers, secrets: SECRET })).toEqual({ ok: false, reason });
    }
  });

  it('verify during a secret rotation when either secret matches', () => {
    expect(verifyWebhook({ ...delivery({ secret: SECRET }), secrets: [OTHER_SECRET, SECRET] }).ok).toBe(true);
    expect(verifyWebhook({ ...delivery({ secret: OTHER_SECRET }), secrets: [OTHER_SECRET, SECRET] }).ok).toBe(true);
  });

  it("carry the current and the previous secret's signatures, in that order, while a secret is rotated", () => {
    const headers = deliveryHeaders({
      eventId: 'evt_1',
      eventType: 'job.completed',
      secret: SECRET,
      previousSecret: OTHER_SECRET,
      rawBody: BODY,
      now: SENT_AT,
    });
    expect(headers[SIGNATURE_HEADERS.signature]).toBe(
      `${signatureOf(SECRET, SENT_AT_SECONDS, BODY)} ${signatureOf(OTHER_SECRET, SENT_AT_SECONDS, BODY)}`,
    );
    const sent = { headers, rawBody: BODY, now: SENT_AT.getTime() };
    expect(verifyWebhook({ ...sent, secrets: SECRET }).ok).toBe(true);
    expect(verifyWebhook({ ...sent, secrets: OTHER_SECRET }).ok).toBe(true);
    expect(verifyWebhook({ ...sent, secrets: newSigningSecret() }).ok).toBe(false);
  });

  it('verify when any of several space-separated signatures matches, ignoring other versions', () => {
    const sent = delivery();
    const ours = sent.headers[SIGNATURE_HEADERS.signature]!;
    const theirs = signatureOf(OTHER_SECRET, SENT_AT_SECONDS, BODY);
    for (const header of [`${theirs} ${ours}`, `${ours} ${theirs}`, `v2=abc v1=zz ${ours}`]) {
      const headers = { ...sent.headers, [SIGNATURE_HEADERS.signature]: header };
      expect(verifyWebhook({ ...sent, headers, secrets: SECRET }).ok).toBe(true);
    }
    const onlyOthers = { ...sent.headers, [SIGNATURE_HEADERS.signature]: `${theirs} v2=${ours.slice(3)}` };
    expect(verifyWebhook({ ...sent, headers: onlyOthers, secrets: SECRET }).ok).toBe(false);
  });

  it('are refused when any of the four headers is missing', () => {
    for (const name of Object.values(SIGNATURE_HEADERS)) {
      const sent = delivery();
      const headers = Object.fromEntries(Object.entries(sent.headers).filter(([key]) => key !== name));
      expect(verifyWebhook({ ...sent, headers, secrets: SECRET })).toEqual({ ok: false, reason: 'missing_headers' });
    }
  });

  it('are read from header names in any case, and from a Headers object', () => {
    const sent = delivery();
    const renamed = (rename: (name: string) => string) =>
      Object.fromEntries(Object.entries(sent.headers).map(([name, value]) => [rename(name), value]));
    const alternating = (name: string) =>
      [...name].map((letter, index) => (index % 2 ? letter.toUpperCase() : letter.toLowerCase())).join('');

    for (const headers of [
      renamed((name) => name.toLowerCase()),
      renamed((name) => name.toUpperCase()),
      renamed(alternating),
      new Headers(sent.headers),
    ]) {
      expect(verifyWebhook({ ...sent, headers, secrets: SECRET }).ok).toBe(true);
    }
  });

  it('verify any body signed with any secret, and no longer once one character of the body changes', () => {
    const bodies = fc.string({ unit: 'binary', maxLength: 200 });
    const secrets = fc.oneof(
      fc.string({ unit: 'binary', minLength: 1, maxLength: 60 }),
      fc.constant(null).map(() => newSigningSecret()),
    );
    const character = fc.string({ unit: 'binary', minLength: 1, maxLength: 1 });

    fc.assert(
      fc.property(bodies, secrets, fc.nat(), character, (body, secret, position, replacement) => {
        const sent = delivery({ body, secret });
        expect(verifyWebhook({ ...sent, secrets: secret }).ok).toBe(true);

        const characters = [...body];
        fc.pre(characters.length > 0);
        const index = position % characters.length;
        fc.pre(characters[index] !== replacement);
        characters[index] = replacement;
        expect(verifyWebhook({ ...sent, rawBody: characters.join(''), secrets: secret })).toEqual({
          ok: false,
          reason: 'no_matching_signature',
        });
      }),
    );
  });

  it("are made by the client's signer (what video-api-listen forwards) exactly as the service makes them", () => {
    const secrets = fc.constant(null).map(() => newSigningSecret());
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', maxLength: 200 }),
        secrets,
        fc.option(secrets, { nil: undefined }),
        fc.date({ min: new Date('2020-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true }),
        (body, secret, previousSecret, now) => {
          const event = { eventId: 'evt_1', eventType: 'job.completed', rawBody: body, now };
          expect(
            signWebhook({ ...event, secrets: previousSecret === undefined ? secret : [secret, previousSecret] }),
          ).toEqual(deliveryHeaders({ ...event, secret, previousSecret }));
        },
      ),
    );
  });

  it("use fresh secrets of 32 random bytes, standard base64 after whsec_, the service's and the client's alike", () => {
    for (const newSecret of [newSigningSecret, newClientSigningSecret]) {
      const secret = newSecret();
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
      expect(newSecret()).not.toBe(secret);
    }
  });

  it('need a secret to verify against', () => {
    expect(() => verifyWebhook({ ...delivery(), secrets: [] })).toThrow(TypeError);
  });
});

/** A secret as issued before secrets were standard base64: `whsec_` and 32 bytes in base64url. */
const BASE64URL_SECRET = 'whsec_8-_0b0JHcZ7oRk2Ha2tFVuKrZV5Gx-yL3UPLe_4q1Wo';

/** The documented conversion of such a secret to the Standard Webhooks encoding (docs/webhooks.md). */
const standardSecret = (secret: string) => 'whsec_' + Buffer.from(secret.slice(6), 'base64url').toString('base64');

/** What the npm `standardwebhooks` library makes of a delivery: the payload, or why it refused it. */
function standardVerified(headers: Record<string, string>, rawBody: string, secret: string): unknown {
  try {
    return new Webhook(secret).verify(rawBody, headers);
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error.message;
    throw error;
  }
}

describe('Standard Webhooks signatures', () => {
  /** A delivery signed now: the library checks the timestamp against its own clock. */
  const sentNow = (secret: string, previousSecret?: string, rawBody = BODY) =>
    deliveryHeaders({ eventId: 'evt_1', eventType: 'job.completed', secret, previousSecret, rawBody });

  it("match the specification's published test vector", () => {
    // The vector of the Standard Webhooks reference libraries' "sign function" tests
    // (github.com/standard-webhooks/standard-webhooks: libraries/javascript/src/webhook.test.ts and
    // libraries/python/tests/test_webhooks.py).
    const vector = {
      secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      timestamp: 1614265330,
      payload: '{"test": 2432232314}',
      signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    };
    const now = new Date(vector.timestamp * 1000);
    const signed = { eventId: vector.id, eventType: 'webhook.test', rawBody: vector.payload, now };

    expect(standardSignatureOf(vector.secret, vector.id, vector.timestamp, vector.payload)).toBe(vector.signature);
    expect(deliveryHeaders({ ...signed, secret: vector.secret })[STANDARD_HEADERS.signature]).toBe(vector.signature);
    expect(signWebhook({ ...signed, secrets: vector.secret })[STANDARD_WEBHOOK_HEADERS.signature]).toBe(
      vector.signature,
    );
  });

  it('verify with the npm standardwebhooks library, and not once the body, the id or the secret differs', () => {
    const secret = newSigningSecret();
    const headers = sentNow(secret);

    expect(standardVerified(headers, BODY, secret)).toEqual(JSON.parse(BODY));
    expect(standardVerified(headers, BODY.replace('job_1', 'job_2'), secret)).toBe('No matching signature found');
    expect(standardVerified({ ...headers, 'webhook-id': 'evt_2' }, BODY, secret)).toBe('No matching signature found');
    expect(standardVerified(headers, BODY, newSigningSecret())).toBe('No matching signature found');
  });

  it("verify with the library under either secret while one is rotated, the current secret's first", () => {
    const [secret, previous] = [newSigningSecret(), newSigningSecret()];
    const headers = sentNow(secret, previous);
    const timestamp = Number(headers[STANDARD_HEADERS.timestamp]);

    expect(headers[STANDARD_HEADERS.signature]).toBe(
      `${standardSignatureOf(secret, 'evt_1', timestamp, BODY)} ${standardSignatureOf(previous, 'evt_1', timestamp, BODY)}`,
    );
    expect(standardVerified(headers, BODY, secret)).toEqual(JSON.parse(BODY));
    expect(standardVerified(headers, BODY, previous)).toEqual(JSON.parse(BODY));
  });

  it('verify any body with the library, signed by the service and by the client alike', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), (body) => {
        const secret = newSigningSecret();
        const headers = sentNow(secret, undefined, body);
        const client = signWebhook({ eventId: 'evt_1', eventType: 'job.completed', rawBody: body, secrets: secret });
        for (const signed of [headers, client]) {
          const standardOnly = Object.fromEntries(
            Object.values(STANDARD_HEADERS).map((name) => [name, signed[name]!] as const),
          );
          expect(() => new Webhook(secret).verify(body, standardOnly, { jsonParse: false })).not.toThrow();
        }
      }),
    );
  });

  it('key a secret issued in base64url with the bytes it encodes, so its converted form verifies', () => {
    const headers = sentNow(BASE64URL_SECRET);

    expect(standardSecret(BASE64URL_SECRET)).toBe('whsec_8+/0b0JHcZ7oRk2Ha2tFVuKrZV5Gx+yL3UPLe/4q1Wo=');
    expect(standardVerified(headers, BODY, standardSecret(BASE64URL_SECRET))).toEqual(JSON.parse(BODY));
    expect(() => new Webhook(BASE64URL_SECRET)).toThrow('incorrect characters');
    expect(verifyWebhook({ headers, rawBody: BODY, secrets: BASE64URL_SECRET }).ok).toBe(true);
    expect(verifyWebhook({ headers, rawBody: BODY, secrets: standardSecret(BASE64URL_SECRET) }).ok).toBe(false);
  });
});

describe('the example webhook receiver', () => {
  let server: Server;
  let url: string;
  const onEvent = jest.fn<void, [WebhookEvent]>();

  beforeEach(async () => {
    onEvent.mockReset();
    server = createReceiver({ secret: SECRET, onEvent });
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });

  afterEach(async () => {
    await new Promise((closed) => server.close(closed));
  });

  /** Posts a delivery signed now, as the service would. */
  function post({ body = BODY, eventId = 'evt_1', secret = SECRET } = {}) {
    const headers = deliveryHeaders({ eventId, eventType: 'job.completed', secret, rawBody: body });
    return fetch(url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body });
  }

  it('acknowledges a genuine delivery with 204 and hands the event on once', async () => {
    const response = await post();

    expect(response.status).toBe(204);
    expect(onEvent).toHaveBeenCalledTimes(1);
    expect(onEvent).toHaveBeenCalledWith({
      eventId: 'evt_1',
      eventType: 'job.completed',
      timestamp: expect.any(Number),
      payload: JSON.parse(BODY),
    });
  });

  it('acknowledges a retry of the same event without handing it on again', async () => {
    await post();
    const retry = await post();

    expect(retry.status).toBe(204);
    expect(onEvent).toHaveBeenCalledTimes(1);
  });

  it('refuses a delivery signed with another secret with 400 and the reason', async () => {
    const response = await post({ secret: OTHER_SECRET });

    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: 'no_matching_signature' });
    expect(onEvent).not.toHaveBeenCalled();
  });

  it('refuses a body over 1 MiB with 413', async () => {
    const body = JSON.stringify({ padding: 'x'.repeat(1024 * 1024) });
    const response = await post({ body });

    expect(response.status).toBe(413);
    expect(onEvent).not.toHaveBeenCalled();
  });

  it('answers 503 with Retry-After until it has a secret, for the service to retry, then verifies with it', async () => {
    await new Promise((closed) => server.close(closed));
    let secrets: string[] = [];
    server = createReceiver({ secret: () => secrets, onEvent });
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;

    const early = await post();
    expect([early.status, early.headers.get('retry-after'), await early.json()]).toEqual([
      503,
      '10',
      { error: 'secret_not_set' },
    ]);
    expect(onEvent).not.toHaveBeenCalled();

    secrets = [OTHER_SECRET, SECRET];
    expect((await post()).status).toBe(204);
    expect(onEvent).toHaveBeenCalledTimes(1);
  });
});
