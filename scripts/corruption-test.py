#!/usr/bin/env python3
"""Single-byte flips of a stopped server's journal: each outcome must be a refusal naming the
damage, a documented skip (a damaged snapshot passed over, the state unchanged), or an unchanged
state and action log; never a silent change. Called by scripts/corruption-test.sh."""
import json
import os
import random
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

BIN, FLIPS, SEED, LIMIT = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
WORK = tempfile.mkdtemp(prefix="remvvm-corruption.")
started = time.monotonic()
server = None


def start(data):
    """Starts the server on `data`; returns (process, port, log path), port None if it exited."""
    log_path = os.path.join(WORK, "server.log")
    log = open(log_path, "w")
    process = subprocess.Popen([BIN, "--port", "0", "--data-dir", data, "--log-level", "info", "--snapshot-every", "100"],
                               stdout=subprocess.DEVNULL, stderr=log)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        text = open(log_path).read()
        match = re.search(r"listening on http://127\.0\.0\.1:(\d+)\n", text)
        if match:
            return process, int(match.group(1)), log_path
        if process.poll() is not None:
            return process, None, log_path
        time.sleep(0.02)
    process.kill()
    process.wait()
    sys.exit("FAIL: the server neither listened nor exited within 30 s:\n" + open(log_path).read())


def stop(process):
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        sys.exit("FAIL: the server did not stop within 15 s of SIGTERM")


def get(port, path):
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as response:
            return response.status, response.headers.get("ETag"), response.read()
    except urllib.error.HTTPError as error:
        return error.code, None, error.read()


def post(port, body):
    request = urllib.request.Request(f"http://127.0.0.1:{port}/actions", data=body.encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.status == 200


def observe(port):
    """GET /state (body and ETag) and every page of GET /actions."""
    status, etag, state = get(port, "/state")
    pages, since = [], 0
    while True:
        status_actions, _, body = get(port, f"/actions?since={since}&limit=1000")
        pages.append((status_actions, body))
        if status_actions != 200:
            break
        actions = json.loads(body)["actions"]
        if not actions:
            break
        since = actions[-1]["version"]
    return (status, etag, state), pages


# The journal: 600 versions of increases, logins with payloads and logouts, a snapshot every 100.
pristine = os.path.join(WORK, "pristine")
process, port, log_path = start(pristine)
assert port, open(log_path).read()
for version in range(1, 601):
    kind = version % 7
    if kind == 3:
        post(port, json.dumps({"type": "login", "payload": {"firstName": f"Ada {version}", "lastName": "Lovelace"}}))
    elif kind == 5:
        post(port, '{"type":"logout"}')
    else:
        post(port, '{"type":"increase"}')
stop(process)
# What an undamaged copy serves.
process, port, _ = start(shutil.copytree(pristine, os.path.join(WORK, "reference")))
reference = observe(port)
stop(process)
journal = os.path.join(pristine, "journal.sqlite")
size = os.path.getsize(journal)

# Every tenth flip lands in the newest snapshot's state (the one a start uses): a uniform flip
# would hit those few dozen bytes too rarely to try the skip.
with sqlite3.connect(f"file:{journal}?mode=ro", uri=True) as database:
    newest = database.execute("SELECT state FROM snapshots ORDER BY version DESC LIMIT 1").fetchone()[0]
with open(journal, "rb") as file:
    content = file.read()
states = [match.span() for match in re.finditer(re.escape(newest), content)]
rng = random.Random(SEED)
print(f"seed {SEED}: {FLIPS} flips of {journal} ({size} bytes, 600 versions; every tenth in the "
      f"newest snapshot's state, found {len(states)} time(s) in the file)")
counts = {"refused naming the damage": 0, "snapshot skipped, state unchanged": 0, "unchanged": 0}
failures = []
done = 0
for flip in range(FLIPS):
    if time.monotonic() - started > LIMIT:
        print(f"time limit of {LIMIT:.0f} s reached after {done} flips")
        break
    if flip % 10 == 9 and states:
        low, high = states[0]
        offset = rng.randrange(low, high)
    else:
        offset = rng.randrange(size)
    mask = rng.randrange(1, 256)
    trial = os.path.join(WORK, f"trial-{flip}")
    shutil.copytree(pristine, trial)
    path = os.path.join(trial, "journal.sqlite")
    with open(path, "r+b") as file:
        file.seek(offset)
        byte = file.read(1)[0]
        file.seek(offset)
        file.write(bytes([byte ^ mask]))
    what = f"flip {flip}: byte {offset} ^ 0x{mask:02x}"
    process, port, log_path = start(trial)
    log = open(log_path).read()
    if port is None:
        # Refused: the log must name the file, and verify must call it damaged too.
        if path not in log and trial not in log:
            failures.append(f"{what}: refused without naming the file:\n{log}")
        else:
            verify = subprocess.run([BIN, "verify", trial], capture_output=True, text=True)
            if verify.returncode == 0:
                failures.append(f"{what}: the server refused to start but verify calls it sound:\n{log}\n{verify.stdout}")
            else:
                counts["refused naming the damage"] += 1
    else:
        seen = observe(port)
        stop(process)
        log = open(log_path).read()
        if seen != reference:
            failures.append(f"{what}: SILENT CHANGE: state {seen[0][:2]} vs {reference[0][:2]}\n{log}")
        elif re.search(r"snapshot\(s\) of version [0-9, ]+ do not match their checksums .* are skipped", log):
            counts["snapshot skipped, state unchanged"] += 1
        else:
            counts["unchanged"] += 1
    shutil.rmtree(trial)
    done += 1

for outcome, count in counts.items():
    print(f"{count:4d}  {outcome}")
for failure in failures:
    print("FAIL " + failure)
shutil.rmtree(WORK)
if failures:
    sys.exit(f"FAIL: {len(failures)} of {done} flips (seed {SEED})")
print(f"PASS: {done} single-byte flips, none changed the state or the action log silently "
      f"({time.monotonic() - started:.0f} s, seed {SEED})")
