#!/usr/bin/env python3
"""What a fold of the journal's log costs whole and in pieces, in SQLite alone (docs/journal.md,
"The log of recent records"): a file shaped like a long durable run over many stores — ACTIONS
records of STORES stores in `actions`, LOG more in `commit_log` in commit order — folded whole
(one INSERT ... SELECT ... ORDER BY store, version and DELETE FROM commit_log), then in pieces of
PIECE records cut at (store, version) bounds as the server cuts them (each its own transaction;
the last deletes the log's rows by their range), with the server's piece statement and with the
one before its `store BETWEEN` prefilter. Prints the milliseconds of each, medians of ROUNDS fresh
copies. Python's sqlite3 module over the system's libsqlite3, the library the server links.

    Benchmarks/stores/fold-pieces.py [STORES] [ACTIONS] [LOG] [PIECE] [ROUNDS]

Defaults: 1,000 stores, 1,000,000 records, 32,768 in the log (the server's foldThreshold), pieces
of 4,096 (its foldPiece), 3 rounds. Works in a temporary directory.
"""
import os, shutil, sqlite3, statistics, sys, tempfile, time

STORES, ACTIONS, LOG, PIECE, ROUNDS = (int(a) for a in (sys.argv[1:] + ["1000", "1000000", "32768", "4096", "3"][len(sys.argv) - 1:]))
COLUMNS = "store, version, type, payload, time, checksum"
PIECE_SQL = {
    "pieces (the server's statement)": "WHERE seq <= ? AND store BETWEEN ? AND ? AND (store, version) > (?, ?) AND (store, version) <= (?, ?)",
    "pieces without `store BETWEEN`": "WHERE seq <= ? AND (store, version) > (?, ?) AND (store, version) <= (?, ?)",
}


def make(path):
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("CREATE TABLE actions(store INTEGER NOT NULL, version INTEGER NOT NULL, type TEXT NOT NULL, payload BLOB NOT NULL, time INTEGER NOT NULL, checksum INTEGER NOT NULL, PRIMARY KEY(store, version)) WITHOUT ROWID")
    db.execute("CREATE TABLE commit_log(seq INTEGER PRIMARY KEY, store INTEGER NOT NULL, version INTEGER NOT NULL, type TEXT NOT NULL, payload BLOB NOT NULL, time INTEGER NOT NULL, checksum INTEGER NOT NULL)")
    per_store = ACTIONS // STORES
    db.execute("BEGIN")
    db.executemany("INSERT INTO actions VALUES (?, ?, 'increase', X'7B7D', ?, ?)",
                   ((s, v, 1_700_000_000_000 + v, v) for s in range(STORES) for v in range(1, per_store + 1)))
    db.executemany("INSERT INTO commit_log VALUES (?, ?, ?, 'increase', X'7B7D', ?, ?)",
                   ((i + 1, i % STORES, per_store + 1 + i // STORES, 1_700_000_000_000 + i, i) for i in range(LOG)))
    db.execute("COMMIT")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()


def piece_ends():
    rows = sorted((i % STORES, 1 + ACTIONS // STORES + i // STORES) for i in range(LOG))
    ends = [rows[k - 1] for k in range(PIECE, LOG, PIECE)]
    return ends + [(2**63 - 1, 2**63 - 1)]


def whole(db):
    db.execute("BEGIN")
    db.execute(f"INSERT OR FAIL INTO actions({COLUMNS}) SELECT {COLUMNS} FROM commit_log WHERE seq <= ? ORDER BY store, version", (LOG,))
    db.execute("DELETE FROM commit_log")
    db.execute("COMMIT")


def pieces(condition, prefilter, ends):
    """A fold in pieces ending at `ends` (computed before the clock starts)."""
    def run(db):
        moved = (-2**63, -2**63)
        for index, end in enumerate(ends):
            db.execute("BEGIN")
            arguments = (LOG, moved[0], end[0]) + moved + end if prefilter else (LOG,) + moved + end
            db.execute(f"INSERT OR FAIL INTO actions({COLUMNS}) SELECT {COLUMNS} FROM commit_log {condition} ORDER BY store, version", arguments)
            if index == len(ends) - 1:
                db.execute("DELETE FROM commit_log WHERE seq <= ?", (LOG,))
            db.execute("COMMIT")
            moved = end
    return run


def main():
    work = tempfile.mkdtemp(prefix="fold-pieces.")
    try:
        original = os.path.join(work, "original.sqlite")
        make(original)
        ends = piece_ends()
        ways = {"whole": whole}
        for name, condition in PIECE_SQL.items():
            ways[name] = pieces(condition, "BETWEEN" in condition, ends)
        times = {name: [] for name in ways}
        for _ in range(ROUNDS):
            for name, way in ways.items():
                copy = os.path.join(work, "copy.sqlite")
                shutil.copyfile(original, copy)
                db = sqlite3.connect(copy, isolation_level=None)
                db.execute("PRAGMA journal_mode=WAL")
                db.execute("PRAGMA synchronous=NORMAL")
                start = time.perf_counter()
                way(db)
                times[name].append((time.perf_counter() - start) * 1000)
                left = db.execute("SELECT count(*) FROM commit_log").fetchone()[0]
                moved = db.execute("SELECT count(*) FROM actions").fetchone()[0]
                assert left == 0 and moved == ACTIONS // STORES * STORES + LOG, (name, left, moved)
                db.close()
                os.remove(copy)
        print(f"fold of {LOG:,} records of {STORES:,} stores into {ACTIONS:,} (pieces of {PIECE:,}: {len(ends)}), medians of {ROUNDS}:")
        for name, values in times.items():
            print(f"  {name:<34} {statistics.median(values):7.1f} ms   ({', '.join(f'{v:.1f}' for v in values)})")
    finally:
        shutil.rmtree(work)


main()
