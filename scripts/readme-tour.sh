#!/usr/bin/env bash
# Runs the README's tour (every sh block, in order) against a fresh server on a free port and a
# temporary data directory, and compares each output with the one the README shows
# (scripts/readme-tour.py says how). Uses the debug build the test suite made; builds it if
# missing. CI runs it from scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh curl python3
for product in remvvm-server remvvm-client; do
    swift build --product "$product" 2>&1 | grep -E "error|warning:" || true
done
# remvvm-client on the PATH: the tour's "Swift client" commands run it.
BIN=$(swift build --show-bin-path)
PATH="$BIN:$PATH" exec python3 scripts/readme-tour.py "$BIN/remvvm-server" README.md
