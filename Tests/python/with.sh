#!/usr/bin/env bash
# Runs a Python script with a Python that has a package from PyPI: python3 itself when CHECK passes on it, otherwise
# a venv under .build/ named VENV, made once with REQUIREMENT. Tests run side by side: one of them makes the venv
# while the others wait for it.
#
#   Tests/python/with.sh VENV CHECK REQUIREMENT SCRIPT.py ARGUMENTS…
#   Tests/python/with.sh schema-venv 'import jsonschema' 'jsonschema>=4.18,<5' Tests/schema/judge.py …
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
NAME=$1 CHECK=$2 REQUIREMENT=$3
shift 3

if python3 -c "$CHECK" 2> /dev/null; then
    PYTHON=python3
else
    VENV=$ROOT/.build/$NAME
    mkdir -p "$ROOT/.build"
    exec 9> "$VENV.lock"
    flock 9
    if ! "$VENV/bin/python" -c "$CHECK" 2> /dev/null; then
        python3 -m venv "$VENV" >&2
        "$VENV/bin/pip" install --quiet "$REQUIREMENT" >&2
    fi
    PYTHON=$VENV/bin/python
    flock -u 9
fi
exec "$PYTHON" "$@"
