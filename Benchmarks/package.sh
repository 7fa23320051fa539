#!/usr/bin/env bash
# Time to build and sign one package of the sample template in process, on one thread and on every core, beside
# `openssl speed rsa2048` (one RSA-2048 signature, the floor of a package) and the openssl + zip commands, all
# in the same run. Usage: Benchmarks/package.sh [ITERATIONS (2000)] [SECONDS per multi-core and openssl run (5)]
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product package-benchmark
.build/release/package-benchmark "$@"
