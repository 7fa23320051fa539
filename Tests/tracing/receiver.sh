#!/usr/bin/env bash
# Runs Tests/tracing/receiver.py with OpenTelemetry's protobuf messages (`opentelemetry-proto`; see
# Tests/python/with.sh).
#
#   Tests/tracing/receiver.sh PORT_FILE LOG_FILE
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
exec "$ROOT/Tests/python/with.sh" tracing-venv 'import opentelemetry.proto.collector.trace.v1.trace_service_pb2' \
    'opentelemetry-proto>=1.20,<2' "$ROOT/Tests/tracing/receiver.py" "$@"
