#!/usr/bin/env python3
"""Drives the Kratos face with Ory's own generated SDKs, ory-kratos-client or ory-client (the
Ory Network SDK, whose FrontendApi is the same), as a native app on Kratos would: API flows and
session tokens only, every answer parsed by the SDK into its models. A member those models do
not know (they keep it in `additional_properties`) is a failure, so the answers are Kratos's
shapes exactly. Run it with the python that `scripts/ory-sdks.sh setup` prints.

    ory-sdks.py --base URL [--sdk kratos|ory] [--origin ORIGIN] [--maildir DIR]

  --base     where the server listens (http://127.0.0.1:PORT)
  --sdk      which SDK drives it (default kratos)
  --origin   the relying party origin the passkeys are made for (default http://localhost:8080)
  --maildir  where an SMTP sink keeps the server's mail (scripts/smtp-sink.py --maildir): the
             verification code that completes the change of address is read there; without
             it the change is left pending

The journey: register with a passkey, sign in, whoami, a settings change of address (and its
verification), two more sign-ins, the session list and its pages, ending one session and then
the others, logout, and whoami refused. Passkeys come from a software authenticator in this
script (ES256, `none` attestation), since the face has no password method; the password
method is still submitted, and its refusal is reported as a "KNOWN DIVERGENCE" line.

Prints "ok <check>" per check, "FAIL <check>: <why>" on a failure and "KNOWN DIVERGENCE <what>"
where the server differs from Kratos on purpose; exits 1 if any check failed.
"""
import argparse
import base64
import email
import email.policy
import hashlib
import importlib
import json
import re
import secrets
import sys
import time
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pydantic
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec

parser = argparse.ArgumentParser()
parser.add_argument("--base", required=True)
parser.add_argument("--sdk", choices=["kratos", "ory"], default="kratos")
parser.add_argument("--origin", default="http://localhost:8080")
parser.add_argument("--maildir")
arguments = parser.parse_args()
sdk = importlib.import_module("ory_kratos_client" if arguments.sdk == "kratos" else "ory_client")
api = sdk.FrontendApi(sdk.ApiClient(sdk.Configuration(host=arguments.base.rstrip("/"))))
failures = 0

# Kratos's message ids (text/id.go) that the journey meets.
INVALID_CREDENTIALS = 4000006  # a wrong password
LOGIN_INVALID = 4000043  # an assertion that does not verify
NO_LOGIN_STRATEGY = 4010002
NO_REGISTRATION_STRATEGY = 4010003
NO_SETTINGS_STRATEGY = 4010004
SAVED = 1050001


class Failed(Exception):
    """A step whose answer the rest of the journey cannot go on from."""


def check(condition, what, detail=""):
    global failures
    if condition:
        print(f"ok {what}", flush=True)
    else:
        failures += 1
        print(f"FAIL {what}: {detail}", flush=True)
    return condition


def unknown_members(model, path="$"):
    """Every member the SDK's models kept as unknown, anywhere in a parsed answer."""
    found = []
    if isinstance(model, list):
        for index, item in enumerate(model):
            found += unknown_members(item, f"{path}[{index}]")
    elif isinstance(model, pydantic.BaseModel):
        found += [f"{path}.{name}" for name in getattr(model, "additional_properties", None) or {}]
        for name in type(model).model_fields:
            if name != "additional_properties":
                found += unknown_members(getattr(model, name), f"{path}.{name}")
        # A oneOf wrapper (a node's attributes, continue_with) holds its value in actual_instance.
        if getattr(model, "actual_instance", None) is not None:
            found += unknown_members(model.actual_instance, path)
    elif isinstance(model, dict):
        for key, value in model.items():
            found += unknown_members(value, f"{path}.{key}")
    return found


def strictly(what, model, kind):
    """`model`, which must be the SDK's `kind` with no member unknown to it."""
    if not isinstance(model, kind):
        raise Failed(f"{what} is not parsed as {kind.__name__}: {model!r}"[:400])
    unknown = unknown_members(model)
    check(not unknown, f"{what} parses into {kind.__name__} with no unknown member", ", ".join(unknown[:10]))
    return model


def refused(call):
    """The ApiException `call` must raise."""
    try:
        answer = call()
    except sdk.ApiException as refusal:
        return refusal
    raise Failed(f"it was accepted: {answer!r}"[:400])


def kratos_error(what, refusal):
    """The content of Kratos's error envelope, {"error": {"id", "code", "status", "reason",
    "message"}}, as the SDK's models read it: the ErrorGeneric the SDK parsed itself, or for a
    status its spec does not list, the body parsed into ErrorGeneric. ory-client's ErrorGeneric
    holds another content, Ory Network's GenericErrorContent (`error`, `error_description`,
    `status_code`, and an `id` that may only be feature_not_available or quota_exceeded), which
    is not the shape of Kratos's errors, nor of Ory Network's own whoami 401: with it, the
    envelope's content is parsed into its GenericError, the model of Kratos's."""
    body = json.loads(refusal.body or "null")
    if not isinstance(body, dict) or set(body) != {"error"}:
        raise Failed(f"{what}: not Kratos's error envelope: {refusal.status} {refusal.body!r}"[:400])
    if arguments.sdk == "ory":
        return strictly(f"{what} (its content)", sdk.GenericError.from_dict(body["error"]), sdk.GenericError)
    envelope = refusal.data if refusal.data is not None else sdk.ErrorGeneric.from_dict(body)
    return strictly(what, envelope, sdk.ErrorGeneric).error


def flow_refusal(what, refusal, kind):
    """A refused submission: 400 and the flow itself, which the SDK parses into `kind`."""
    if refusal.status != 400:
        raise Failed(f"{what}: {refusal.status} {refusal.body!r}"[:400])
    return strictly(what, refusal.data, kind)


def message_ids(flow):
    ids = [message.id for message in flow.ui.messages or []]
    return ids + [message.id for node in flow.ui.nodes for message in node.messages or []]


def node_value(flow, name):
    for node in flow.ui.nodes:
        attributes = node.attributes.actual_instance
        if getattr(attributes, "name", None) == name:
            return attributes.value
    raise Failed(f"the flow has no {name} node")


def password_method(what, call, kind, with_password, no_strategy):
    """Submits the password method, which the face does not have. Kratos with it enabled
    accepts the submission, or refuses it with the message `with_password`; without it,
    Kratos gives the flow again with `no_strategy`. That is the answer the face must give,
    and it is said as a known divergence, with the message the SDK parsed."""
    try:
        answer = call()
    except sdk.ApiException as refusal:
        flow = flow_refusal(f"{what}'s refusal", refusal, kind)
        ids = message_ids(flow)
        texts = ", ".join(f"{message.id} {message.text!r}" for message in flow.ui.messages or [])
        if with_password is not None and with_password in ids:
            check(True, f"{what} is refused with {with_password}")
        elif no_strategy in ids:
            print(f"KNOWN DIVERGENCE {what}: the Kratos face has no password method; {refusal.status} with the flow and {texts}, as Kratos "
                  f"without it, where Kratos with it " + (f"refuses with {with_password}" if with_password else "accepts"), flush=True)
        else:
            check(False, f"{what} is refused as Kratos refuses a method it does not have ({no_strategy})", f"{refusal.status} with {texts}")
        return
    strictly(what, answer, type(answer))
    check(with_password is None, f"{what} is accepted", f"Kratos refuses it with {with_password}")


# ---- a passkey in software -------------------------------------------------------------------

def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def cbor(value):
    """The little CBOR an attestation object needs: integers, byte and text strings, maps."""
    def head(major, length):
        if length < 24:
            return bytes([major << 5 | length])
        if length < 0x100:
            return bytes([major << 5 | 24, length])
        return bytes([major << 5 | 25]) + length.to_bytes(2, "big")
    if isinstance(value, int):
        return head(0, value) if value >= 0 else head(1, -1 - value)
    if isinstance(value, bytes):
        return head(2, len(value)) + value
    if isinstance(value, str):
        return head(3, len(value.encode())) + value.encode()
    return head(5, len(value)) + b"".join(cbor(key) + cbor(item) for key, item in value.items())


class Passkey:
    """What the platform does for an app: an ES256 key made at registration (`none`
    attestation), and assertions that return the user handle, since the face's sign-in is
    discoverable. The counter goes up with each use, as the server's sign-count policy wants."""

    def __init__(self):
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.credential_id = secrets.token_bytes(16)
        self.user_handle = b""
        self.counter = 0

    def _client_data(self, kind, challenge):
        return json.dumps({"type": kind, "challenge": challenge, "origin": arguments.origin, "crossOrigin": False}).encode()

    def _authenticator_data(self, rp_id, flags, attested=b""):
        self.counter += 1
        return hashlib.sha256(rp_id.encode()).digest() + bytes([flags]) + self.counter.to_bytes(4, "big") + attested

    def create(self, options):
        """The credential JSON for `passkey_register`, from `credentialOptions.publicKey`."""
        self.user_handle = unb64url(options["user"]["id"])
        point = self.key.public_key().public_numbers()
        public_key = cbor({1: 2, 3: -7, -1: 1, -2: point.x.to_bytes(32, "big"), -3: point.y.to_bytes(32, "big")})
        attested = bytes(16) + len(self.credential_id).to_bytes(2, "big") + self.credential_id + public_key
        # Flags: user present, user verified, attested credential data.
        data = self._authenticator_data(options["rp"]["id"], 0x45, attested)
        return json.dumps({
            "id": b64url(self.credential_id), "rawId": b64url(self.credential_id), "type": "public-key",
            "response": {
                "clientDataJSON": b64url(self._client_data("webauthn.create", options["challenge"])),
                "attestationObject": b64url(cbor({"fmt": "none", "attStmt": {}, "authData": data})),
            },
        })

    def get(self, options):
        """The credential JSON for `passkey_login`, from the challenge's `publicKey`."""
        client_data = self._client_data("webauthn.get", options["challenge"])
        data = self._authenticator_data(options["rpId"], 0x05)
        signature = self.key.sign(data + hashlib.sha256(client_data).digest(), ec.ECDSA(hashes.SHA256()))
        return json.dumps({
            "id": b64url(self.credential_id), "rawId": b64url(self.credential_id), "type": "public-key",
            "response": {
                "clientDataJSON": b64url(client_data), "authenticatorData": b64url(data),
                "signature": b64url(signature), "userHandle": b64url(self.user_handle),
            },
        })


def verification_code(address, timeout=30):
    """The code in the newest verification mail to `address` in the sink's maildir."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for envelope in sorted(Path(arguments.maildir).glob("*.json"), reverse=True):
            message = envelope.with_suffix(".eml")
            if address not in json.loads(envelope.read_text()).get("rcpt_tos", []) or not message.exists():
                continue
            mail = email.message_from_bytes(message.read_bytes(), policy=email.policy.default)
            subject = str(mail["Subject"])
            if "verification" not in subject.lower():
                continue
            # The subject ends with the code. (The body greets the person by an address whose
            # random part can be all digits, so its first long number may not be the code.)
            if code := re.search(r"code: (\d{6,})$", subject.strip()):
                return code.group(1)
        time.sleep(0.1)
    raise Failed(f"no verification code to {address} arrived in {arguments.maildir}")


# ---- the journey -----------------------------------------------------------------------------

def register(address, passkey):
    flow = strictly("create_native_registration_flow", api.create_native_registration_flow(), sdk.RegistrationFlow)
    check(flow.type == "api" and flow.state == "choose_method", "a native registration flow", f"{flow.type} {flow.state}")
    again = strictly("get_registration_flow", api.get_registration_flow(id=str(flow.id)), sdk.RegistrationFlow)
    check(again.id == flow.id, "get_registration_flow reads it back")
    create_data = json.loads(node_value(flow, "passkey_create_data"))
    body = sdk.UpdateRegistrationFlowWithPasskeyMethod(method="passkey", passkey_register=passkey.create(create_data["credentialOptions"]["publicKey"]), traits={"email": address})
    done = strictly("update_registration_flow (passkey)", api.update_registration_flow(flow=str(flow.id), update_registration_flow_body=sdk.UpdateRegistrationFlowBody(body)), sdk.SuccessfulNativeRegistration)
    follow = [item.actual_instance for item in done.continue_with or []]
    check(done.session_token and done.identity.traits.get("email") == address and done.session.identity.id == done.identity.id,
          "update_registration_flow gives the identity, its session and a session token", str(done)[:300])
    check(any(isinstance(item, sdk.ContinueWithSetOrySessionToken) and item.ory_session_token == done.session_token for item in follow),
          "continue_with says set_ory_session_token with that token", str(follow))
    return done


def sign_in(passkey, what="update_login_flow (passkey)"):
    flow = strictly("create_native_login_flow", api.create_native_login_flow(), sdk.LoginFlow)
    options = json.loads(node_value(flow, "passkey_challenge"))["publicKey"]
    body = sdk.UpdateLoginFlowWithPasskeyMethod(method="passkey", passkey_login=passkey.get(options))
    done = strictly(what, api.update_login_flow(flow=str(flow.id), update_login_flow_body=sdk.UpdateLoginFlowBody(body)), sdk.SuccessfulNativeLogin)
    methods = [method.method for method in done.session.authentication_methods or []]
    check(done.session_token and done.session.active and methods == ["passkey"], f"{what} gives an active passkey session and its token", f"{methods}")
    return done


def journey():
    address = f"ada.{arguments.sdk}.{secrets.token_hex(3)}@example.com"
    passkey = Passkey()

    # The password method, which an app on Kratos would use first.
    flow = api.create_native_registration_flow()
    body = sdk.UpdateRegistrationFlowBody(sdk.UpdateRegistrationFlowWithPasswordMethod(method="password", password="a long and unusual password", traits={"email": "pw." + address}))
    password_method("update_registration_flow (password)", lambda: api.update_registration_flow(flow=str(flow.id), update_registration_flow_body=body),
                    sdk.RegistrationFlow, None, NO_REGISTRATION_STRATEGY)

    registered = register(address, passkey)
    identity_id = registered.identity.id
    signed_in = sign_in(passkey)
    token = signed_in.session_token
    login = api.create_native_login_flow()
    check(strictly("get_login_flow", api.get_login_flow(id=str(login.id)), sdk.LoginFlow).id == login.id, "get_login_flow reads it back")

    # Refusals: a wrong password, and a passkey that is not the registered one's key.
    body = sdk.UpdateLoginFlowBody(sdk.UpdateLoginFlowWithPasswordMethod(method="password", identifier=address, password="not the password at all"))
    password_method("a wrong password", lambda: api.update_login_flow(flow=str(login.id), update_login_flow_body=body),
                    sdk.LoginFlow, INVALID_CREDENTIALS, NO_LOGIN_STRATEGY)
    forged = Passkey()
    forged.credential_id, forged.user_handle = passkey.credential_id, passkey.user_handle
    options = json.loads(node_value(login, "passkey_challenge"))["publicKey"]
    body = sdk.UpdateLoginFlowBody(sdk.UpdateLoginFlowWithPasskeyMethod(method="passkey", passkey_login=forged.get(options)))
    refusal = refused(lambda: api.update_login_flow(flow=str(login.id), update_login_flow_body=body))
    flow = flow_refusal("a passkey signed with another key", refusal, sdk.LoginFlow)
    check(LOGIN_INVALID in message_ids(flow), f"a passkey signed with another key is refused with {LOGIN_INVALID}", f"{message_ids(flow)}")

    # whoami, with the header Kratos adds.
    whoami = api.to_session_with_http_info(x_session_token=token)
    session = strictly("to_session", whoami.data, sdk.Session)
    headers = {name.lower(): value for name, value in (whoami.headers or {}).items()}
    check(session.id == signed_in.session.id and session.identity.id == identity_id and session.active,
          "to_session (whoami) gives the session and its identity", str(session)[:300])
    check(headers.get("x-kratos-authenticated-identity-id") == str(identity_id), "with X-Kratos-Authenticated-Identity-Id", str(headers))

    # Settings: the password method again, then a change of address.
    settings = strictly("create_native_settings_flow", api.create_native_settings_flow(x_session_token=token), sdk.SettingsFlow)
    check(settings.identity.id == identity_id and settings.state == "show_form", "a settings flow of the signed-in identity", f"{settings.state}")
    check(strictly("get_settings_flow", api.get_settings_flow(id=str(settings.id), x_session_token=token), sdk.SettingsFlow).id == settings.id,
          "get_settings_flow reads it back")
    body = sdk.UpdateSettingsFlowBody(sdk.UpdateSettingsFlowWithPasswordMethod(method="password", password="a new and unusual password"))
    password_method("update_settings_flow (password)", lambda: api.update_settings_flow(flow=str(settings.id), x_session_token=token, update_settings_flow_body=body),
                    sdk.SettingsFlow, None, NO_SETTINGS_STRATEGY)
    moved = "moved." + address
    body = sdk.UpdateSettingsFlowBody(sdk.UpdateSettingsFlowWithProfileMethod(method="profile", traits={"email": moved}))
    changed = strictly("update_settings_flow (profile)", api.update_settings_flow(flow=str(settings.id), x_session_token=token, update_settings_flow_body=body), sdk.SettingsFlow)
    follow = [item.actual_instance for item in changed.continue_with or []]
    verify = next((item.flow for item in follow if isinstance(item, sdk.ContinueWithVerificationUi)), None)
    check(changed.state == "success" and SAVED in message_ids(changed), "update_settings_flow changes traits.email: state success", f"{changed.state} {message_ids(changed)}")
    check(verify is not None and verify.verifiable_address == moved, "continue_with show_verification_ui names the new address", str(follow))
    now = strictly("to_session", api.to_session(x_session_token=token), sdk.Session).identity.traits.get("email")
    if now == address:
        print(f"KNOWN DIVERGENCE update_settings_flow (profile): whoami keeps traits.email {address!r} until the new address's code is entered "
              f"(the saved flow's identity says {changed.identity.traits.get('email')!r}), where Kratos changes it at once and leaves the new address unverified", flush=True)
    else:
        check(now == moved, "whoami shows the new traits.email at once, as in Kratos", f"{now!r}")
    if verify is not None and arguments.maildir:
        pending = strictly("get_verification_flow", api.get_verification_flow(id=str(verify.id)), sdk.VerificationFlow)
        check(pending.state == "sent_email", "the verification flow has sent its code", pending.state)
        body = sdk.UpdateVerificationFlowWithCodeMethod(method="code", code=verification_code(moved))
        passed = strictly("update_verification_flow (code)", api.update_verification_flow(
            flow=str(verify.id), update_verification_flow_body=sdk.UpdateVerificationFlowBody(body)), sdk.VerificationFlow)
        check(passed.state == "passed_challenge", "update_verification_flow with the mailed code passes", passed.state)
        traits = strictly("to_session", api.to_session(x_session_token=token), sdk.Session).identity.traits
        check(traits.get("email") == moved, "whoami shows the new traits.email", str(traits))
    elif verify is not None:
        print("ok the change of address waits for its verification code (no --maildir to read it from)", flush=True)

    # Two more sign-ins: with the registration's, three other sessions.
    others = [registered.session.id] + [sign_in(passkey, f"sign-in {n}").session.id for n in (2, 3)]
    listed = api.list_my_sessions_with_http_info(x_session_token=token)
    strictly("list_my_sessions", listed.data, list)
    headers = {name.lower(): value for name, value in (listed.headers or {}).items()}
    check(sorted(str(other.id) for other in listed.data) == sorted(map(str, others)) and all(isinstance(other, sdk.Session) for other in listed.data),
          "list_my_sessions lists the three other sessions", f"{[str(other.id) for other in listed.data]}")
    check(headers.get("x-total-count") == "3" and 'rel="first"' in headers.get("link", ""), "with Kratos's pagination headers (X-Total-Count, Link)", str(headers))
    first = api.list_my_sessions_with_http_info(x_session_token=token, per_page=2)
    link = {rel: url for url, rel in re.findall(r'<([^>]*)>;\s*rel="(\w+)"', dict((k.lower(), v) for k, v in first.headers.items()).get("link", ""))}
    if check(len(first.data) == 2 and "next" in link, "per_page=2 gives two and a Link to the next page", f"{len(first.data)} {link}"):
        query = {name: values[0] for name, values in parse_qs(urlparse(link["next"]).query).items()}
        numbers = {name: int(value) for name, value in query.items() if name in ("page", "per_page", "page_size")}
        rest = api.list_my_sessions(x_session_token=token, **{**query, **numbers})
        check([str(other.id) for other in rest] and {str(other.id) for other in rest}.isdisjoint(str(other.id) for other in first.data)
              and len(rest) + len(first.data) == 3, "following the Link gives the rest", f"{query}: {[str(other.id) for other in rest]}")

    # Ending sessions: one by ID, then the others, never the current one by ID.
    check(api.disable_my_session(id=str(registered.session.id), x_session_token=token) is None, "disable_my_session answers 204")
    remaining = {str(other.id) for other in api.list_my_sessions(x_session_token=token)}
    check(remaining == set(map(str, others[1:])), "that session is no longer listed", str(remaining))
    refusal = refused(lambda: api.to_session(x_session_token=registered.session_token))
    check(refusal.status == 401, "its token no longer works", f"{refusal.status}")
    count = strictly("disable_my_other_sessions", api.disable_my_other_sessions(x_session_token=token), sdk.DeleteMySessionsCount)
    check(count.count == 2, "disable_my_other_sessions ends the other two and counts them", str(count))
    check(api.list_my_sessions(x_session_token=token) == [], "no other session is left")
    refusal = refused(lambda: api.disable_my_session(id=str(session.id), x_session_token=token))
    error = kratos_error("disable_my_session of the current session", refusal)
    check(refusal.status == 400 and error.code == 400, "the current session is not ended by ID (400)", f"{refusal.status} {refusal.body}")

    # Logout, and whoami after it.
    check(api.perform_native_logout(perform_native_logout_body=sdk.PerformNativeLogoutBody(session_token=token)) is None, "perform_native_logout answers 204")
    refusal = refused(lambda: api.perform_native_logout(perform_native_logout_body=sdk.PerformNativeLogoutBody(session_token=token)))
    error = kratos_error("perform_native_logout again", refusal)
    check(refusal.status == 403 and error.code == 403, "logging out again is 403, as in Kratos", f"{refusal.status} {refusal.body}")
    refusal = refused(lambda: api.to_session(x_session_token=token))
    error = kratos_error("whoami after logout", refusal)
    check(isinstance(refusal, sdk.exceptions.UnauthorizedException) and error.id == "session_inactive" and error.code == 401,
          "whoami after logout is a 401 session_inactive", f"{type(refusal).__name__} {refusal.body}")

    # Paths that serve nothing, read with the SDK's own client as an error answer.
    for path in ("/self-service/nothing-here", "/sessions/whoami/nothing-here"):
        method, url, header_params, body, post_params = api.api_client.param_serialize(method="GET", resource_path=path, header_params={"Accept": "application/json"})
        answer = api.api_client.call_api(method, url, header_params, body, post_params)
        answer.read()
        refusal = refused(lambda: api.api_client.response_deserialize(answer, {"404": "ErrorGeneric"}))
        error = kratos_error(f"GET {path}", refusal)
        check(refusal.status == 404 and error.id == "not_found", f"GET {path} is a 404 not_found in Kratos's error shape", f"{refusal.status} {refusal.body}")


try:
    journey()
except Exception as error:  # a step the journey cannot go on from: said, not a traceback
    failures += 1
    print(f"FAIL the journey stopped: {type(error).__name__}: {str(error)[:600]}", flush=True)
sys.exit(1 if failures else 0)
