#!/usr/bin/env python3
"""A Shared Signals Framework receiver for the tests: takes Security Event Tokens by push
(RFC 8935) or fetches them by poll (RFC 8936) and verifies each as SSF 1.0 §4 has it, with
authlib (PyPI) and the transmitter's published keys, independently of Latchkey's signer. Run
it with the python that `scripts/ssf-receiver.sh setup` prints.

    ssf-receiver.py push --jwks-uri URL --issuer ISS --audience AUD [--dir DIR]
                         [--authorization VALUE] [--status CODE] [--fail-first N]
                         [--host H] [--port N]
    ssf-receiver.py poll --endpoint URL --token BEARER --jwks-uri URL --issuer ISS --audience AUD
                         [--ack JTI...] [--set-err JTI ERR DESCRIPTION] [--max-events N]
                         [--return-immediately] [--timeout SECONDS]

Every SET must: be a compact JWS (no "none", no HMAC) whose signature verifies with a key of
the jwks_uri's set (named by "kid"; an unknown kid refetches the set once); have header
"typ" "secevent+jwt"; have "iss" ISS, "aud" AUD or an array holding it, a string "jti", a
numeric "iat", an object "sub_id" with a "format", and no "sub" or "exp"; hold exactly one
event in "events", an object; have a string "txn", except in the SSF verification and
stream-updated events (SSF §4.1.9 makes txn a SHOULD, and §8.1.4.1 and §8.1.5 show those two
without it). The payloads of the SSF, CAEP and RISC events in EVENT_CHECKS are checked
against their definitions, and verification and stream-updated events must name their stream
with an "opaque" sub_id. "iat" is not compared with this machine's clock, since the server
may run on a test clock.

push: an HTTP server on HOST:PORT (default 127.0.0.1, a free port) that prints one line,
"READY <port>", on stdout once listening, and takes SETs POSTed to any path.
  --jwks-uri, --issuer, --audience   what every SET is verified against; each may instead be
                 put in the file DIR/jwks-uri, DIR/issuer or DIR/audience (read at each post,
                 for values known only once the receiver runs, such as a stream's aud)
  --dir DIR      a SET that verifies is answered 202 with an empty body (§2.2) and appended to
                 DIR/sets.jsonl as {"jti", "header", "claims", "status"}; one that does not is
                 answered 400 with {"err", "description"} (§2.3, codes of §2.4) and appended
                 to DIR/rejected.jsonl as {"jti", "err", "description"} (jti unverified, null
                 when unreadable). Codes: invalid_request (Content-Type or Accept not as
                 §2.1 has them, not a SET, a claim or payload amiss), authentication_failed
                 (Authorization header not VALUE), invalid_key (algorithm, key or signature),
                 invalid_issuer, invalid_audience. A failure of this script itself is
                 answered 500 and recorded with err "receiver_error"
  --authorization VALUE   every post must carry exactly this Authorization header (the
                 stream's delivery.authorization_header)
  --status CODE  answer SETs that verify with CODE instead of 202 (e.g. 500), for retry
                 tests; they are still appended to sets.jsonl, with that status
  --fail-first N answer the first N posts 503 before reading them (a receiver that is down
                 for a moment); they are recorded nowhere

poll: one poll request (POST to the stream's delivery.endpoint_url with "Authorization:
Bearer BEARER"), every returned SET verified as above and checked to be filed under its own
jti; prints one JSON object on stdout:
    {"status": <HTTP status>, "sets": [{"jti", "header", "claims"}], "moreAvailable": bool,
     "rejected": [{"jti", "err", "reason"}]}
with "error" added (and exit status 1) when the answer is not a well-formed RFC 8936 response
(2.3) or the request failed; a non-200 status is reported with empty "sets".
  --ack JTI...   acknowledge these SETs ("ack")
  --set-err JTI ERR DESCRIPTION   report this SET as invalid ("setErrs"; repeatable)
  --max-events N "maxEvents" (0 for an acknowledge-only request)
  --return-immediately   "returnImmediately": true; without it the request is a long poll
  --timeout S    give up on the request after S seconds (default 30)

authlib.jose warns on import that it is deprecated in favour of joserfc; it still works.
"""
import argparse
import base64
import json
import os
import sys
import threading
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler

from authlib.jose import JsonWebKey, JsonWebSignature

from receiver_server import serve

SSF = "https://schemas.openid.net/secevent/ssf/event-type/"
CAEP = "https://schemas.openid.net/secevent/caep/event-type/"
RISC = "https://schemas.openid.net/secevent/risc/event-type/"
VERIFICATION = SSF + "verification"
STREAM_UPDATED = SSF + "stream-updated"
# Signed with a public key only: "none" and HMAC never verify a SET here.
ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"]
KEY_TYPES = {"RS": "RSA", "PS": "RSA", "ES": "EC", "Ed": "OKP"}
# CAEP 1.0 §3.3.1 (RISC 1.0 §2.7 uses the same list).
CREDENTIAL_TYPES = {
    "password", "pin", "x509", "fido2-platform", "fido2-roaming", "fido-u2f",
    "verifiable-credential", "phone-voice", "phone-sms", "app",
}


class Rejected(Exception):
    """A SET that does not verify: `err` is an RFC 8935 §2.4 error code."""

    def __init__(self, err, description):
        super().__init__(description)
        self.err = err
        self.description = description


def need(condition, description, err="invalid_request"):
    if not condition:
        raise Rejected(err, description)


def string(value):
    return isinstance(value, str) and value != ""


def number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def one_of(*values):
    return lambda value: value in values


def localized(value):
    """CAEP 1.0 §2 reason_admin / reason_user: language tag → message, at least one."""
    return isinstance(value, dict) and value != {} and all(string(k) and isinstance(v, str) for k, v in value.items())


# CAEP 1.0 §2: members any CAEP event may carry; RISC 1.0 §2.7 gives credential-compromise
# the same event_timestamp and reasons.
CAEP_COMMON = {
    "event_timestamp": number,
    "initiating_entity": one_of("admin", "user", "policy", "system"),
    "reason_admin": localized,
    "reason_user": localized,
}
# Event type → ({required member: check}, {optional member: check}). Members not named are
# not checked (SSF §4.2.3: receivers ignore what they do not understand).
EVENT_CHECKS = {
    VERIFICATION: ({}, {"state": lambda v: isinstance(v, str)}),  # SSF §8.1.4.1
    STREAM_UPDATED: (  # SSF §8.1.5
        {"status": one_of("enabled", "paused", "disabled")},
        {"reason": lambda v: isinstance(v, str)},
    ),
    CAEP + "session-revoked": ({}, CAEP_COMMON),  # CAEP §3.1
    CAEP + "credential-change": (  # CAEP §3.3
        {"credential_type": one_of(*CREDENTIAL_TYPES), "change_type": one_of("create", "revoke", "update", "delete")},
        {**CAEP_COMMON, "friendly_name": string, "x509_issuer": string, "x509_serial": string, "fido2_aaguid": string},
    ),
    CAEP + "assurance-level-change": (  # CAEP §3.4
        {"namespace": string, "current_level": string},
        {**CAEP_COMMON, "previous_level": string, "change_direction": one_of("increase", "decrease")},
    ),
    CAEP + "token-claims-change": ({"claims": lambda v: isinstance(v, dict) and v != {}}, CAEP_COMMON),  # CAEP §3.2
    CAEP + "session-established": ({}, {**CAEP_COMMON, "amr": lambda v: isinstance(v, list) and all(string(x) for x in v)}),  # §3.6
    CAEP + "session-presented": ({}, CAEP_COMMON),  # CAEP §3.7
    RISC + "account-disabled": ({}, {"reason": one_of("hijacking", "bulk-account")}),  # RISC §2.3
    RISC + "account-enabled": ({}, {}),  # RISC §2.4
    RISC + "account-purged": ({}, {}),  # RISC §2.2
    RISC + "account-credential-change-required": ({}, {}),  # RISC §2.1
    RISC + "identifier-changed": ({}, {"new-value": string}),  # RISC §2.5
    RISC + "identifier-recycled": ({}, {}),  # RISC §2.6
    RISC + "credential-compromise": ({"credential_type": one_of(*CREDENTIAL_TYPES)}, CAEP_COMMON),  # RISC §2.7
}
# RISC §2.5, §2.6: the subject of these is the old email address or phone number.
IDENTIFIER_EVENTS = {RISC + "identifier-changed", RISC + "identifier-recycled"}


class Keys:
    """The transmitter's key set, fetched from its jwks_uri once and again for a kid it lacks."""

    def __init__(self):
        self.lock = threading.Lock()
        self.sets = {}

    def fetch(self, uri):
        try:
            with urllib.request.urlopen(uri, timeout=10) as answer:
                keys = JsonWebKey.import_key_set(json.load(answer))
        except Exception as error:
            raise Rejected("invalid_key", f"cannot read the key set at {uri}: {type(error).__name__}: {error}") from error
        with self.lock:
            self.sets[uri] = keys
        return keys

    def candidates(self, uri, header):
        """The keys that may have signed a SET with `header`, refetching once for an unknown kid."""
        with self.lock:
            keys = self.sets.get(uri)
        kid = header.get("kid")
        for attempt in range(2):
            if keys is None or attempt == 1:
                keys = self.fetch(uri)
            if kid is None:
                found = list(keys.keys)
            else:
                found = [key for key in keys.keys if key.kid == kid]
            if found:
                return found
        raise Rejected("invalid_key", f"no key with kid {kid!r} in {uri}" if kid is not None else f"no keys in {uri}")


KEYS = Keys()
SIGNATURES = JsonWebSignature(algorithms=ALGORITHMS)


def b64json(segment, what):
    try:
        value = json.loads(base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4)))
    except Exception as error:
        raise Rejected("invalid_request", f"the {what} is not base64url JSON: {error}") from error
    need(isinstance(value, dict), f"the {what} is not a JSON object")
    return value


def unverified_jti(token):
    """The jti a token claims, for the record of one that does not verify."""
    try:
        return b64json(token.split(".")[1], "payload").get("jti")
    except Exception:
        return None


def verify(token, jwks_uri, issuer, audience):
    """Checks `token` as the module docstring lists; returns (header, claims) or raises Rejected."""
    need(isinstance(token, str) and token.count(".") == 2, "not a JWS in compact serialization (an encrypted or malformed SET)")
    header = b64json(token.split(".")[0], "JOSE header")
    algorithm = header.get("alg")
    need(algorithm in ALGORITHMS, f"alg {algorithm!r} is not an accepted signature algorithm", "invalid_key")
    failures = []
    for key in KEYS.candidates(jwks_uri, header):
        published = key.as_dict()
        if published.get("kty") != KEY_TYPES[algorithm[:2]]:
            failures.append(f"{key.kid}: a {published.get('kty')} key")
            continue
        if published.get("alg", algorithm) != algorithm or published.get("use", "sig") != "sig":
            failures.append(f"{key.kid}: published for alg {published.get('alg')!r}, use {published.get('use')!r}")
            continue
        try:
            verified = SIGNATURES.deserialize_compact(token, key)
            break
        except Exception as error:
            failures.append(f"{key.kid}: {type(error).__name__}")
    else:
        raise Rejected("invalid_key", f"the signature does not verify with the published keys ({'; '.join(failures)})")
    header = dict(verified["header"])
    try:
        claims = json.loads(verified["payload"])
    except Exception as error:
        raise Rejected("invalid_request", f"the payload is not JSON: {error}") from error
    need(isinstance(claims, dict), "the claims are not a JSON object")

    need(header.get("typ") == "secevent+jwt", f"typ is {header.get('typ')!r}, not secevent+jwt")  # SSF §4.1.1
    need(claims.get("iss") == issuer, f"iss is {claims.get('iss')!r}, not {issuer!r}", "invalid_issuer")  # SSF §4.1.6
    aud = claims.get("aud")  # SSF §4.1.8
    need(aud == audience or (isinstance(aud, list) and audience in aud), f"aud is {aud!r}, not {audience!r}", "invalid_audience")
    need(string(claims.get("jti")), "jti is missing or not a string")  # RFC 8417 §2.2
    need(number(claims.get("iat")), "iat is missing or not a number")
    need("sub" not in claims, "an SSF SET must not have sub (SSF §4.1.2)")
    need("exp" not in claims, "an SSF SET must not have exp (SSF §4.1.7)")
    subject = claims.get("sub_id")  # SSF §3.1
    need(isinstance(subject, dict) and string(subject.get("format")), f"sub_id is {subject!r}, not a subject identifier")

    events = claims.get("events")  # SSF §4.2.1
    need(isinstance(events, dict) and len(events) == 1, f"events has not exactly one event: {events!r}")
    (event_type, payload), = events.items()
    need(isinstance(payload, dict), f"the {event_type} event is not a JSON object")
    if event_type not in (VERIFICATION, STREAM_UPDATED):
        need(string(claims.get("txn")), "txn is missing or not a string")
    else:
        need(claims.get("txn") is None or string(claims.get("txn")), "txn is not a string")
        need(subject.get("format") == "opaque" and string(subject.get("id")),
             f"sub_id of a {event_type} event is {subject!r}, not the stream's opaque id")
    if event_type in IDENTIFIER_EVENTS:
        need(subject.get("format") in ("email", "phone_number"),
             f"sub_id of a {event_type} event is {subject!r}, not an email or phone_number")
    required, optional = EVENT_CHECKS.get(event_type, ({}, {}))
    for name, check in required.items():
        need(name in payload and check(payload[name]), f"{event_type}: {name} is {payload.get(name)!r}")
    for name, check in optional.items():
        need(name not in payload or check(payload[name]), f"{event_type}: {name} is {payload.get(name)!r}")
    return header, claims


def setting(arguments, name):
    """A --name value, or else the one in DIR/name (read now)."""
    value = getattr(arguments, name.replace("-", "_"))
    if value is None:
        try:
            with open(os.path.join(arguments.dir, name)) as handle:
                value = handle.read().strip() or None
        except FileNotFoundError:
            pass
    return value


def media_types(value):
    return [part.split(";")[0].strip().lower() for part in (value or "").split(",")]


def push(arguments):
    os.makedirs(arguments.dir, exist_ok=True)
    lock = threading.Lock()
    failures_left = [arguments.fail_first]

    def append(name, record):
        with lock, open(os.path.join(arguments.dir, name), "a") as handle:
            handle.write(json.dumps(record) + "\n")

    class Handler(BaseHTTPRequestHandler):
        def answer(self, status, body=None):
            data = json.dumps(body).encode() if body is not None else b""
            self.send_response(status)
            if body is not None:
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Language", "en")  # RFC 8935 §2.3
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self):
            with lock:
                failing = failures_left[0] > 0
                failures_left[0] -= 1 if failing else 0
            if failing:
                return self.answer(503)
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            token = body.decode("ascii", "replace").strip()
            try:
                given = self.headers.get("Authorization")
                need(arguments.authorization is None or given == arguments.authorization,
                     "no Authorization header" if given is None else "the Authorization header is not the stream's",
                     "authentication_failed")
                need(media_types(self.headers.get("Content-Type")) == ["application/secevent+jwt"],
                     f"Content-Type is {self.headers.get('Content-Type')!r}, not application/secevent+jwt")
                need("application/json" in media_types(self.headers.get("Accept")),
                     f"Accept is {self.headers.get('Accept')!r}, not application/json")
                issuer, audience, jwks_uri = (setting(arguments, name) for name in ("issuer", "audience", "jwks-uri"))
                need(issuer, "the receiver has no --issuer nor DIR/issuer", "invalid_issuer")
                need(audience, "the receiver has no --audience nor DIR/audience", "invalid_audience")
                need(jwks_uri, "the receiver has no --jwks-uri nor DIR/jwks-uri", "invalid_key")
                header, claims = verify(token, jwks_uri, issuer, audience)
            except Rejected as rejection:
                append("rejected.jsonl", {"jti": unverified_jti(token), "err": rejection.err, "description": rejection.description})
                return self.answer(400, {"err": rejection.err, "description": rejection.description})
            except Exception as error:  # a bug here, not the transmitter's fault: a 500 it may retry
                description = f"{type(error).__name__}: {error}"
                append("rejected.jsonl", {"jti": unverified_jti(token), "err": "receiver_error", "description": description})
                return self.answer(500)
            append("sets.jsonl", {"jti": claims["jti"], "header": header, "claims": claims, "status": arguments.status})
            self.answer(arguments.status)

        def do_GET(self):
            self.answer(405)

        do_PUT = do_PATCH = do_DELETE = do_GET

        def log_message(self, format, *args):
            pass

    serve(Handler, arguments.host, arguments.port)


def poll(arguments):
    request = {}
    if arguments.ack:
        request["ack"] = arguments.ack
    if arguments.set_err:
        request["setErrs"] = {jti: {"err": err, "description": description} for jti, err, description in arguments.set_err}
    if arguments.max_events is not None:
        request["maxEvents"] = arguments.max_events
    if arguments.return_immediately:
        request["returnImmediately"] = True
    headers = {"Authorization": f"Bearer {arguments.token}", "Content-Type": "application/json", "Accept": "application/json"}
    if arguments.set_err:
        headers["Content-Language"] = "en"  # RFC 8936 §2.6
    result = {"status": None, "sets": [], "moreAvailable": False, "rejected": []}
    try:
        with urllib.request.urlopen(urllib.request.Request(arguments.endpoint, json.dumps(request).encode(), headers, method="POST"),
                                    timeout=arguments.timeout) as answer:
            status, content_type, body = answer.status, answer.headers.get("Content-Type"), answer.read()
    except urllib.error.HTTPError as error:
        status, content_type, body = error.code, error.headers.get("Content-Type"), error.read()
    except Exception as error:
        result["error"] = f"the request failed: {type(error).__name__}: {error}"
        return result
    result["status"] = status
    if status != 200:
        return result
    try:  # RFC 8936 §2.3
        if media_types(content_type) != ["application/json"]:
            raise ValueError(f"Content-Type is {content_type!r}, not application/json")
        response = json.loads(body)
        if not isinstance(response, dict) or not isinstance(response.get("sets"), dict):
            raise ValueError(f"no \"sets\" object in {body[:200]!r}")
        if not isinstance(response.get("moreAvailable", False), bool):
            raise ValueError(f"moreAvailable is {response['moreAvailable']!r}")
    except ValueError as error:
        result["error"] = f"not an RFC 8936 poll response: {error}"
        return result
    result["moreAvailable"] = response.get("moreAvailable", False)
    for jti, token in response["sets"].items():
        try:
            header, claims = verify(token, arguments.jwks_uri, arguments.issuer, arguments.audience)
            need(claims["jti"] == jti, f"filed under {jti!r} but its jti is {claims['jti']!r}")
        except Rejected as rejection:
            result["rejected"].append({"jti": jti, "err": rejection.err, "reason": rejection.description})
            continue
        result["sets"].append({"jti": jti, "header": header, "claims": claims})
    return result


parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
modes = parser.add_subparsers(dest="mode", required=True)
pushing = modes.add_parser("push", help="take pushed SETs (RFC 8935)")
pushing.add_argument("--jwks-uri")
pushing.add_argument("--issuer")
pushing.add_argument("--audience")
pushing.add_argument("--dir", default=".")
pushing.add_argument("--authorization")
pushing.add_argument("--status", type=int, default=202)
pushing.add_argument("--fail-first", type=int, default=0)
pushing.add_argument("--host", default="127.0.0.1")
pushing.add_argument("--port", type=int, default=0)
polling = modes.add_parser("poll", help="make one poll request (RFC 8936)")
polling.add_argument("--endpoint", required=True)
polling.add_argument("--token", required=True)
polling.add_argument("--jwks-uri", required=True)
polling.add_argument("--issuer", required=True)
polling.add_argument("--audience", required=True)
polling.add_argument("--ack", nargs="+", action="extend", default=[])
polling.add_argument("--set-err", nargs=3, action="append", default=[], metavar=("JTI", "ERR", "DESCRIPTION"))
polling.add_argument("--max-events", type=int)
polling.add_argument("--return-immediately", action="store_true")
polling.add_argument("--timeout", type=float, default=30)
arguments = parser.parse_args()
if arguments.mode == "push":
    push(arguments)
else:
    outcome = poll(arguments)
    print(json.dumps(outcome), flush=True)
    sys.exit(1 if "error" in outcome else 0)
