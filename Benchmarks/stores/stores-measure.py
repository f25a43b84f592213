#!/usr/bin/env python3
"""Measures a remvvm-server serving many stores (scripts/stores-bench.sh runs it).

  stores-measure.py memory   PORT PID STORES   RSS per loaded store
  stores-measure.py first    PORT COUNT        first request to a created, unloaded store
  stores-measure.py quiet    PORT SECONDS      POST latencies to one store, for SECONDS
  stores-measure.py fill     PORT COUNT RECORDS  creates COUNT stores j0..j{COUNT-1} and gives
                                               each RECORDS actions (POSTs of 100 actions)
  stores-measure.py reload   PORT COUNT RECORDS  first GET of each of j0..j{COUNT-1} after a restart
                                               (the store's snapshot and journal records read)
  stores-measure.py touch    PORT PID FROM TO  one POST to each of t{FROM}..t{TO-1} (created by the
                                               POST: autoCreateStores on), then the RSS

Every request goes over one keep-alive connection to 127.0.0.1; latencies are wall-clock times
of whole requests (send to last byte of the answer), printed as p50/p99 in milliseconds.
"""
import http.client
import sys
import time


def rss_bytes(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS")


def threads(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("Threads:"):
                return int(line.split()[1])
    return 0


def request(connection, method, path, body=None):
    headers = {"Content-Type": "application/json"} if body else {}
    started = time.perf_counter()
    connection.request(method, path, body=body, headers=headers)
    response = connection.getresponse()
    response.read()
    elapsed = time.perf_counter() - started
    if response.status >= 300:
        raise RuntimeError(f"{method} {path}: {response.status}")
    return elapsed


def percentiles(samples):
    ordered = sorted(samples)
    def at(fraction):
        return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] * 1000
    return f"p50 {at(0.50):.3f} ms, p99 {at(0.99):.3f} ms, max {ordered[-1] * 1000:.3f} ms (n={len(ordered)})"


def memory(port, pid, count):
    connection = http.client.HTTPConnection("127.0.0.1", port)
    request(connection, "GET", "/state")
    before, threads_before = rss_bytes(pid), threads(pid)
    for index in range(count):
        request(connection, "PUT", f"/stores/s{index}")
    created = rss_bytes(pid)
    for index in range(count):
        request(connection, "POST", f"/stores/s{index}/actions", b'{"type":"increase"}')
    loaded, threads_after = rss_bytes(pid), threads(pid)
    print(f"stores: {count}; RSS before {before / 2**20:.1f} MiB, created (not loaded) {created / 2**20:.1f} MiB, "
          f"loaded with one action each {loaded / 2**20:.1f} MiB")
    print(f"per created, unloaded store: {(created - before) / count:.0f} bytes; "
          f"per loaded store: {(loaded - created) / count:.0f} bytes; threads {threads_before} -> {threads_after}")


def first(port, count):
    connection = http.client.HTTPConnection("127.0.0.1", port)
    firsts, hits = [], []
    for index in range(count):
        request(connection, "PUT", f"/stores/f{index}")
        firsts.append(request(connection, "GET", f"/stores/f{index}/state"))
        hits.append(request(connection, "GET", f"/stores/f{index}/state"))
    print(f"first GET /stores/{{id}}/state of a created store (load): {percentiles(firsts)}")
    print(f"second GET of the same store (loaded): {percentiles(hits)}")


def fill(port, count, records):
    connection = http.client.HTTPConnection("127.0.0.1", port)
    started = time.perf_counter()
    for index in range(count):
        request(connection, "PUT", f"/stores/j{index}")
        left = records
        while left > 0:
            batch = min(100, left)
            request(connection, "POST", f"/stores/j{index}/actions", ("[" + ",".join(['{"type":"increase"}'] * batch) + "]").encode())
            left -= batch
    print(f"filled {count} stores with {records} actions each in {time.perf_counter() - started:.1f} s")


def reload(port, count, records):
    connection = http.client.HTTPConnection("127.0.0.1", port)
    firsts, hits = [], []
    for index in range(count):
        path = f"/stores/j{index}/state"
        firsts.append(request(connection, "GET", path))
        hits.append(request(connection, "GET", path))
        connection.request("GET", path)
        response = connection.getresponse()
        state = response.read()
        if f'"counter":{records}'.encode() not in state:
            raise RuntimeError(f"{path}: {state[:200]!r} does not hold counter {records}")
    print(f"first GET /stores/{{id}}/state after a restart (snapshot + {records} journal records read): {percentiles(firsts)}")
    print(f"second GET of the same store (loaded): {percentiles(hits)}")


def touch(port, pid, first, end):
    connection = http.client.HTTPConnection("127.0.0.1", port)
    started = time.perf_counter()
    for index in range(first, end):
        request(connection, "POST", f"/stores/t{index}/actions", b'{"type":"increase"}')
    print(f"{end} stores touched ({end - first} in {time.perf_counter() - started:.1f} s): RSS {rss_bytes(pid) / 1048576:.1f} MiB, {threads(pid)} threads")


def quiet(port, seconds):
    connection = http.client.HTTPConnection("127.0.0.1", port)
    request(connection, "PUT", "/stores/quiet")
    samples = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        samples.append(request(connection, "POST", "/stores/quiet/actions", b'{"type":"increase"}'))
    print(f"quiet store POST: {percentiles(samples)}")


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "memory":
        memory(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
    elif mode == "first":
        first(int(sys.argv[2]), int(sys.argv[3]))
    elif mode == "fill":
        fill(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
    elif mode == "reload":
        reload(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
    elif mode == "touch":
        touch(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]))
    elif mode == "quiet":
        quiet(int(sys.argv[2]), float(sys.argv[3]))
    else:
        sys.exit(__doc__)
