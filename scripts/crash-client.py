#!/usr/bin/env python3
"""Posts {"type":"increase"} from many keep-alive connections until the server goes away.

Usage: crash-client.py PORT CLIENTS SECONDS OUTPUT.json [KEY_PREFIX]
Posts to /actions, or to the path in CRASH_CLIENT_PATH (a store's: /stores/ID/actions). Writes {"acknowledged": [versions answered 200], "errors": N} to OUTPUT.json. With KEY_PREFIX,
every request carries an Idempotency-Key (KEY_PREFIX-thread-n), a request that gets no 200 is
retried with the same key (as a careful client does), and the output adds "keys" (every key
sent) and "unanswered" (keys still without a 200 when the time ran out). Standard library only.
"""
import http.client
import json
import os
import sys
import threading
import time

port, clients, seconds, output = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
prefix = sys.argv[5] if len(sys.argv) > 5 else None
deadline = time.monotonic() + seconds
acknowledged = []
keys = []
unanswered = []
errors = 0
lock = threading.Lock()
body = b'{"type":"increase"}'
path = os.environ.get("CRASH_CLIENT_PATH", "/actions")


def client(index):
    global errors
    connection = None
    sent = 0
    key = None
    while time.monotonic() < deadline:
        headers = {"Content-Type": "application/json"}
        if prefix is not None:
            if key is None:
                key = f"{prefix}-{index}-{sent}"
                sent += 1
                with lock:
                    keys.append(key)
            headers["Idempotency-Key"] = key
        try:
            if connection is None:
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            connection.request("POST", path, body, headers)
            response = connection.getresponse()
            data = response.read()
            if response.status == 200:
                version = json.loads(data)["version"]
                key = None
                with lock:
                    acknowledged.append(version)
            else:
                with lock:
                    errors += 1
                time.sleep(0.01)  # a client's pause before it retries (503 says Retry-After)
        except (OSError, http.client.HTTPException):
            # The server was killed (or is restarting): what was not answered 200 was not promised.
            with lock:
                errors += 1
            if connection is not None:
                connection.close()
            connection = None
            time.sleep(0.01)
    if key is not None:
        with lock:
            unanswered.append(key)


threads = [threading.Thread(target=client, args=(index,)) for index in range(clients)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
result = {"acknowledged": acknowledged, "errors": errors}
if prefix is not None:
    result["keys"] = keys
    result["unanswered"] = unanswered
with open(output, "w") as file:
    json.dump(result, file)
