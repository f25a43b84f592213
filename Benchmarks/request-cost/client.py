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

With CLIENTS=N (environment, default 1) the COUNT requests go over N connections at once, each
sending its share in turn (connection c sends requests c, c+N, c+2N, …): a durable server then
commits several requests together, as under load, and a spread path puts each in a part of its
own — what the group commit's parts cost, which one connection (one record a commit) never shows.
The stores the warm-up makes (CREATE_STORES) are made over one connection.
"""
import http.client
import os
import sys
import threading

port, count, method, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
body = sys.argv[5] if len(sys.argv) > 5 and sys.argv[5] else None
headers = {}
for field in sys.argv[6:]:
    name, _, value = field.partition(":")
    headers[name.strip()] = value.strip()
if body is not None:
    headers.setdefault("Content-Type", "application/json")
connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
failures = []
sent = 0


def send(method, path, body, number=None, on=None):
    global sent
    if number is None:
        sent += 1
        number = sent
    fields = {name: value.replace("{i}", f"{os.getpid()}-{number}") for name, value in headers.items()}
    (on or connection).request(method, path, body=body, headers=fields)
    response = (on or connection).getresponse()
    response.read()
    if not 200 <= response.status < 300:
        failures.append(f"{method} {path}: status {response.status}")
        sys.exit(failures[-1])


stores = int(os.environ.get("STORES", "1000")) if "{n}" in path else 1
if "{n}" in path and os.environ.get("CREATE_STORES") == "1":
    for n in range(stores):
        send("PUT", f"/stores/s{n}", None)
        send(method, path.replace("{n}", str(n)), body)
clients = max(1, int(os.environ.get("CLIENTS", "1")))
if clients == 1:
    for i in range(count):
        send(method, path.replace("{n}", str(i % stores)), body)
else:
    def share(c):
        own = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
        for i in range(c, count, clients):
            send(method, path.replace("{n}", str(i % stores)), body, number=sent + 1 + i, on=own)
        own.close()
    threads = [threading.Thread(target=share, args=(c,)) for c in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if failures:
        sys.exit(failures[0])
connection.close()
