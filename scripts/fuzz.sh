#!/usr/bin/env bash
# Fuzzes the parsers that read untrusted bytes with libFuzzer and AddressSanitizer, for a
# bounded time per target, seeded from the conformance corpus.
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]
#
# Targets: cbor authdata clientdata cosekey attestation mdsblob mdspayload (all by default). Findings (crashing
# inputs) are written to fuzz-artifacts/; the script exits non-zero when there are any.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-60}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(cbor authdata clientdata cosekey attestation mdsblob mdspayload)

scratch=.build-fuzz
echo "building the fuzzers (release, -sanitize=fuzzer,address)…"
swift build -c release --package-path Fuzz --scratch-path "$scratch" \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -use-ld=lld >/dev/null
binary="$scratch/release/FuzzParsers"

python3 scripts/fuzz-seeds.py Tests/Fixtures/conformance/webauthn-vectors.json "$scratch/seeds"
mkdir -p fuzz-artifacts
status=0
for target in "${targets[@]}"; do
    corpus="$scratch/corpus/$target"
    mkdir -p "$corpus"
    echo "fuzzing $target for ${seconds}s…"
    if ! FUZZ_TARGET="$target" "$binary" -max_total_time="$seconds" -print_final_stats=1 \
        -artifact_prefix="fuzz-artifacts/$target-" "$corpus" "$scratch/seeds/$target" 2>"$scratch/$target.log"; then
        status=1
        echo "  FINDING: see fuzz-artifacts/ and $scratch/$target.log"
    fi
    grep -E "stat::number_of_executed_units|stat::new_units_added|cov:" "$scratch/$target.log" | tail -3 | sed 's/^/  /'
done
exit $status
