#!/usr/bin/env bash
# Runs a Python script that drives real headless Chromium (Debian's chromium and chromium-driver) through Selenium,
# with a Python that has Selenium 4: python3 itself when it has it, otherwise a venv under .build/ made once (from
# PyPI).
#
#   Tests/selenium/run.sh SCRIPT.py ARGUMENTS…
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HAS_SELENIUM='import sys, selenium; sys.exit(0 if int(selenium.__version__.split(".")[0]) >= 4 else 1)'

if python3 -c "$HAS_SELENIUM" 2> /dev/null; then
    PYTHON=python3
else
    VENV=$ROOT/.build/playground-venv
    mkdir -p "$ROOT/.build"
    exec 9> "$VENV.lock"
    flock 9
    if ! "$VENV/bin/python" -c "$HAS_SELENIUM" 2> /dev/null; then
        python3 -m venv "$VENV" >&2
        "$VENV/bin/pip" install --quiet 'selenium>=4.11,<5' >&2
    fi
    PYTHON=$VENV/bin/python
    flock -u 9
fi
exec "$PYTHON" "$@"
