#!/usr/bin/env bash
# Runs a Python script that drives real headless Chromium (Debian's chromium and chromium-driver) through Selenium 4
# (see Tests/python/with.sh).
#
#   Tests/selenium/run.sh SCRIPT.py ARGUMENTS…
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
exec "$ROOT/Tests/python/with.sh" playground-venv \
    'import sys, selenium; sys.exit(0 if int(selenium.__version__.split(".")[0]) >= 4 else 1)' 'selenium>=4.11,<5' "$@"
