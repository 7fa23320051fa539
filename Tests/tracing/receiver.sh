#!/usr/bin/env bash
# Runs Tests/tracing/receiver.py with a Python that has OpenTelemetry's protobuf messages (`opentelemetry-proto` from
# PyPI): python3 itself when it has them, otherwise a venv under .build/ made once.
#
#   Tests/tracing/receiver.sh PORT_FILE LOG_FILE
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HAS_PACKAGE='import opentelemetry.proto.collector.trace.v1.trace_service_pb2'

if python3 -c "$HAS_PACKAGE" 2> /dev/null; then
    PYTHON=python3
else
    VENV=$ROOT/.build/tracing-venv
    mkdir -p "$ROOT/.build"
    exec 9> "$VENV.lock"
    flock 9
    if ! "$VENV/bin/python" -c "$HAS_PACKAGE" 2> /dev/null; then
        python3 -m venv "$VENV" >&2
        "$VENV/bin/pip" install --quiet 'opentelemetry-proto>=1.20,<2' >&2
    fi
    PYTHON=$VENV/bin/python
    flock -u 9
fi
exec "$PYTHON" "$ROOT/Tests/tracing/receiver.py" "$@"
