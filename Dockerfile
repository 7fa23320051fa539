# Build: the Swift toolchain image, the system libraries' headers, a release build with the Swift runtime linked in.
FROM swift:6.2-bookworm AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      pkg-config libssl-dev libcurl4-openssl-dev libzip-dev libsqlite3-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY Package.swift ./
COPY Sources ./Sources
COPY Benchmarks ./Benchmarks
# SwiftPM refuses a manifest whose test targets' folders are missing, though none of them is built here.
COPY Tests ./Tests
RUN swift build -c release --product wallet-orders --static-swift-stdlib \
 && mkdir -p /out \
 && cp .build/release/wallet-orders /out/ \
 && cp -R .build/release/*.resources /out/

# Run: slim Debian with only the runtime libraries, a user without privileges, data and keys as volumes.
FROM debian:bookworm-slim
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      ca-certificates curl libssl3 libcurl4 libzip4 libsqlite3-0 libstdc++6 zlib1g \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --home-dir /app --shell /usr/sbin/nologin wallet-orders \
 && mkdir -p /data /keys \
 && chown wallet-orders /data
WORKDIR /app
COPY --from=build /out/ /app/
COPY OrderTemplates /app/OrderTemplates
COPY Examples /app/Examples
USER wallet-orders
# SQLite in the /data volume unless WALLET_ORDERS_DATABASE names PostgreSQL (docker-compose.yml does).
ENV WALLET_ORDERS_HOST=0.0.0.0 \
    WALLET_ORDERS_PORT=8080 \
    WALLET_ORDERS_DATABASE=/data/wallet-orders.sqlite
VOLUME ["/data"]
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=3s CMD curl -fsS http://127.0.0.1:8080/healthz || exit 1
STOPSIGNAL SIGTERM
ENTRYPOINT ["/app/wallet-orders"]
CMD ["serve"]
