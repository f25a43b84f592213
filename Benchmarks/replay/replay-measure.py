#!/usr/bin/env python3
"""Posts COUNT increases in one batch, then resumes /events with Last-Event-ID: 0 three times and
prints how long each replay of COUNT events took. With --resume-only it posts nothing (the
server holds COUNT versions already, e.g. restarted on a data directory: then they come from the
journal). Usage: replay-measure.py PORT COUNT [--resume-only]"""
import http.client, sys, time
port, count = int(sys.argv[1]), int(sys.argv[2])
resume_only = "--resume-only" in sys.argv[3:]
if not resume_only:
    c = http.client.HTTPConnection("127.0.0.1", port)
    body = "[" + ",".join(['{"type":"increase"}'] * count) + "]"
    c.request("POST", "/actions", body, {"Content-Type": "application/json"}); r = c.getresponse(); print("post", r.status, r.read()[:40])
for attempt in range(3):
    s = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    t0 = time.monotonic()
    s.request("GET", "/events", headers={"Last-Event-ID": "0", "Accept": "text/event-stream"})
    resp = s.getresponse()
    data = b""
    marker = b"\nevent: state\n"
    while data.count(marker) < count:
        chunk = resp.read1(1 << 20)
        if not chunk: break
        data += chunk
    print("%s: %d events (%d bytes) in %.1f ms" % (resp.getheader("ReMVVM-Replay") or "replay", data.count(marker), len(data), (time.monotonic() - t0) * 1000))
    s.close()
