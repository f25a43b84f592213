#!/usr/bin/env python3
"""The crash test's checks after a restart, store by store (scripts/crash-test.sh).

Usage: crash-check.py PORT CLIENT_OUTPUT.json BASES.json CYCLE [--keyed]
For every store the crash client wrote to ("default" is the root routes): the restored version is
at least the newest one acknowledged with 200 (a store never acknowledged may be absent: version
0); the state is a replay of its journal (every action is an increase: counter == version). With
--keyed, it then retries the requests still unanswered (scripts/crash-retry.py) and checks that
every key was applied exactly once: each store's version is its version before the cycle (in
BASES.json, 0 when missing) plus the keys sent to it. Last, one more action per store must get
the next version. BASES.json is rewritten with each store's version after that action.
Prints a line for the log and then "ACKNOWLEDGED KEYS"; on a failure prints FAIL lines and exits 1.
"""
import http.client
import json
import os
import subprocess
import sys

port, output, bases_path, cycle = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
keyed = "--keyed" in sys.argv[5:]
client = json.load(open(output))
bases = json.load(open(bases_path)) if os.path.exists(bases_path) else {}
stores = sorted(client["acknowledged"])
connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
failures = []


def path(store, route):
    return f"/{route}" if store == "default" else f"/stores/{store}/{route}"


def state(store):
    """(version, counter) of a store now; (0, 0) for a store that does not exist."""
    connection.request("GET", path(store, "state"))
    response = connection.getresponse()
    body = response.read()
    if response.status == 404 and b"store-not-found" in body:
        return 0, 0
    if response.status != 200:
        raise SystemExit(f"FAIL cycle {cycle}: GET {path(store, 'state')} answered {response.status} {body!r}")
    version = int(response.getheader("ETag").strip('"').split("-")[0])
    return version, json.loads(body)["counter"]


acknowledged = sum(len(versions) for versions in client["acknowledged"].values())
newest_everywhere = 0
restored = {}
for store in stores:
    newest = max(client["acknowledged"][store], default=0)
    newest_everywhere = max(newest_everywhere, newest)
    version, counter = state(store)
    restored[store] = version
    if version < newest:
        failures.append(f"FAIL cycle {cycle}: {store} restored at version {version} < newest acknowledged {newest}")
    if counter != version:
        failures.append(f"FAIL cycle {cycle}: {store}'s state is not a replay of its journal (counter {counter}, version {version})")

detail = ""
keys = 0
if keyed and not failures:
    retry = subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), "crash-retry.py"), str(port), output],
                           capture_output=True, text=True)
    if retry.returncode != 0:
        failures.append(f"FAIL cycle {cycle}: a retry with its Idempotency-Key was not answered 200: {retry.stderr.strip()}")
    else:
        replayed, fresh = retry.stdout.split()
        for store in stores:
            sent = len(client["keys"][store])
            keys += sent
            version, _ = state(store)
            base = bases.get(store, 0)
            if version != base + sent:
                failures.append(f"FAIL cycle {cycle}: {sent} keyed requests moved {store} from {base} to {version}, not to {base + sent}")
        detail = f", {keys} keys each applied once ({replayed} unanswered retries replayed, {fresh} processed after the restart)"

if not failures:
    for store in stores:
        version, _ = state(store)
        connection.request("POST", path(store, "actions"), b'{"type":"increase"}', {"Content-Type": "application/json"})
        response = connection.getresponse()
        body = response.read()
        following = json.loads(body).get("version") if response.status == 200 else None
        if following != version + 1:
            failures.append(f"FAIL cycle {cycle}: {store}'s next version is {following} ({response.status}), not {version + 1}")
        bases[store] = following

if failures:
    print("\n".join(failures[:20]), file=sys.stderr)
    sys.exit(1)
with open(bases_path, "w") as file:
    json.dump(bases, file)
where = "" if stores == ["default"] else f" over {len(stores)} stores"
lowest, highest = min(restored.values()), max(restored.values())
versions = f"restored {lowest}" if len(stores) == 1 else f"restored versions {lowest}..{highest}"
print(f"cycle {cycle}: {acknowledged} acknowledged{where} (newest {newest_everywhere}), {versions}, "
      f"each state a replay{detail}, next versions follow")
print(acknowledged, keys)
