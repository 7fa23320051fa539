#!/usr/bin/env bash
# Runs Tests/webhooks/receiver.py with the Standard Webhooks package (`standardwebhooks`; see Tests/python/with.sh).
#
#   Tests/webhooks/receiver.sh serve PORT_FILE LOG_FILE
#   Tests/webhooks/receiver.sh verify LOG_FILE SECRET...
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
exec "$ROOT/Tests/python/with.sh" webhooks-venv 'import standardwebhooks.webhooks' 'standardwebhooks>=1.0,<2' \
    "$ROOT/Tests/webhooks/receiver.py" "$@"
