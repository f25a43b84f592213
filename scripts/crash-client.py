#!/usr/bin/env python3
"""Posts {"type":"increase"} from many keep-alive connections until the time runs out, whether the
server is up or not (the crash test kills it meanwhile).

Usage: crash-client.py PORT CLIENTS SECONDS OUTPUT.json [KEY_PREFIX] [--stores ID,ID,...]
Without --stores every request goes to the root routes (the store default). With --stores, client
i's n-th request goes to store number (i + n) modulo their count (POST /stores/{id}/actions), so
every store gets writes from many connections; "default" in the list means the root routes.
Writes {"acknowledged": {store: [versions answered 200]}, "errors": N} to OUTPUT.json. With
KEY_PREFIX, every request carries an Idempotency-Key (KEY_PREFIX-client-n), a request that gets no
200 is retried with the same key at the same store (as a careful client does), and the output adds
"keys" ({store: [every key sent to it]}) and "unanswered" ([[store, key], ...]: keys still without a
200 when the time ran out). Standard library only.
"""
import http.client
import json
import sys
import threading
import time

arguments = sys.argv[1:]
stores = ["default"]
if "--stores" in arguments:
    at = arguments.index("--stores")
    stores = arguments[at + 1].split(",")
    del arguments[at:at + 2]
port, clients, seconds, output = int(arguments[0]), int(arguments[1]), float(arguments[2]), arguments[3]
prefix = arguments[4] if len(arguments) > 4 else None
deadline = time.monotonic() + seconds
acknowledged = {store: [] for store in stores}
keys = {store: [] for store in stores}
unanswered = []
errors = 0
lock = threading.Lock()
body = b'{"type":"increase"}'


def actions_path(store):
    """The path of a store's actions: the root route for default."""
    return "/actions" if store == "default" else f"/stores/{store}/actions"


def client(index):
    global errors
    connection = None
    sent = 0
    key = None
    store = None
    while time.monotonic() < deadline:
        headers = {"Content-Type": "application/json"}
        if key is None:
            # A new request: the next store (a retry keeps its store and its key).
            store = stores[(index + sent) % len(stores)]
            if prefix is not None:
                key = f"{prefix}-{index}-{sent}"
                with lock:
                    keys[store].append(key)
            sent += 1
        if key is not None:
            headers["Idempotency-Key"] = key
        try:
            if connection is None:
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            connection.request("POST", actions_path(store), body, headers)
            response = connection.getresponse()
            data = response.read()
            if response.status == 200:
                version = json.loads(data)["version"]
                key = None
                with lock:
                    acknowledged[store].append(version)
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
            unanswered.append([store, key])


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
