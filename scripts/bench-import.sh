#!/usr/bin/env bash
# Times `latchkey import kratos` on a generated file of Kratos identities, each with a
# passkey (its own credential ID, one real P-256 COSE key) and a bcrypt password hash, into a
# fresh SQLite file, and into PostgreSQL when a URL is given.
#
#   scripts/bench-import.sh [COUNT] [postgres://…]      COUNT defaults to 100000
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-100000}
postgres=${2:-}
work=$(mktemp -d -t latchkey-import-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT

echo "building the release server…"
swift build -c release --product latchkey >/dev/null
latchkey="$(pwd)/.build/release/latchkey"

openssl ecparam -name prime256v1 -genkey -noout -out "$work/key.pem"
point=$(openssl ec -in "$work/key.pem" -pubout -outform DER 2>/dev/null | tail -c 65 | od -An -v -tx1 | tr -d ' \n')
python3 - "$count" "$point" "$work/identities.ndjson" <<'PY'
import base64, json, os, sys, uuid
count, point, path = int(sys.argv[1]), bytes.fromhex(sys.argv[2]), sys.argv[3]
# COSE_Key {1: 2 (EC2), 3: -7 (ES256), -1: 1 (P-256), -2: x, -3: y}.
cose = bytes.fromhex("a50102032620012158 20".replace(" ", "")) + point[1:33] + bytes.fromhex("225820") + point[33:65]
key = base64.b64encode(cose).decode()
bcrypt = "$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW"
with open(path, "w") as out:
    for index in range(count):
        identity = {
            "id": str(uuid.uuid4()), "schema_id": "default", "state": "active",
            "traits": {"email": f"person{index}@example.com", "name": {"first": "Person", "last": str(index)}},
            "verifiable_addresses": [{"value": f"person{index}@example.com", "verified": True, "via": "email", "status": "completed"}],
            "credentials": {
                "password": {"type": "password", "config": {"hashed_password": bcrypt}},
                "passkey": {"type": "passkey", "config": {"user_handle": base64.b64encode(os.urandom(32)).decode(), "credentials": [{
                    "id": base64.b64encode(os.urandom(32)).decode(), "public_key": key, "attestation_type": "none",
                    "authenticator": {"aaguid": base64.b64encode(bytes(16)).decode(), "sign_count": 0, "clone_warning": False},
                    "display_name": "Passkey", "added_at": "2024-03-03T08:00:00Z", "is_passwordless": True,
                }]}},
            },
            "created_at": "2024-03-01T10:00:00Z",
        }
        out.write(json.dumps(identity) + "\n")
PY
printf 'relying_party: { id: localhost, name: Bench, origins: [http://localhost:8080] }\n' > "$work/latchkey.yaml"

run() {
    local database=$1 label=$2 start end
    start=$(date +%s.%N)
    "$latchkey" import kratos "$work/identities.ndjson" --config "$work/latchkey.yaml" --database "$database" | tail -n 1
    end=$(date +%s.%N)
    python3 -c "import sys; s=float(sys.argv[2])-float(sys.argv[1]); print(f'$label: {int(sys.argv[3])} identities in {s:.1f} s, {int(sys.argv[3])/s:.0f} records/s')" "$start" "$end" "$count"
}
run "sqlite:$work/latchkey.sqlite" SQLite
[ -n "$postgres" ] && run "$postgres" PostgreSQL
exit 0
