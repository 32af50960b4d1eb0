#!/usr/bin/env python3
"""A back-channel logout receiver for the tests: a relying party's endpoint that verifies
each logout token as OpenID Connect Back-Channel Logout 1.0 §2.6 has it verified, with
authlib (PyPI) and the server's published keys, independently of Latchkey's signer. Run it
with the python that `scripts/oidc-libraries.sh setup` prints.

    backchannel-receiver.py --issuer ISS [--jwks URL] [--host H] [--port N] [--dir DIR] [--fail-first N]

  --jwks URL       the server's key set (discovery's jwks_uri); without it, the URL is read
                   from DIR/jwks-url at each post (for a server started after the receiver)
  --issuer ISS     the issuer every token must name
  --dir DIR        keep each verified token's claims and header as DIR/NNNNNN.json
                   ({"client", "header", "claims"}); a token that does not verify is kept
                   as DIR/rejected-NNNNNN.json with the reason, and answered 400 with
                   {"error": "invalid_request"} as §2.8 has it
  --fail-first N   answer the first N posts 503 before verifying anything (a client that
                   is down for a moment)

The client a post is for is the last segment of its path: /logout/<client_id>. Prints one
line, "READY <port>", on stdout once listening.
"""
import argparse
import json
import os
import threading
import time
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler

from authlib.jose import JsonWebKey, JsonWebToken

from receiver_server import serve

EVENT = "http://schemas.openid.net/event/backchannel-logout"

parser = argparse.ArgumentParser()
parser.add_argument("--jwks")
parser.add_argument("--issuer", required=True)
parser.add_argument("--host", default="127.0.0.1")
parser.add_argument("--port", type=int, default=0)
parser.add_argument("--dir", default=".")
parser.add_argument("--fail-first", type=int, default=0)
arguments = parser.parse_args()
os.makedirs(arguments.dir, exist_ok=True)
lock = threading.Lock()
failures_left = [arguments.fail_first]
# "none" and symmetric algorithms are never accepted (§2.6 step 3).
tokens = JsonWebToken(["RS256", "PS256", "ES256"])


def keep(prefix, record):
    with lock:
        number = len([name for name in os.listdir(arguments.dir) if name.endswith(".json")])
        path = os.path.join(arguments.dir, f"{prefix}{number:06d}.json")
        with open(path + ".tmp", "w") as handle:
            json.dump(record, handle)
        os.rename(path + ".tmp", path)


def verify(token, client):
    """The checks of §2.6, in its order; raises ValueError naming the first that fails."""
    jwks = arguments.jwks
    if not jwks:
        with open(os.path.join(arguments.dir, "jwks-url")) as handle:
            jwks = handle.read().strip()
    with urllib.request.urlopen(jwks, timeout=10) as answer:
        keys = JsonWebKey.import_key_set(json.load(answer))
    claims = tokens.decode(token, keys)  # the signature, by a published key named by kid
    header = dict(claims.header)
    if header.get("typ") != "logout+jwt":
        raise ValueError(f"typ is {header.get('typ')!r}, not logout+jwt")
    if claims.get("iss") != arguments.issuer:
        raise ValueError(f"iss is {claims.get('iss')!r}")
    audience = claims.get("aud")
    if audience != client and not (isinstance(audience, list) and client in audience):
        raise ValueError(f"aud is {audience!r}, not {client!r}")
    now = time.time()
    for name in ("iat", "exp"):
        if not isinstance(claims.get(name), int):
            raise ValueError(f"{name} is missing or not a number")
    if claims["exp"] < now - 5 or claims["iat"] > now + 5:
        raise ValueError(f"not current: iat {claims['iat']}, exp {claims['exp']}, now {int(now)}")
    if not isinstance(claims.get("jti"), str) or not claims["jti"]:
        raise ValueError("jti is missing")
    events = claims.get("events")
    if not isinstance(events, dict) or events.get(EVENT) != {}:
        raise ValueError(f"events is {events!r}")
    if not claims.get("sub") and not claims.get("sid"):
        raise ValueError("neither sub nor sid")
    if "nonce" in claims:
        raise ValueError("a logout token must not have a nonce")
    return header, dict(claims)


class Handler(BaseHTTPRequestHandler):
    def answer(self, status, body=b""):
        self.send_response(status)
        self.send_header("Cache-Control", "no-store")
        if body:
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        with lock:
            failing = failures_left[0] > 0
            failures_left[0] -= 1 if failing else 0
        if failing:
            return self.answer(503)
        client = urllib.parse.urlsplit(self.path).path.rstrip("/").split("/")[-1]
        try:
            if self.headers.get("Content-Type", "").split(";")[0].strip() != "application/x-www-form-urlencoded":
                raise ValueError(f"Content-Type is {self.headers.get('Content-Type')!r}")
            form = urllib.parse.parse_qs(body.decode("ascii"), strict_parsing=True)
            if len(form.get("logout_token", [])) != 1:
                raise ValueError("no single logout_token")
            header, claims = verify(form["logout_token"][0], client)
        except Exception as error:  # every failure is the client's 400, with its reason kept
            keep("rejected-", {"client": client, "reason": f"{type(error).__name__}: {error}"})
            return self.answer(400, json.dumps({"error": "invalid_request", "error_description": str(error)[:200]}).encode())
        keep("", {"client": client, "header": header, "claims": claims})
        self.answer(200)

    def log_message(self, format, *args):
        pass


serve(Handler, arguments.host, arguments.port)
