#!/usr/bin/env bash
# Runs `wallet-orders conformance` against an order service we did not write: vapor-community/wallet 0.7.1
# (VaporWalletOrders), set up as its "Getting Started with Orders" guide says, in conformance/vapor-wallet/.
#
#   conformance/vapor-wallet.sh            # builds wallet-orders and the example, runs both, prints the kit's report
#
# Not part of `make test`: it builds Vapor and the library's dependencies (many minutes on two cores). Their source
# comes through SwiftPM as usual; where a machine has no network, MIRRORS names a folder of git clones laid out as
# owner+name/repo (the repositories SwiftPM cannot find otherwise are pointed there with `swift package config
# set-mirror`). The report, the JUnit file and the service's log are left in WORK.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
WORK=${WORK:-$REPO/.build/conformance-vapor}
MIRRORS=${MIRRORS:-/work/.mirror}
SERVICE_PORT=${SERVICE_PORT:-18443}
APNS_PORT=${APNS_PORT:-12197}
NICE=${NICE:-nice -n 10}

mkdir -p "$WORK"
echo "== building wallet-orders"
(cd "$REPO" && $NICE swift build --product wallet-orders >"$WORK/build-wallet-orders.log" 2>&1) || {
  tail -30 "$WORK/build-wallet-orders.log"; exit 1; }
KIT="$REPO/.build/debug/wallet-orders"

echo "== building the example service (vapor-community/wallet 0.7.1)"
mkdir -p "$WORK/app" && cp -R "$REPO/conformance/vapor-wallet/." "$WORK/app/"
mkdir -p "$WORK/mirrors"
for repository in vapor-community/wallet fpseverino/fluent-wallet fpseverino/swift-wallet vapor/apns \
  swift-server-community/APNSwift adam-fowler/swift-zip-archive; do
  clone="$MIRRORS/${repository/\//+}/repo"
  [ -d "$clone" ] || continue
  # SwiftPM names a package after the last component of its URL: a link named after the repository keeps it.
  ln -sfn "$clone" "$WORK/mirrors/${repository#*/}"
  for url in "https://github.com/$repository.git" "https://github.com/$repository"; do
    (cd "$WORK/app" && swift package config set-mirror --original "$url" --mirror "$WORK/mirrors/${repository#*/}")
  done
done
(cd "$WORK/app" && $NICE swift build >"$WORK/build-example.log" 2>&1) || {
  echo "the example service does not build:"; grep -E "error:" "$WORK/build-example.log" | head -20 || tail -30 "$WORK/build-example.log"; exit 1; }
EXAMPLE="$WORK/app/.build/debug/VaporOrdersExample"

echo "== keys: a development chain for the order type, TLS for the service and for the kit's local APNs"
# A CA and a certificate it issued for 127.0.0.1: $1/$2-ca.pem, $1/$2.pem, $1/$2.key.
certificates() {
  mkdir -p "$1"
  openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=$2 CA" -keyout "$1/$2-ca.key" -out "$1/$2-ca.pem" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign" 2>/dev/null
  openssl req -newkey rsa:2048 -nodes -subj "/CN=127.0.0.1" -keyout "$1/$2.key" -out "$1/$2.csr" 2>/dev/null
  openssl x509 -req -in "$1/$2.csr" -CA "$1/$2-ca.pem" -CAkey "$1/$2-ca.key" -CAcreateserial -days 2 -out "$1/$2.pem" \
    -extfile <(printf "subjectAltName=IP:127.0.0.1,DNS:localhost") 2>/dev/null
}
rm -rf "$WORK/keys" "$WORK/apns" && "$KIT" keys dev --out "$WORK/keys" >/dev/null
certificates "$WORK/keys" tls
"$KIT" conformance --make-apns-tls --apns-tls-folder "$WORK/apns" >/dev/null
mkdir -p "$WORK/SourceFiles" && cp "$REPO/OrderTemplates/sample/logo.png" "$WORK/SourceFiles/"
# The library's APNs client trusts the system's roots only: the service runs in a mount namespace of its own where the
# system's CA bundle also holds the local APNs' CA.
cat /etc/ssl/certs/ca-certificates.crt "$WORK/apns/local-apns-ca.pem" > "$WORK/ca-bundle.crt"

echo "== starting the example service on https://127.0.0.1:$SERVICE_PORT"
PUBLIC_URL="https://127.0.0.1:$SERVICE_PORT" PORT=$SERVICE_PORT APNS_PORT=$APNS_PORT \
ORDER_TYPE_IDENTIFIER=order.com.example.dev SOURCE_FILES="$WORK/SourceFiles/" \
PEM_WWDR_CERTIFICATE="$WORK/keys/wwdr.pem" PEM_CERTIFICATE="$WORK/keys/order-type.pem" PEM_PRIVATE_KEY="$WORK/keys/order-type.key" \
TLS_CERTIFICATE="$WORK/keys/tls.pem" TLS_KEY="$WORK/keys/tls.key" \
  unshare --mount sh -c 'mount --bind "$0" /etc/ssl/certs/ca-certificates.crt && exec "$1" serve' \
  "$WORK/ca-bundle.crt" "$EXAMPLE" >"$WORK/service.log" 2>&1 &
SERVICE=$!
trap 'kill $SERVICE 2>/dev/null || true; wait $SERVICE 2>/dev/null || true' EXIT
for _ in $(seq 1 120); do
  curl -s --cacert "$WORK/keys/tls-ca.pem" -o /dev/null "https://127.0.0.1:$SERVICE_PORT/" && break
  kill -0 $SERVICE 2>/dev/null || { cat "$WORK/service.log"; exit 1; }
  sleep 0.5
done

MERCHANT="curl -sf --cacert $WORK/keys/tls-ca.pem -X POST https://127.0.0.1:$SERVICE_PORT/merchant/orders"
$MERCHANT > "$WORK/created.json"
ID=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["orderDetails"]["orderIdentifier"])' "$WORK/created.json")
COMMAND=("$KIT" conformance --order-details "$WORK/created.json" --ca "$WORK/keys/root-ca.pem" --https-ca "$WORK/keys/tls-ca.pem"
  --update "$MERCHANT/$ID/rename" --unchanged-update "$MERCHANT/$ID/save"
  --apns "127.0.0.1:$APNS_PORT" --apns-tls-folder "$WORK/apns" --push-deadline 20 --junit "$WORK/report.xml")
echo "== ${COMMAND[*]}" | sed "s|$WORK|\$WORK|g; s|$REPO/||g"
set +e
"${COMMAND[@]}" | tee "$WORK/report.txt"
STATUS=${PIPESTATUS[0]}
set -e
echo "== the kit exited $STATUS; report in $WORK/report.txt, JUnit in $WORK/report.xml, the service's log in $WORK/service.log"
