#!/usr/bin/env bash
# Runs judge.py (the order JSON Schema, judged by Python's jsonschema 4; see Tests/python/with.sh).
#
#   Tests/schema/judge.sh SCHEMA CORPUS
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
exec "$ROOT/Tests/python/with.sh" schema-venv \
    'import sys, jsonschema; sys.exit(0 if hasattr(jsonschema, "Draft202012Validator") else 1)' 'jsonschema>=4.18,<5' \
    "$ROOT/Tests/schema/judge.py" "$@"
