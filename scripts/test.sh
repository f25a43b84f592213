#!/usr/bin/env bash
# Sets up a fresh Debian machine with Swift and runs the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift test
