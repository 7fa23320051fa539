#!/usr/bin/env bash
# Runs judge.py (the order JSON Schema, judged by Python's jsonschema) with a Python that has jsonschema 4:
# python3 itself when it has it, otherwise a venv under .build/ that this script makes once (from PyPI).
#
#   Tests/schema/judge.sh SCHEMA CORPUS
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HAS_2020_12='import sys, jsonschema; sys.exit(0 if hasattr(jsonschema, "Draft202012Validator") else 1)'

if python3 -c "$HAS_2020_12" 2> /dev/null; then
    PYTHON=python3
else
    VENV=$ROOT/.build/schema-venv
    mkdir -p "$ROOT/.build"
    # Tests run side by side: one of them makes the venv while the others wait.
    exec 9> "$VENV.lock"
    flock 9
    if ! "$VENV/bin/python" -c "$HAS_2020_12" 2> /dev/null; then
        python3 -m venv "$VENV" >&2
        "$VENV/bin/pip" install --quiet 'jsonschema>=4.18,<5' >&2
    fi
    PYTHON=$VENV/bin/python
    flock -u 9
fi
exec "$PYTHON" "$ROOT/Tests/schema/judge.py" "$@"
