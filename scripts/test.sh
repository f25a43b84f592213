#!/usr/bin/env bash
# Sets up a fresh Debian machine with Swift and runs the whole test suite.
#   scripts/test.sh           everything (what CI runs)
#   scripts/test.sh --quick   everything but the long load tests (suites named …LoadTests, tag .load)
set -euo pipefail
cd "$(dirname "$0")/.."
# postgresql: the PostgresJournal tests start a throwaway PostgreSQL 15 (Debian's package) on a
# unix socket; they fail, never skip, when it is missing.
scripts/install-deps.sh postgresql
if [ "${1:-}" = "--quick" ]; then
    swift test --skip LoadTests
else
    swift test
fi
