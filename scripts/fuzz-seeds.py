#!/usr/bin/env python3
"""Writes fuzzing seeds, one file per input, from a WebAuthn corpus in the conformance schema.

Usage: fuzz-seeds.py CORPUS.json OUTPUT_DIR
"""
import base64, hashlib, json, os, sys


def b64(text):
    text = text.replace("+", "-").replace("/", "_").rstrip("=")
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def main(corpus_path, output):
    with open(corpus_path) as handle:
        data = json.load(handle)
    cases = data["vectors"] if isinstance(data, dict) else data
    seeds = {name: set() for name in ("cbor", "authdata", "clientdata", "cosekey", "attestation")}
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
