#!/usr/bin/env bash
# Runs Tests/webhooks/receiver.py with a Python that has the Standard Webhooks package (`standardwebhooks` from
# PyPI): python3 itself when it has it, otherwise a venv under .build/ made once.
#
#   Tests/webhooks/receiver.sh serve PORT_FILE LOG_FILE
#   Tests/webhooks/receiver.sh verify LOG_FILE SECRET...
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HAS_PACKAGE='import standardwebhooks.webhooks'

if python3 -c "$HAS_PACKAGE" 2> /dev/null; then
    PYTHON=python3
else
    VENV=$ROOT/.build/webhooks-venv
    mkdir -p "$ROOT/.build"
    exec 9> "$VENV.lock"
    flock 9
    if ! "$VENV/bin/python" -c "$HAS_PACKAGE" 2> /dev/null; then
        python3 -m venv "$VENV" >&2
        "$VENV/bin/pip" install --quiet 'standardwebhooks>=1.0,<2' >&2
    fi
    PYTHON=$VENV/bin/python
    flock -u 9
fi
exec "$PYTHON" "$ROOT/Tests/webhooks/receiver.py" "$@"
