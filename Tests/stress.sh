#!/usr/bin/env bash
# The suite the hard way: runs `swift test` N times (default 3), each after dropping the page cache, with a CPU hog
# on every core beside it, and prints pass or fail per run with its wall time and the slowest suites.
# Not part of `make test`: run it after any change to tests or to how things start and stop.
#
#   Tests/stress.sh [N]          (as root: dropping the page cache needs it)
#
# The hog is `stress-ng --cpu <cores>` (Debian's stress-ng), or `openssl speed -multi <cores>` in a loop without it.
set -uo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-3}
CORES=$(nproc)
LOGS=$(mktemp -d /tmp/wo-stress.XXXXXX)

if ! command -v stress-ng > /dev/null; then
    apt-get install -y -qq stress-ng > /dev/null 2>&1 || true
fi
swift build --build-tests > "$LOGS/build.log" 2>&1 || { echo "build failed: $LOGS/build.log"; exit 1; }

HOG=
stop_hog() {
    [ -n "$HOG" ] && kill -- -"$HOG" 2> /dev/null
    HOG=
}
trap stop_hog EXIT

passed=0
for run in $(seq 1 "$RUNS"); do
    sync
    echo 3 > /proc/sys/vm/drop_caches 2> /dev/null || echo "(cannot drop the page cache: not root)"
    if command -v stress-ng > /dev/null; then
        setsid stress-ng --cpu "$CORES" --timeout 0 --quiet &
    else
        setsid bash -c "while true; do openssl speed -multi $CORES rsa2048 > /dev/null 2>&1; done" &
    fi
    HOG=$!
    start=$(date +%s)
    # As `make test` runs them, bounded: a hang fails the run here, not after CI's limit.
    make --no-print-directory test-run > "$LOGS/run-$run.log" 2>&1
    status=$?
    seconds=$(( $(date +%s) - start ))
    stop_hog
    if [ $status -eq 0 ]; then
        passed=$((passed + 1))
        verdict=pass
    else
        verdict="FAIL (exit $status)"
    fi
    echo "run $run: $verdict in ${seconds}s; log $LOGS/run-$run.log"
    grep -E "^✘|recorded an issue|Time limit was exceeded" "$LOGS/run-$run.log" | head -20
    echo "  slowest suites:"
    grep -E "Suite .* (passed|failed) after" "$LOGS/run-$run.log" \
        | sed -E 's/.*Suite ("?[A-Za-z0-9_]+"?) (passed|failed) after ([0-9.]+) seconds.*/\3 \1 \2/' \
        | sort -rn | head -5 | sed 's/^/    /'
    tail -3 "$LOGS/run-$run.log" | sed 's/^/  | /'
done
echo "$passed of $RUNS runs passed"
[ "$passed" -eq "$RUNS" ]
