#!/usr/bin/env bash
# Sets up a fresh Debian machine with Swift and starts remvvm-server on its defaults
# (http://127.0.0.1:8080, Config/remvvm-server.json). Extra arguments go to the server,
# e.g. scripts/start.sh --port 9090. Stop it with Ctrl-C.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift build -c release --product remvvm-server
exec .build/release/remvvm-server "$@"
