#!/usr/bin/env bash
# Sets up a fresh Debian machine with Swift and runs the whole test suite.
#   scripts/test.sh           everything (what CI runs)
#   scripts/test.sh --quick   everything but the long load tests (suites named …LoadTests, tag .load)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
if [ "${1:-}" = "--quick" ]; then
    swift test --skip LoadTests
else
    swift test
fi
