#!/usr/bin/env bash
# Corruption test of the journal: N random single-byte flips of a stopped server's journal.sqlite
# (600 versions, snapshots every 100; every tenth flip aimed at the newest snapshot's state).
# Each copy is started: every outcome must be a refusal that names the file (and that remvvm-server verify also calls damaged), a documented skip (a damaged
# snapshot passed over, GET /state and GET /actions unchanged), or an unchanged state and action
# log compared with the undamaged copy: never a silent change. Prints the seed and the count of
# each outcome; stops starting new flips after CORRUPTION_SECONDS (default 150).
#
#   scripts/corruption-test.sh                          # 100 flips, a new seed (printed)
#   CORRUPTION_SEED=32 CORRUPTION_FLIPS=400 scripts/corruption-test.sh
#
# Every server it starts is stopped by its PID; it uses 127.0.0.1 only.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh python3
FLIPS=${CORRUPTION_FLIPS:-100}
SEED=${CORRUPTION_SEED:-$(( (RANDOM << 15) | RANDOM ))}
SECONDS_LIMIT=${CORRUPTION_SECONDS:-150}
swift build --product remvvm-server 2>&1 | grep -E "error|warning:|complete" | tail -1
BIN="$(swift build --show-bin-path)/remvvm-server"
exec python3 scripts/corruption-test.py "$BIN" "$FLIPS" "$SEED" "$SECONDS_LIMIT"
