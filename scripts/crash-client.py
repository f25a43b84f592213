#!/usr/bin/env python3
"""Posts {"type":"increase"} from many keep-alive connections until the server goes away.

Usage: crash-client.py PORT CLIENTS SECONDS OUTPUT.json
Writes {"acknowledged": [versions answered 200], "errors": N} to OUTPUT.json. Standard library only.
"""
import http.client
import json
import sys
import threading
import time

port, clients, seconds, output = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
deadline = time.monotonic() + seconds
acknowledged = []
errors = 0
lock = threading.Lock()
body = b'{"type":"increase"}'


def client():
    global errors
    connection = None
    while time.monotonic() < deadline:
        try:
            if connection is None:
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            connection.request("POST", "/actions", body, {"Content-Type": "application/json"})
            response = connection.getresponse()
            data = response.read()
            if response.status == 200:
                version = json.loads(data)["version"]
                with lock:
                    acknowledged.append(version)
            else:
                with lock:
                    errors += 1
        except (OSError, http.client.HTTPException):
            # The server was killed (or is restarting): what was not answered 200 was not promised.
            with lock:
                errors += 1
            if connection is not None:
                connection.close()
            connection = None
            time.sleep(0.01)


threads = [threading.Thread(target=client) for _ in range(clients)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
with open(output, "w") as file:
    json.dump({"acknowledged": acknowledged, "errors": errors}, file)
