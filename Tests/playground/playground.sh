#!/usr/bin/env bash
# Drives /playground in real headless Chromium through Selenium (see Tests/selenium/run.sh).
#
#   Tests/playground/playground.sh BASE_URL OUTPUT_DIR
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
exec "$ROOT/Tests/selenium/run.sh" "$ROOT/Tests/playground/playground.py" "$@"
