#!/usr/bin/env bash
# What the journal's checksums cost at start (docs/journal.md, "Measured"): builds a format-1
# journal of N records (increases, a snapshot at N) with Python's sqlite3, then times, to the
# server's "listening on" line: the first start (the upgrade to format 2 computes N checksums in
# one transaction, then the start's checksum pass reads them), a second start (the pass alone),
# and a start on an empty data directory for reference. Release build; 127.0.0.1 only; every
# server it starts is stopped by its PID.
#
#   scripts/journal-start-bench.sh            # 1,000,000 records
#   JOURNAL_BENCH_RECORDS=100000 scripts/journal-start-bench.sh
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh python3
RECORDS=${JOURNAL_BENCH_RECORDS:-1000000}
swift build -c release --product remvvm-server 2>&1 | grep -E "error|warning:|complete" | tail -1
BIN="$(swift build -c release --show-bin-path)/remvvm-server"
exec python3 - "$BIN" "$RECORDS" <<'PY'
import os, re, signal, sqlite3, subprocess, sys, tempfile, time
binary, records = sys.argv[1], int(sys.argv[2])
work = tempfile.mkdtemp(prefix="remvvm-start-bench.")

def timed_start(data):
    log_path = os.path.join(work, "server.log")
    began = time.monotonic()
    process = subprocess.Popen([binary, "--port", "0", "--data-dir", data, "--log-level", "info"],
                               stdout=subprocess.DEVNULL, stderr=open(log_path, "w"))
    while not re.search(r"listening on http://127\.0\.0\.1:\d+\n", open(log_path).read()):
        if process.poll() is not None:
            sys.exit("the server exited: " + open(log_path).read())
        time.sleep(0.005)
    elapsed = time.monotonic() - began
    process.send_signal(signal.SIGTERM)
    process.wait(timeout=60)
    return elapsed

data = os.path.join(work, "data")
os.mkdir(data)
database = sqlite3.connect(os.path.join(data, "journal.sqlite"))
database.executescript("""
    PRAGMA journal_mode=WAL;
    CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
    INSERT INTO meta VALUES ('format', '1'), ('role', 'single-node');
    CREATE TABLE actions(version INTEGER PRIMARY KEY, type TEXT NOT NULL, payload BLOB NOT NULL, time INTEGER NOT NULL);
    CREATE TABLE snapshots(version INTEGER PRIMARY KEY, state BLOB NOT NULL, time INTEGER NOT NULL);
    CREATE TABLE answers(key TEXT PRIMARY KEY, fingerprint BLOB NOT NULL, status INTEGER NOT NULL, body BLOB NOT NULL, time INTEGER NOT NULL);
    CREATE INDEX answers_by_time ON answers(time);
""")
database.executemany("INSERT INTO actions VALUES (?, 'increase', CAST('{}' AS BLOB), ?)",
                     ((version, 1_700_000_000_000 + version) for version in range(1, records + 1)))
database.execute("INSERT INTO snapshots VALUES (?, CAST(? AS BLOB), 1)", (records, '{"counter":%d,"user":null}' % records))
database.commit()
database.close()
size = os.path.getsize(os.path.join(data, "journal.sqlite"))
print(f"{records:,} records, {size / 1e6:.1f} MB (format 1)")
print(f"first start (upgrade to format 2, then the checksum pass): {timed_start(data):.2f} s")
for run in range(3):
    print(f"start {run + 1} (checksum pass over {records:,} records): {timed_start(data):.2f} s")
empty = os.path.join(work, "empty")
print(f"start on an empty data directory: {timed_start(empty):.2f} s")
subprocess.run(["rm", "-rf", work])
PY
