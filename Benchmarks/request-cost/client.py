#!/usr/bin/env python3
"""Sends COUNT requests of one kind on one keep-alive connection and checks every answer is 2xx.

    client.py PORT COUNT METHOD PATH [BODY] [HEADER:VALUE ...]

Used by request-cost.sh: the server runs under callgrind, so the client's own speed does not
matter, only that it sends exactly COUNT requests and reads every answer.

A PATH with `{n}` spreads the requests over STORES stores (environment, default 1,000): request i
goes to the path with `{n}` replaced by i mod STORES. With CREATE_STORES=1 each of those stores is
first made (PUT /stores/s<n>) and sent one request, so that the COUNT requests that follow find
every store loaded (request-cost.sh sets it for the warm-up only).

A HEADER value with `{i}` gets a value of its own for every request: `{i}` is replaced by this
client's process id and the request's number (e.g. an `Idempotency-Key` the server has not seen).
"""
import http.client
import os
import sys

port, count, method, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
body = sys.argv[5] if len(sys.argv) > 5 and sys.argv[5] else None
headers = {}
for field in sys.argv[6:]:
    name, _, value = field.partition(":")
    headers[name.strip()] = value.strip()
if body is not None:
    headers.setdefault("Content-Type", "application/json")
connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)


sent = 0


def send(method, path, body):
    global sent
    sent += 1
    fields = {name: value.replace("{i}", f"{os.getpid()}-{sent}") for name, value in headers.items()}
    connection.request(method, path, body=body, headers=fields)
    response = connection.getresponse()
    response.read()
    if not 200 <= response.status < 300:
        sys.exit(f"{method} {path}: status {response.status}")


stores = int(os.environ.get("STORES", "1000")) if "{n}" in path else 1
if "{n}" in path and os.environ.get("CREATE_STORES") == "1":
    for n in range(stores):
        send("PUT", f"/stores/s{n}", None)
        send(method, path.replace("{n}", str(n)), body)
for i in range(count):
    send(method, path.replace("{n}", str(i % stores)), body)
connection.close()
