#!/usr/bin/env bash
# Drives the operator's console (/admin) in real headless Chromium through Selenium (see Tests/selenium/run.sh).
#
#   ADMIN_KEY=… Tests/console/console.sh BASE_URL TRACKING_NUMBER OUTPUT_DIR
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
exec "$ROOT/Tests/selenium/run.sh" "$ROOT/Tests/console/console.py" "$@"
