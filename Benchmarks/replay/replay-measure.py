#!/usr/bin/env python3
"""Posts COUNT increases in one batch, then resumes /events with Last-Event-ID: 0 three times and
prints how long each replay of COUNT events took. A stream is open (and read) while it posts: a
durable store's event hub keeps versions in its ring only while someone listens (with nobody, the
resumes come from the journal, as after a restart). With --resume-only it posts nothing (the
server holds COUNT versions already, e.g. restarted on a data directory: then they come from the
journal). With --after-blip a stream reads its first event and leaves before the post, as a
client whose connection dropped: within the hub's grace after its last stream left (30 s by
default) the versions are still kept in its ring. Usage: replay-measure.py PORT COUNT
[--resume-only | --after-blip]"""
import http.client, sys, threading, time
port, count = int(sys.argv[1]), int(sys.argv[2])
resume_only = "--resume-only" in sys.argv[3:]
after_blip = "--after-blip" in sys.argv[3:]
watcher_ready, watcher_done = threading.Event(), threading.Event()


def watch():
    """Reads /events until it has seen COUNT versions after the first event."""
    w = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    w.request("GET", "/events", headers={"Accept": "text/event-stream"})
    response = w.getresponse()
    seen = b""
    while seen.count(b"\nevent: state\n") < count + 1:
        chunk = response.read1(1 << 20)
        if not chunk: break
        seen += chunk
        if b"\nevent: state\n" in seen:
            watcher_ready.set()  # its first event: the stream is open at the hub
    watcher_ready.set()
    watcher_done.set()
    w.close()


def read_first_event_and_leave():
    """Opens /events, reads its first event, and closes the connection."""
    w = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    w.request("GET", "/events", headers={"Accept": "text/event-stream"})
    response = w.getresponse()
    seen = b""
    while b"\nevent: state\n" not in seen:
        chunk = response.read1(1 << 16)
        if not chunk: break
        seen += chunk
    w.close()


if after_blip:
    read_first_event_and_leave()
    c = http.client.HTTPConnection("127.0.0.1", port)
    body = "[" + ",".join(['{"type":"increase"}'] * count) + "]"
    c.request("POST", "/actions", body, {"Content-Type": "application/json"}); r = c.getresponse(); print("post", r.status, r.read()[:40])
elif not resume_only:
    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    watcher_ready.wait(10)
    c = http.client.HTTPConnection("127.0.0.1", port)
    body = "[" + ",".join(['{"type":"increase"}'] * count) + "]"
    c.request("POST", "/actions", body, {"Content-Type": "application/json"}); r = c.getresponse(); print("post", r.status, r.read()[:40])
    watcher_done.wait(60)
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
