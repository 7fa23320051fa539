#!/usr/bin/env bash
# Coverage-guided fuzzing with libFuzzer of what reads other people's bytes: the order validator, the JSON merge
# patch, the strings-file reader, the package verifier and tracking payloads. Not part of `make test`; figures go in RELIABILITY.md.
#
#   Fuzz/fuzz.sh                       build, seed and run every target for FUZZ_SECONDS each
#   Fuzz/fuzz.sh order-validator …     only the targets named
#   Fuzz/fuzz.sh --build               only build (and seed)
#   Fuzz/fuzz.sh --reproduce TARGET FILE   run one input through a target (a crash file, a test case)
#
# Targets: order-validator, merge-patch, strings-file, package-archive, package-files, tracking-payloads.
# Settings: FUZZ_SECONDS (default 900 per target), FUZZ_SEED (libFuzzer's -seed, default 1), FUZZ_RSS_MB (default
# 1024: an input that makes a target hold more is a finding), FUZZ_TIMEOUT (seconds for one input, default 10),
# FUZZ_OUT (default .build-fuzz/campaign: corpora, crashes, logs, summary.tsv).
#
# The targets are a package of their own (Fuzz/Package.swift) that depends on this one by path, built with
# `-sanitize=fuzzer` into .build-fuzz, so the normal build never sees them. Corpora start from the repository's
# fixtures (Tests/Fixtures/orders and tracking, Examples, OrderTemplates/sample), packages built by `wallet-orders package`
# and the hostile archives of Fuzz/seeds.py; dictionaries come from Sources/WalletOrdersSchemas/order.schema.json.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
SECONDS_PER_TARGET=${FUZZ_SECONDS:-900}
SEED=${FUZZ_SEED:-1}
RSS_MB=${FUZZ_RSS_MB:-1024}
TIMEOUT=${FUZZ_TIMEOUT:-10}
OUT=${FUZZ_OUT:-$ROOT/.build-fuzz/campaign}
ALL_TARGETS=(order-validator merge-patch strings-file package-archive package-files tracking-payloads)

product() {
    case "$1" in
        order-validator) echo FuzzOrderValidator ;;
        merge-patch) echo FuzzMergePatch ;;
        strings-file) echo FuzzStringsFile ;;
        package-archive) echo FuzzPackageArchive ;;
        package-files) echo FuzzPackageFiles ;;
        tracking-payloads) echo FuzzTrackingPayloads ;;
        *) echo "unknown target $1 (one of ${ALL_TARGETS[*]})" >&2; exit 2 ;;
    esac
}

build() {
    # Release: the -O checks (bounds, overflow, unwraps) stay, and inputs run several times faster than in debug.
    # lld: gold fails with an internal error on the fuzzer runtime's debug information.
    swift build --package-path Fuzz --scratch-path .build-fuzz -c release -Xswiftc -sanitize=fuzzer -Xswiftc -use-ld=lld
    BIN=$(swift build --package-path Fuzz --scratch-path .build-fuzz -c release -Xswiftc -sanitize=fuzzer -Xswiftc -use-ld=lld --show-bin-path)
    # Packages to seed the verifier with, signed by development keys, from the normal debug build (with
    # --build-tests, as `make test` builds it: a no-op after it, where a plain build recompiles everything).
    swift build --build-tests
}

seed() {
    mkdir -p "$OUT"
    python3 Fuzz/seeds.py "$OUT/seeds" .build/debug/wallet-orders
}

run_target() {
    local target=$1 binary corpus dict max_len
    binary=$BIN/$(product "$target")
    corpus=$OUT/corpus/$target
    mkdir -p "$corpus" "$OUT/crashes/$target" "$OUT/logs"
    dict=$OUT/seeds/json.dict
    max_len=16384
    case "$target" in
        strings-file) dict=$OUT/seeds/strings.dict ;;
        package-archive) dict=$OUT/seeds/zip.dict; max_len=262144 ;;
        package-files) max_len=65536 ;;
        tracking-payloads) dict=$OUT/seeds/tracking.dict ;;
    esac
    echo "== $target: ${SECONDS_PER_TARGET}s, seed $SEED, $(ls "$OUT/seeds/$target" | wc -l) seed inputs"
    local log=$OUT/logs/$target.log
    local status=0
    # -fork=0 keeps one process, so the final stats line covers the whole run; crashes are kept in crashes/.
    "$binary" "$corpus" "$OUT/seeds/$target" -dict="$dict" -seed="$SEED" -max_total_time="$SECONDS_PER_TARGET" \
        -max_len="$max_len" -rss_limit_mb="$RSS_MB" -timeout="$TIMEOUT" -print_final_stats=1 \
        -artifact_prefix="$OUT/crashes/$target/" -reload=0 > "$log" 2>&1 || status=$?
    local execs cov ft corpus_size
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2)
    ft=$(grep -o 'ft: [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2)
    corpus_size=$(ls "$corpus" | wc -l)
    local crashes
    crashes=$(find "$OUT/crashes/$target" -type f | wc -l)
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$target" "$SECONDS_PER_TARGET" "$SEED" "${execs:-?}" "${cov:-?}" \
        "${ft:-?}" "$corpus_size" "$crashes" | tee -a "$OUT/summary.tsv"
    if [ "$status" -ne 0 ] || [ "$crashes" -ne 0 ]; then
        echo "FINDING in $target (exit $status): see $log and $OUT/crashes/$target" >&2
        grep -m 5 -E 'ERROR: libFuzzer|Fatal error|SUMMARY' "$log" >&2 || true
        return 1
    fi
}

case "${1:-}" in
    --build)
        build
        seed
        exit 0
        ;;
    --reproduce)
        build
        exec "$BIN/$(product "$2")" "$3"
        ;;
esac

targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=("${ALL_TARGETS[@]}")
for target in "${targets[@]}"; do product "$target" > /dev/null; done
build
seed
[ -f "$OUT/summary.tsv" ] || printf 'target\tseconds\tseed\texecutions\tcoverage\tfeatures\tcorpus\tcrashes\n' > "$OUT/summary.tsv"
status=0
for target in "${targets[@]}"; do
    run_target "$target" || status=1
done
echo "summary: $OUT/summary.tsv"
exit "$status"
