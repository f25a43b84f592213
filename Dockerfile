# ReMVVM Server container image.
#
#   docker build -t remvvm-server .
#   docker run --rm -p 8080:8080 remvvm-server
#
# A domain's own server (docs/your-domain.md) builds from this file too, naming its package
# and product:
#
#   docker build --build-arg PACKAGE_PATH=Examples/TodoServer --build-arg PRODUCT=todo-server -t todo-server .
#
# The official base images; a machine that cannot pull them passes local
# stand-ins (scripts/container-base-images.sh makes them, container-test.sh
# passes them: --build-arg BUILDER_IMAGE=… --build-arg RUNTIME_IMAGE=…).
ARG BUILDER_IMAGE=docker.io/library/swift:6.3-bookworm
ARG RUNTIME_IMAGE=docker.io/library/debian:bookworm-slim

# Build stage: Swift 6 toolchain on Debian bookworm, release build with the
# Swift standard library (and Foundation) linked statically.
FROM ${BUILDER_IMAGE} AS build

# libmicrohttpd, SQLite and libpq headers + pkg-config for the CMicroHTTPD, CSQLite and CPostgres
# system library targets.
RUN export DEBIAN_FRONTEND=noninteractive DEBIAN_PRIORITY=critical \
    && apt-get -q update \
    && apt-get -q install -y --no-install-recommends libmicrohttpd-dev libsqlite3-dev libpq-dev pkg-config \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /build

# Resolve dependencies in their own layer: it is only rebuilt when the
# manifest (or Package.resolved, if present) changes. (A domain's package
# depends on this one by path: its own dependencies resolve in the build.)
COPY Package.* ./
RUN swift package resolve

# Then the sources, and the release build of the package (relative to this
# directory) and its executable product the build arguments name.
COPY . .
ARG PACKAGE_PATH=.
ARG PRODUCT=remvvm-server
RUN swift build -c release --package-path "$PACKAGE_PATH" --product "$PRODUCT" --static-swift-stdlib \
    && mkdir -p /staging \
    && cp "$(swift build -c release --package-path "$PACKAGE_PATH" --static-swift-stdlib --show-bin-path)/$PRODUCT" /staging/

# Run stage: only the runtime libraries.
FROM ${RUNTIME_IMAGE}

# libmicrohttpd12: the HTTP server library; libsqlite3-0: the journal; libpq5: the
# shared log of replicas (journal postgres) (everything
# else the binary links, libc, libstdc++ and libgcc_s, is already in the base
# image; check with `ldd /usr/local/bin/$PRODUCT`).
# curl: the HEALTHCHECK's HTTP client.
RUN export DEBIAN_FRONTEND=noninteractive DEBIAN_PRIORITY=critical \
    && apt-get -q update \
    && apt-get -q install -y --no-install-recommends libmicrohttpd12 libsqlite3-0 libpq5 curl \
    && rm -rf /var/lib/apt/lists/*

# Unprivileged user with a fixed numeric id (so `runAsNonRoot` can verify it).
RUN groupadd --system --gid 10001 remvvm \
    && useradd --system --uid 10001 --gid remvvm --home-dir /app --no-create-home \
        --shell /usr/sbin/nologin remvvm

WORKDIR /app
ARG PRODUCT=remvvm-server
COPY --from=build /staging/${PRODUCT} /usr/local/bin/${PRODUCT}
# The entry point's fixed name (an exec-form ENTRYPOINT cannot name a build argument).
RUN ln -s "$PRODUCT" /usr/local/bin/server
# Read-only defaults; the server reads Config/<its name>.json (remvvm-server.json) relative to /app.
COPY Config/ ./Config/
# The journal and snapshots (dataDir ./data): owned by the server's user, and a
# volume, so that data outlives the container (`-v remvvm-data:/app/data`).
RUN mkdir -p /app/data && chown 10001:10001 /app/data
VOLUME /app/data

USER 10001:10001

# Listen on all interfaces inside the container. Any REMVVM_* variable can be
# overridden with `docker run -e`, e.g. -e REMVVM_LOG_LEVEL=debug.
#
# Access control (docs/security.md): without tokens every route is
# open and the server logs a warning at start. No secret belongs in this file or
# in the image; pass them when the container starts:
#   REMVVM_AUTH_TOKENS            static tokens, TOKEN=SCOPE[+SCOPE],... (scopes read, dispatch)
#   REMVVM_AUTH_TOKEN_FILE        or a file of sha256:<hex>=SCOPES lines (hashes only)
#   REMVVM_JWT_HS256_SECRET       HS256 JWT secret, at least 32 bytes
#   REMVVM_JWT_HS256_SECRET_FILE  or a file holding it (e.g. /run/secrets/jwt-hs256)
#   REMVVM_JWT_PUBLIC_KEY_FILE    PEM public key of ES256 or RS256 JWTs
#   REMVVM_JWT_ISSUER, REMVVM_JWT_AUDIENCE, REMVVM_JWT_LEEWAY_SECONDS  optional JWT checks
# e.g. docker run -e REMVVM_AUTH_TOKENS="$READER=read,$WRITER=read+dispatch" ...
# GET /healthz (the HEALTHCHECK below) needs no token.
ENV REMVVM_HOST=0.0.0.0 \
    REMVVM_PORT=8080
EXPOSE 8080

# Follows REMVVM_PORT; change the port with the variable rather than --port.
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 \
    CMD curl -fsS -o /dev/null "http://127.0.0.1:${REMVVM_PORT:-8080}/healthz" || exit 1

# Exec form: the server is PID 1 and receives SIGTERM from `docker stop`
# directly, and shuts down gracefully. Extra arguments go to the server,
# e.g. `docker run remvvm-server --config /app/Config/other.json`.
ENTRYPOINT ["/usr/local/bin/server"]
