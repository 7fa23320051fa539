#!/usr/bin/env bash
# The order fetch through the service's router (fetch cache on, then off) beside a bare route of the same router
# answering the same bytes from memory, with wrk, in one run.
# Usage: Benchmarks/fetch.sh [sqlite|postgres (sqlite)] [SECONDS (10)] [CONNECTIONS (64)]
set -euo pipefail
cd "$(dirname "$0")/.."
command -v wrk >/dev/null || { echo "needs wrk (apt-get install wrk)"; exit 1; }
swift build -c release --product fetch-benchmark >/dev/null
.build/release/fetch-benchmark "$@"
