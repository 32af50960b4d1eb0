#!/usr/bin/env python3
"""Hashes a password the way other identity servers store it, with reference
implementations (PyPI's bcrypt and argon2-cffi, the standard library's hashlib), for the
import tests.
Run it with the python that `scripts/password-hashes.sh setup` prints.

    password-hashes.py PASSWORD

Prints one JSON object: {"bcrypt": "$2b$...", "bcrypt-2a", "pbkdf2-sha256": "$pbkdf2-sha256$i=...,l=32$...",
"pbkdf2-sha512", "kratos-scrypt", "argon2id", "argon2i", "keycloak-pbkdf2-sha256": {"value", "salt",
"iterations"}, "keycloak-argon2": {"value", "salt", "iterations", "memory", "parallelism"}}.
PBKDF2 is written in the PHC form Kratos uses (base64 without padding); the Keycloak
entries keep Keycloak's parts (standard base64) for its importer.
"""
import base64
import hashlib
import json
import os
import sys

import argon2
import bcrypt


def b64(data, pad=False):
    text = base64.b64encode(data).decode()
    return text if pad else text.rstrip("=")


def pbkdf2(name, password, iterations, length):
    salt = os.urandom(16)
    key = hashlib.pbkdf2_hmac(name, password, salt, iterations, length)
    return f"$pbkdf2-{name}$i={iterations},l={length}${b64(salt)}${b64(key)}", salt, key


def main():
    password = sys.argv[1].encode()
    sha256, _, _ = pbkdf2("sha256", password, 27500, 32)
    sha512, _, _ = pbkdf2("sha512", password, 10000, 64)
    # Keycloak derives 64 bytes with every PBKDF2 variant.
    _, salt, key = pbkdf2("sha256", password, 27500, 64)
    # Kratos's scrypt: `ln` is N itself, salt and hash in padded base64.
    scrypt_salt = os.urandom(16)
    scrypt_key = hashlib.scrypt(password, salt=scrypt_salt, n=16384, r=8, p=1, dklen=32)
    # Argon2 as argon2-cffi (the reference C implementation) writes it; small memory keeps
    # the tests quick, and two lanes exercise parallelism.
    argon2id = argon2.PasswordHasher(time_cost=2, memory_cost=1024, parallelism=2, type=argon2.Type.ID).hash(password)
    argon2i = argon2.PasswordHasher(time_cost=3, memory_cost=512, parallelism=1, type=argon2.Type.I).hash(password)
    keycloak_salt = os.urandom(16)
    keycloak_argon2 = argon2.low_level.hash_secret_raw(
        password, keycloak_salt, time_cost=3, memory_cost=2048, parallelism=1, hash_len=32, type=argon2.Type.ID, version=19
    )
    print(json.dumps({
        "kratos-scrypt": f"$scrypt$ln=16384,r=8,p=1${b64(scrypt_salt, pad=True)}${b64(scrypt_key, pad=True)}",
        "bcrypt": bcrypt.hashpw(password, bcrypt.gensalt(rounds=10)).decode(),
        "bcrypt-2a": bcrypt.hashpw(password, bcrypt.gensalt(rounds=4, prefix=b"2a")).decode(),
        "pbkdf2-sha256": sha256,
        "pbkdf2-sha512": sha512,
        "argon2id": argon2id,
        "argon2i": argon2i,
        "keycloak-argon2": {"value": b64(keycloak_argon2, pad=True), "salt": b64(keycloak_salt, pad=True), "iterations": 3, "memory": 2048, "parallelism": 1},
        "keycloak-pbkdf2-sha256": {"value": b64(key, pad=True), "salt": b64(salt, pad=True), "iterations": 27500},
    }))


if __name__ == "__main__":
    main()
