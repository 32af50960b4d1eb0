#!/usr/bin/env python3
"""Writes fuzzing seeds, one file per input, from a WebAuthn corpus in the conformance schema.

Usage: fuzz-seeds.py CORPUS.json OUTPUT_DIR
"""
import base64, hashlib, json, os, sys


def b64(text):
    text = text.replace("+", "-").replace("/", "_").rstrip("=")
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=")


def add_metadata_seeds(seeds, cases):
    """MDS3 payloads shaped like FIDO's (FIDO2 and U2F entries, status histories, roots
    taken from the corpus's certificates), and JWS BLOBs carrying them with an x5c header.
    The signatures are not valid: the BLOB target exercises everything up to and around
    the signature check, the payload target the parser behind it."""
    certificates = []
    for case in cases:
        for pem in case.get("trustAnchorsPEM") or []:
            body = "".join(line for line in pem.splitlines() if line and not line.startswith("-----"))
            certificates.append(body)
    entries = [
        {"aaguid": "cb69481e-8ff7-4039-93ec-0a2729a154a8", "metadataStatement": {
            "description": "YubiKey 5 Series", "icon": "data:image/png;base64,iVBORw0KGgo=", "schema": 3,
            "attestationRootCertificates": certificates[:2]},
         "statusReports": [{"status": "FIDO_CERTIFIED_L1", "effectiveDate": "2020-05-12"},
                           {"status": "REVOKED", "effectiveDate": "2024-01-01"}], "timeOfLastStatusChange": "2024-01-01"},
        {"attestationCertificateKeyIdentifiers": ["923881fe2f214ee465484371aeb72e97f5a58e0a"],
         "metadataStatement": {"description": "U2F key", "attestationRootCertificates": certificates[2:3]},
         "statusReports": [{"status": "FIDO_CERTIFIED"}]},
        {"aaid": "4e4e#4005", "statusReports": []},
    ]
    payloads = [
        {"legalHeader": "seed", "no": 42, "nextUpdate": "2030-01-01", "entries": entries},
        {"no": 1, "nextUpdate": "2030-02-30", "entries": []},
        {"no": 7, "nextUpdate": "2030-01-01", "entries": [{"aaguid": "not-a-uuid"}, {"statusReports": "x"}] + entries[:1] * 2},
    ]
    for payload in payloads:
        body = json.dumps(payload, separators=(",", ":")).encode()
        seeds["mdspayload"].add(body)
        for header in ({"alg": "RS256", "typ": "JWT", "x5c": certificates[:2]}, {"alg": "ES256", "x5c": []}, {"alg": "none"}):
            head = json.dumps(header, separators=(",", ":")).encode()
            seeds["mdsblob"].add(b64url(head) + b"." + b64url(body) + b"." + b64url(b"\x00" * 64))


def main(corpus_path, output):
    with open(corpus_path) as handle:
        data = json.load(handle)
    cases = data["vectors"] if isinstance(data, dict) else data
    seeds = {name: set() for name in ("cbor", "authdata", "clientdata", "cosekey", "attestation", "mdsblob", "mdspayload")}
    add_metadata_seeds(seeds, cases)
    for case in cases:
        response = case.get("response", {}).get("response", {})
        client_data = b64(response.get("clientDataJSON") or response.get("clientDataJson", ""))
        seeds["clientdata"].add(client_data)
        if "attestationObject" in response:
            attestation = b64(response["attestationObject"])
            seeds["cbor"].add(attestation)
            seeds["attestation"].add(hashlib.sha256(client_data).digest() + attestation)
        if "authenticatorData" in response:
            seeds["authdata"].add(b64(response["authenticatorData"]))
        if case.get("credentialPublicKey"):
            key = b64(case["credentialPublicKey"])
            seeds["cosekey"].add(key)
            seeds["cbor"].add(key)
    for name, items in seeds.items():
        directory = os.path.join(output, name)
        os.makedirs(directory, exist_ok=True)
        for item in items:
            with open(os.path.join(directory, hashlib.sha1(item).hexdigest()), "wb") as handle:
                handle.write(item)
        print(f"{name}: {len(items)} seeds")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
