#!/usr/bin/env bash
# Runs the README's tour (every sh block, in order) against a fresh server on a free port and a
# temporary data directory, and compares each output with the one the README shows
# (scripts/readme-tour.py says how). Uses the debug build the test suite made; builds it if
# missing. CI runs it from scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh curl python3
swift build --product remvvm-server 2>&1 | grep -E "error|warning:" || true
exec python3 scripts/readme-tour.py "$(swift build --show-bin-path)/remvvm-server" README.md
