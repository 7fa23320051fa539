# Sourced by Tests/contract/schemathesis.sh and Fuzz/schemathesis-campaign.sh (from the repository root, with BIN
# set): the server they check, started with data in it, and the schemathesis they check it with.

SERVER_PID=
SERVER_LOG=
stop_server() {
    if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
        kill "$SERVER_PID" 2>/dev/null || true
    fi
    [ -n "$SERVER_PID" ] && { wait "$SERVER_PID" 2>/dev/null || true; }
    SERVER_PID=
}

# start_server DIR LOG_MESSAGE: the server on a free port with a fresh database in DIR, and in it an order, a device
# registered for it, a change (a push waits in the outbox) and a device log. Sets B, KEY, TYPE, ID, TOKEN and
# exports ST_MERCHANT_KEY and ST_ORDER_TOKEN for schemathesis' configuration.
start_server() {
    local dir=$1 message=$2
    mkdir -p "$dir"
    SERVER_LOG=$dir/server.log
    "$BIN" serve --port 0 --database "$dir/data/orders.sqlite" > "$SERVER_LOG" 2>&1 &
    SERVER_PID=$!
    local port=
    for _ in $(seq 1 300); do
        port=$(sed -n 's|.*serving on http://127\.0\.0\.1:\([0-9]*\).*|\1|p' "$SERVER_LOG" | head -n 1)
        [ -n "$port" ] && break
        kill -0 "$SERVER_PID" 2>/dev/null || { echo "the server exited:" >&2; cat "$SERVER_LOG" >&2; exit 1; }
        sleep 0.2
    done
    [ -n "$port" ] || { echo "the server did not print its port" >&2; exit 1; }
    B=http://127.0.0.1:$port
    KEY=$(cat "$dir/data/merchant-key")
    echo "server on $B (log: $SERVER_LOG)"

    curl -fsS -X POST "$B/api/v1/orders" -H "Authorization: Bearer $KEY" \
        -H 'Content-Type: application/json' -d @Examples/order.json > "$dir/created.json"
    local field='import json,sys; print(json.load(open(sys.argv[1]))["orderDetails"][sys.argv[2]])'
    TYPE=$(python3 -c "$field" "$dir/created.json" orderTypeIdentifier)
    ID=$(python3 -c "$field" "$dir/created.json" orderIdentifier)
    TOKEN=$(python3 -c "$field" "$dir/created.json" authenticationToken)
    curl -fsS -o /dev/null -X POST "$B/v1/devices/contract-device/registrations/$TYPE/$ID" \
        -H "Authorization: AppleOrder $TOKEN" -d '{"pushToken": "0123456789abcdef"}'
    curl -fsS -o /dev/null -X PATCH "$B/api/v1/orders/$TYPE/$ID" -H "Authorization: Bearer $KEY" \
        -H 'Content-Type: application/merge-patch+json' -d '{"statusDescription": "STATUS_SHIPPED"}'
    curl -fsS -o /dev/null -X POST "$B/v1/log" -d "{\"logs\": [\"$message\"]}"
    export ST_MERCHANT_KEY=$KEY ST_ORDER_TOKEN=$TOKEN
}

# Sets ST: a schemathesis 4 `st` on the PATH, else one installed in a venv under .build/; and the hooks it needs for
# the media types of openapi.json it does not know (Tests/contract/hooks.py).
find_schemathesis() {
    export SCHEMATHESIS_HOOKS=$PWD/Tests/contract/hooks.py
    if command -v st > /dev/null 2>&1 && st --version 2>/dev/null | grep -q '^st, version 4'; then
        ST=st
    else
        local venv=.build/schemathesis-venv
        if [ ! -x "$venv/bin/st" ]; then
            python3 -m venv "$venv"
            "$venv/bin/pip" install --quiet 'schemathesis>=4,<5'
        fi
        ST=$venv/bin/st
    fi
    "$ST" --version
}
