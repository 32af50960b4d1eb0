#!/usr/bin/env python3
"""Drives the Kratos face with Ory's own generated SDKs (ory-kratos-client, or ory-client,
the Ory Network SDK with the same FrontendApi), as an app on Kratos would: every answer is
parsed into the SDK's models, and a member the SDK's models do not know (which they keep in
`additional_properties`) is a failure, so the answers are Kratos's shapes exactly. Run it
with the python that `scripts/ory-sdks.sh setup` prints.

    ory-sdks.py --base URL --sdk kratos|ory --token T1 --token T2 --token T3

The tokens are session tokens of one identity (the test signs in with passkeys, which these
SDKs leave to the platform); T1 is the one that lists and ends the others. Prints "ok ..." per
check and "FAIL ..." on a failure; exits 1 on any failure.
"""
import argparse
import importlib
import json
import sys

import pydantic

parser = argparse.ArgumentParser()
parser.add_argument("--base", required=True)
parser.add_argument("--sdk", choices=["kratos", "ory"], required=True)
parser.add_argument("--token", action="append", required=True)
arguments = parser.parse_args()
# ory-client types IDs as UUIDs, ory-kratos-client as strings: the script passes str(id).
sdk = importlib.import_module("ory_kratos_client" if arguments.sdk == "kratos" else "ory_client")
api = sdk.FrontendApi(sdk.ApiClient(sdk.Configuration(host=arguments.base.rstrip("/"))))
failures = 0


def check(condition, what, detail=""):
    global failures
    if condition:
        print(f"ok {what}")
    else:
        failures += 1
        print(f"FAIL {what}: {detail}")


def unknown_members(model, path="$"):
    """Every member the SDK's models kept as unknown, anywhere in a parsed answer."""
    found = []
    if isinstance(model, list):
        for index, item in enumerate(model):
            found += unknown_members(item, f"{path}[{index}]")
    elif isinstance(model, pydantic.BaseModel):
        extra = getattr(model, "additional_properties", None) or {}
        found += [f"{path}.{name}" for name in extra]
        for name in type(model).model_fields:
            if name != "additional_properties":
                found += unknown_members(getattr(model, name), f"{path}.{name}")
        # A oneOf wrapper holds its parsed value in actual_instance.
        if getattr(model, "actual_instance", None) is not None:
            found += unknown_members(model.actual_instance, path)
    elif isinstance(model, dict):
        for key, value in model.items():
            found += unknown_members(value, f"{path}.{key}")
    return found


def strictly(what, model):
    unknown = unknown_members(model)
    check(not unknown, f"{what} parses into the SDK's models with no unknown member", ", ".join(unknown[:10]))
    return model


def error_body(exception):
    try:
        return json.loads(exception.body)
    except Exception:  # the body is not JSON: the check below says so
        return None


def kratos_error(exception):
    """Kratos's error envelope, {"error": GenericError}. Both SDKs model its content as
    GenericError; ory-client's ErrorGeneric wrapper allows Ory Network's two error IDs only
    (not Kratos's `session_inactive`), so the content is parsed directly."""
    body = error_body(exception)
    if not isinstance(body, dict) or not isinstance(body.get("error"), dict):
        return None
    return strictly(f"the {exception.status} error", sdk.GenericError.from_dict(body["error"]))


first, *others = arguments.token

flow = strictly("create_native_registration_flow", api.create_native_registration_flow())
check(isinstance(flow, sdk.RegistrationFlow) and flow.type == "api" and any(node.group == "passkey" for node in flow.ui.nodes), "a registration flow with passkey nodes")
check(strictly("get_registration_flow", api.get_registration_flow(id=str(flow.id))).id == flow.id, "get_registration_flow reads it back")
login = strictly("create_native_login_flow", api.create_native_login_flow())
check(isinstance(login, sdk.LoginFlow) and login.state is not None, "a login flow")
try:
    api.update_login_flow(flow=str(login.id), update_login_flow_body=sdk.UpdateLoginFlowBody(
        sdk.UpdateLoginFlowWithPasskeyMethod(method="passkey", passkey_login='{"id":"AAAA"}')))
    check(False, "a forged passkey is refused", "it was accepted")
except sdk.ApiException as refused:
    body = error_body(refused)
    parsed = sdk.LoginFlow.from_dict(body) if body and "ui" in body else None
    check(refused.status == 400 and parsed is not None and parsed.ui.messages, "a forged passkey is refused with the flow and its message", f"{refused.status} {refused.body[:300]}")
    if parsed is not None:
        strictly("the refused login flow", parsed)

session = strictly("to_session", api.to_session(x_session_token=first))
check(isinstance(session, sdk.Session) and session.active and session.identity is not None, "to_session (whoami) gives the active session and its identity")
identity_id = session.identity.id

settings = strictly("create_native_settings_flow", api.create_native_settings_flow(x_session_token=first))
check(isinstance(settings, sdk.SettingsFlow) and settings.identity.id == identity_id, "a settings flow of the signed-in identity")
check(strictly("get_settings_flow", api.get_settings_flow(id=str(settings.id), x_session_token=first)).id == settings.id, "get_settings_flow reads it back")

listed = api.list_my_sessions_with_http_info(x_session_token=first)
strictly("list_my_sessions", listed.data)
headers = {name.lower(): value for name, value in (listed.headers or {}).items()}
check(len(listed.data) == len(others) and all(isinstance(other, sdk.Session) for other in listed.data),
      "list_my_sessions lists the other sessions", f"{len(listed.data)} listed, {len(others)} expected")
check(headers.get("x-total-count") == str(len(others)) and 'rel="first"' in headers.get("link", ""), "with Kratos's pagination headers", str(headers))

ended = str(listed.data[0].id)
api.disable_my_session(id=ended, x_session_token=first)
remaining = api.list_my_sessions(x_session_token=first)
check(ended not in [str(other.id) for other in remaining] and len(remaining) == len(others) - 1, "disable_my_session ends that session")
count = strictly("disable_my_other_sessions", api.disable_my_other_sessions(x_session_token=first))
check(count.count == len(others) - 1, "disable_my_other_sessions ends the rest and counts them", str(count))
check(api.list_my_sessions(x_session_token=first) == [], "no other session is left")
try:
    api.disable_my_session(id=str(session.id), x_session_token=first)
    check(False, "the current session is not ended by ID", "it was")
except sdk.ApiException as refused:
    error = kratos_error(refused)
    check(refused.status == 400 and error is not None and error.code == 400 and error.message, "the current session is not ended by ID (Kratos's error)", refused.body[:200])

api.perform_native_logout(perform_native_logout_body=sdk.PerformNativeLogoutBody(session_token=first))
print("ok perform_native_logout")
try:
    api.to_session(x_session_token=first)
    check(False, "whoami after logout is refused", "the session still works")
except sdk.ApiException as refused:
    error = kratos_error(refused)
    check(refused.status == 401 and error is not None and error.code == 401 and error.message, "whoami after logout is a 401 in Kratos's error shape", refused.body[:200])

sys.exit(1 if failures else 0)
