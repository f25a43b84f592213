#!/usr/bin/env python3
"""What view-model streams cost while only unrelated actions arrive.

Posts actions that do not change the followed view model (`logout` while nobody is logged in
leaves `counter` as it is) with wrk for D seconds, first with no view-model stream open, then
with N streams on `/viewmodels/counter/events`, and prints the server's CPU time per action in
both runs (from /proc/PID/stat) and the view models made and encoded meanwhile (from /metrics).
The target: nothing encoded; made = one per version (one group, whatever N).

    unrelated-cost.py PORT SERVER_PID [--subscribers N] [--duration D] [--wrk-script FILE]

Connects to 127.0.0.1 only; opens and closes its own sockets; starts wrk and waits for it.
"""
import argparse
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request


def metric(port, name):
    text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5).read().decode()
    match = re.search(rf"^{name}(?:{{[^}}]*}})? ([0-9.e+]+)$", text, re.M)
    return float(match.group(1)) if match else 0.0


def version(port):
    import json
    return json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5))["version"]


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run_wrk(port, duration, script):
    env = dict(os.environ, ACTION='{"type":"logout"}')
    subprocess.run(
        ["wrk", "-t2", "-c16", f"-d{duration}s", "-s", script, f"http://127.0.0.1:{port}/actions"],
        env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )


def measure(port, pid, duration, script):
    made, encoded = metric(port, "remvvm_viewmodels_made_total"), metric(port, "remvvm_viewmodels_encoded_total")
    v0, c0 = version(port), cpu_seconds(pid)
    run_wrk(port, duration, script)
    v1, c1 = version(port), cpu_seconds(pid)
    actions = v1 - v0
    return {
        "actions": actions,
        "cpu_us_per_action": 1e6 * (c1 - c0) / max(1, actions),
        "made": metric(port, "remvvm_viewmodels_made_total") - made,
        "encoded": metric(port, "remvvm_viewmodels_encoded_total") - encoded,
    }


def open_streams(port, count):
    import resource
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < count + 64:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, count + 64), hard))
    streams = []
    for _ in range(count):
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        s.sendall(b"GET /viewmodels/counter/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
        streams.append(s)
    for s in streams:
        data = b""
        while b"event: viewmodel" not in data or b"}\n\n" not in data[data.find(b"event: viewmodel"):]:
            chunk = s.recv(65536)
            if not chunk:
                sys.exit("a view-model stream ended before its first event")
            data += chunk
    return streams


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("port", type=int)
    parser.add_argument("pid", type=int)
    parser.add_argument("--subscribers", type=int, default=1000)
    parser.add_argument("--duration", type=float, default=5)
    parser.add_argument("--wrk-script", default="Benchmarks/wrk/post-action.lua")
    args = parser.parse_args()
    duration = max(1, int(args.duration))
    alone = measure(args.port, args.pid, duration, args.wrk_script)
    streams = open_streams(args.port, args.subscribers)
    followed = measure(args.port, args.pid, duration, args.wrk_script)
    for s in streams:
        s.close()
    ratio = followed["cpu_us_per_action"] / max(1e-9, alone["cpu_us_per_action"])
    print(f"no view-model stream: {alone['actions']} actions, {alone['cpu_us_per_action']:.1f} us CPU/action")
    print(f"{args.subscribers} streams on counter, unrelated actions: {followed['actions']} actions, "
          f"{followed['cpu_us_per_action']:.1f} us CPU/action ({ratio:.2f}x), "
          f"view models made {followed['made']:.0f} ({followed['made'] / max(1, followed['actions']):.2f}/action), "
          f"encoded {followed['encoded']:.0f}")
    print(f"json: {{\"cpu_us_alone\": {alone['cpu_us_per_action']:.2f}, \"cpu_us_followed\": {followed['cpu_us_per_action']:.2f}, "
          f"\"ratio\": {ratio:.3f}, \"made_per_action\": {followed['made'] / max(1, followed['actions']):.3f}, \"encoded\": {followed['encoded']:.0f}}}")


if __name__ == "__main__":
    main()
