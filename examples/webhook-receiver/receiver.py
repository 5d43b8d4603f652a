#!/usr/bin/env python3
"""A webhook receiver in Python, verifying deliveries by their Standard Webhooks headers.

    WEBHOOK_SECRET=whsec_... PORT=4000 python3 examples/webhook-receiver/receiver.py
    WEBHOOK_SECRET=whsec_new...,whsec_old... python3 examples/webhook-receiver/receiver.py   (while rotating)

It verifies with the `standardwebhooks` package (`pip install standardwebhooks`) when it is
installed, and otherwise with the same check written with the standard library: Python 3.8 or
later and nothing else. Like server.mjs beside it, it answers at once and only then handles the
event: the service waits for the answer, so slow work belongs after it.
"""

import base64
import binascii
import hashlib
import hmac
import json
import os
import sys
import threading
import time
from collections import OrderedDict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

try:
    from standardwebhooks import Webhook, WebhookVerificationError
except ImportError:
    Webhook = None

SECRET_PREFIX = "whsec_"
TOLERANCE_SECONDS = 5 * 60
MAX_BODY_BYTES = 1024 * 1024
# Retries carry the event id of the first attempt, so the ids already handled are remembered; the
# oldest are forgotten past this many. A real receiver records the id in its own store, with the
# work the event starts.
REMEMBERED_EVENT_IDS = 10_000

CONVERSION = (
    'python3 -c \'import base64,sys; s=sys.argv[1]; print("whsec_" + '
    'base64.b64encode(base64.urlsafe_b64decode(s[6:] + "=" * (-len(s[6:]) % 4))).decode())\' whsec_...'
)


class VerificationFailed(Exception):
    """Why a delivery is not genuine, in the words the standardwebhooks package uses."""


def signing_key(secret):
    """The HMAC key: the bytes the secret encodes in standard base64 after `whsec_`.

    A secret issued in base64url (the service's form before it issued Standard Webhooks secrets)
    is refused rather than decoded into a wrong key: the standardwebhooks package would drop its
    `-` and `_` and then match no signature, without saying why.
    """
    encoded = secret[len(SECRET_PREFIX) :] if secret.startswith(SECRET_PREFIX) else secret
    try:
        key = base64.b64decode(encoded + "=" * (-len(encoded) % 4), validate=True)
    except binascii.Error:
        key = b""
    if not key:
        raise ValueError(
            "A secret in WEBHOOK_SECRET is not standard base64 after whsec_. A secret issued in"
            " base64url converts to its standard form with\n  " + CONVERSION + "\nor rotate it."
        )
    return key


def verify_with_standard_library(keys, body, headers):
    msg_id = headers.get("webhook-id")
    timestamp_header = headers.get("webhook-timestamp")
    signatures = headers.get("webhook-signature")
    if not (msg_id and timestamp_header and signatures):
        raise VerificationFailed("Missing required headers")
    try:
        timestamp = int(timestamp_header)
    except ValueError:
        raise VerificationFailed("Invalid Signature Headers") from None
    now = time.time()
    if timestamp < now - TOLERANCE_SECONDS:
        raise VerificationFailed("Message timestamp too old")
    if timestamp > now + TOLERANCE_SECONDS:
        raise VerificationFailed("Message timestamp too new")
    signed = "{}.{}.".format(msg_id, timestamp).encode() + body
    expected = [hmac.new(key, signed, hashlib.sha256).digest() for key in keys]
    for candidate in signatures.split(" "):
        version, _, encoded = candidate.partition(",")
        if version != "v1":
            continue
        try:
            claimed = base64.b64decode(encoded, validate=True)
        except binascii.Error:
            continue
        if any(hmac.compare_digest(digest, claimed) for digest in expected):
            return
    raise VerificationFailed("No matching signature found")


def verify_with_package(secrets, body, headers):
    failure = None
    for secret in secrets:
        try:
            Webhook(secret).verify(body, headers)
            return
        except WebhookVerificationError as error:
            failure = error
    raise VerificationFailed(str(failure))


def make_verifier(secrets):
    """A function of (raw body, headers) that raises VerificationFailed unless any secret signed it."""
    keys = [signing_key(secret) for secret in secrets]
    if Webhook is not None:
        return lambda body, headers: verify_with_package(secrets, body, headers)
    return lambda body, headers: verify_with_standard_library(keys, body, headers)


def log_event(event_id, payload):
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    print("{} {} {}".format(stamp, payload.get("type"), event_id), flush=True)


def create_receiver(address, secrets, on_event=log_event):
    """An HTTP server on `address` that verifies every delivery, answers, then hands it on once."""
    verify = make_verifier(secrets)
    handled = OrderedDict()
    handled_lock = threading.Lock()

    def first_delivery(event_id):
        with handled_lock:
            if event_id in handled:
                return False
            handled[event_id] = True
            if len(handled) > REMEMBERED_EVENT_IDS:
                handled.popitem(last=False)
            return True

    class Handler(BaseHTTPRequestHandler):
        def answer(self, status, error=None):
            if error is None:
                self.send_response(status)
                self.end_headers()
                return
            body = json.dumps({"error": error}).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self):
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(min(length, MAX_BODY_BYTES + 1))
            if len(body) > MAX_BODY_BYTES:
                # The rest is read and dropped, so the sender gets the answer, not a reset connection.
                remaining = length - len(body)
                while remaining > 0:
                    dropped = len(self.rfile.read(min(65536, remaining)))
                    if dropped == 0:
                        break
                    remaining -= dropped
                self.answer(413, "body_too_large")
                return
            headers = {name.lower(): value for name, value in self.headers.items()}
            try:
                verify(body, headers)
                payload = json.loads(body)
            except VerificationFailed as failure:
                self.answer(400, str(failure))
                return
            except ValueError:
                self.answer(400, "invalid_json")
                return
            self.answer(204)
            event_id = headers["webhook-id"]
            if first_delivery(event_id):
                on_event(event_id, payload)

        def log_message(self, format, *args):
            """Quiet: the events are what this receiver reports."""

    return ThreadingHTTPServer(address, Handler)


def main():
    secrets = [secret.strip() for secret in os.environ.get("WEBHOOK_SECRET", "").split(",") if secret.strip()]
    if not secrets:
        sys.exit("Set WEBHOOK_SECRET to the endpoint's signing secret (several, comma-separated, while rotating).")
    try:
        server = create_receiver(("127.0.0.1", int(os.environ.get("PORT", "4000"))), secrets)
    except ValueError as error:
        sys.exit(str(error))
    verifier = "the standardwebhooks package" if Webhook is not None else "the standard library"
    print("Receiving webhooks on http://127.0.0.1:{}/, verifying with {}".format(server.server_port, verifier))
    sys.stdout.flush()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
