#!/usr/bin/env python3
"""After a crash, retries every request the crash client sent with an Idempotency-Key and got no
200 for, with the same key and body at the same store, the way a client would after reconnecting.

Usage: crash-retry.py PORT CLIENT_OUTPUT.json
The output's "unanswered" lists [store, key] pairs (crash-client.py); "default" is the root routes.
Prints "REPLAYED FRESH": how many retries got the kept answer (their actions were committed before
the crash) and how many were processed now. Exits 1 on any answer other than 200.
"""
import http.client
import json
import sys

port, path = int(sys.argv[1]), sys.argv[2]
unanswered = json.load(open(path))["unanswered"]
replayed = fresh = 0
connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
for store, key in unanswered:
    target = "/actions" if store == "default" else f"/stores/{store}/actions"
    connection.request("POST", target, b'{"type":"increase"}',
                       {"Content-Type": "application/json", "Idempotency-Key": key})
    response = connection.getresponse()
    data = response.read()
    if response.status != 200:
        print(f"retry of {key} at {store}: {response.status} {data!r}", file=sys.stderr)
        sys.exit(1)
    if response.getheader("Idempotent-Replayed") == "true":
        replayed += 1
    else:
        fresh += 1
print(replayed, fresh)
