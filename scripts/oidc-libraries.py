#!/usr/bin/env python3
"""Drives Latchkey's OpenID Connect face with authlib and auth0-python (PyPI), as a team
moving from another provider would, and says what each library made of it. Run it with the
python that `scripts/oidc-libraries.sh setup` prints.

    oidc-libraries.py --base URL --issuer ISSUER --client-id ID --id-token JWT
                      [--refresh-token TOKEN] [--algorithm RS256|PS256|ES256]

  --base           where the server listens (http://127.0.0.1:PORT)
  --issuer         its issuer (the public URL, with its trailing slash)
  --client-id      the client the tokens were issued to
  --id-token       an ID token it issued
  --refresh-token  a refresh token to rotate with auth0-python's GetToken.refresh_token,
                   which sends scope="" by default
  --algorithm      what the ID token is expected to be signed with

Prints one line per check, "ok <check>" or "FAIL <check>: <why>", and exits 1 if any failed.
The documents name the public URL, which is not where a test server listens: every URL is
read from --base instead.
"""
import argparse
import os
import sys
from urllib.parse import urlparse

os.environ.setdefault("AUTHLIB_INSECURE_TRANSPORT", "1")

import requests
from authlib.jose import JsonWebKey, JsonWebToken
from authlib.oidc.discovery import OpenIDProviderMetadata
from auth0.authentication import GetToken
from auth0.authentication.token_verifier import AsymmetricSignatureVerifier, TokenVerifier

parser = argparse.ArgumentParser()
parser.add_argument("--base", required=True)
parser.add_argument("--issuer", required=True)
parser.add_argument("--client-id", required=True)
parser.add_argument("--id-token", required=True)
parser.add_argument("--refresh-token")
parser.add_argument("--algorithm", default="RS256")
arguments = parser.parse_args()
base = arguments.base.rstrip("/")
failures = 0


def check(name, function):
    global failures
    try:
        detail = function()
        print(f"ok {name}" + (f": {detail}" if detail else ""), flush=True)
    except Exception as error:  # every failure is reported, then the next check runs
        failures += 1
        print(f"FAIL {name}: {type(error).__name__}: {error}", flush=True)


def discovery():
    document = requests.get(base + "/.well-known/openid-configuration", timeout=10).json()
    OpenIDProviderMetadata(document).validate()
    return ",".join(document["id_token_signing_alg_values_supported"])


def authlib_verifies(token):
    jwks = requests.get(base + urlparse(requests.get(base + "/.well-known/openid-configuration", timeout=10).json()["jwks_uri"]).path, timeout=10).json()
    claims = JsonWebToken(["RS256", "PS256", "ES256"]).decode(
        token, JsonWebKey.import_key_set(jwks),
        claims_options={"iss": {"essential": True, "value": arguments.issuer}, "aud": {"essential": True, "value": arguments.client_id}},
    )
    claims.validate()
    if claims.header.get("alg") != arguments.algorithm:
        raise AssertionError(f"signed {claims.header.get('alg')}, not {arguments.algorithm}")
    return claims["sub"]


def auth0_verifies(token, algorithm):
    verifier = TokenVerifier(
        signature_verifier=AsymmetricSignatureVerifier(base + "/.well-known/jwks.json", algorithm=algorithm),
        issuer=arguments.issuer, audience=arguments.client_id,
    )
    return verifier.verify(token)["sub"]


check("authlib validates discovery as OpenID Provider metadata", discovery)
check(f"authlib verifies the {arguments.algorithm} ID token with jwks_uri", lambda: authlib_verifies(arguments.id_token))
if arguments.algorithm != "ES256":
    check(f"auth0-python's TokenVerifier verifies the {arguments.algorithm} ID token with /.well-known/jwks.json",
          lambda: auth0_verifies(arguments.id_token, arguments.algorithm))

if arguments.refresh_token:
    def refresh():
        parsed = urlparse(base)
        answer = GetToken(parsed.netloc, arguments.client_id, protocol=parsed.scheme).refresh_token(arguments.refresh_token)
        if not answer.get("id_token"):
            raise AssertionError(f"no ID token after a refresh with the default scope: {answer}")
        if "openid" not in answer.get("scope", "").split():
            raise AssertionError(f"the scope was narrowed: {answer.get('scope')!r}")
        if arguments.algorithm != "ES256":
            auth0_verifies(answer["id_token"], arguments.algorithm)
        return answer["scope"]
    check("auth0-python's GetToken.refresh_token (scope=\"\") keeps the grant and its ID token", refresh)

sys.exit(1 if failures else 0)
