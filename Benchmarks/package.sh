#!/usr/bin/env bash
# Time to build and sign one package of the sample template, in process and with the openssl + zip commands.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product package-benchmark
.build/release/package-benchmark "${1:-500}"
