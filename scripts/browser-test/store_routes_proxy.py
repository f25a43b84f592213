"""A stand-in for the store routes (PUT /stores/{id}, /stores/{id}/...) of the many-stores contract
(../shared/docs/stores.md) for app_driver.py, while the server under test has none: each store is
a remvvm-server of its own (in memory), started on its PUT, and /stores/{id}/<path> is passed to
it as /<path>, streams included. Anything else (the page, its files) goes to the server under
test. It lets the thin client's session path run in a real browser before the real routes exist;
against a server that has them, the driver uses the server itself.
"""
import http.client
import http.server
import json
import re
import threading

from inspector_driver import Server, free_port

STORE_PATH = re.compile(r"^/stores/([A-Za-z0-9][A-Za-z0-9._~-]{0,127})(/.*)?$")
HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade", "proxy-authorization"}


class StoreRoutesProxy:
    def __init__(self, server_bin, env, work, pids, root_port, save_pids):
        """`pids` gets each store server's PID; `save_pids()` is called after each start (so that
        the shell script can stop them if the driver cannot)."""
        self.server_bin, self.env, self.work, self.pids, self.save_pids = server_bin, env, work, pids, save_pids
        self.root_port = root_port
        self.stores = {}
        self.lock = threading.Lock()
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"  # one request per connection: a stream ends with it

            def log_message(self, *args):
                pass

            def do_PUT(self):
                proxy.handle(self)

            do_GET = do_POST = do_HEAD = do_DELETE = do_PUT

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def create(self, store):
        """The port of `store`'s server, started now if needed; whether it was created."""
        with self.lock:
            if store in self.stores:
                return self.stores[store].port, False
            port = free_port()
            server = Server(f"store {store}", [self.server_bin, "--host", "127.0.0.1", "--port", str(port),
                                              "--config", str(self.work / "config.json")],
                            {**self.env, "REMVVM_IN_MEMORY": "1"}, port, self.work / f"store-{store}.log", self.pids)
            self.stores[store] = server
            server.start()
            self.save_pids()
            return port, True

    def forget(self, store):
        """Ends `store` as a restart without a journal does: its server stops, its id is unknown."""
        with self.lock:
            server = self.stores.pop(store)
        server.stop()

    def handle(self, request):
        match = STORE_PATH.match(request.path.split("?")[0])
        if match and match.group(2) is None and request.command == "PUT":
            store = match.group(1)
            _, created = self.create(store)
            return self.answer(request, 201 if created else 200, {"id": store, "version": 0, "loaded": True})
        if match:
            with self.lock:
                server = self.stores.get(match.group(1))
            if server is None:
                return self.answer(request, 404, {"type": "urn:remvvm:problem:store-not-found", "title": "Store not found",
                                                  "status": 404, "detail": f"no store {match.group(1)}"})
            return self.forward(request, server.port, request.path[len(f"/stores/{match.group(1)}"):])
        return self.forward(request, self.root_port, request.path)

    def answer(self, request, status, body):
        data = json.dumps(body).encode()
        request.send_response(status)
        request.send_header("Content-Type", "application/json" if status < 400 else "application/problem+json")
        request.send_header("Content-Length", str(len(data)))
        request.end_headers()
        request.wfile.write(data)

    def forward(self, request, port, path):
        length = int(request.headers.get("Content-Length") or 0)
        body = request.rfile.read(length) if length else None
        headers = {k: v for k, v in request.headers.items() if k.lower() not in HOP_BY_HOP and k.lower() != "host"}
        headers["Host"] = f"127.0.0.1:{port}"
        headers.pop("Origin", None)  # same origin for the page; the server under test checks Host
        upstream = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        try:
            upstream.request(request.command, path, body=body, headers=headers)
            response = upstream.getresponse()
            request.send_response(response.status)
            for name, value in response.getheaders():
                if name.lower() not in HOP_BY_HOP:
                    request.send_header(name, value)
            request.end_headers()
            while chunk := response.read1(65536):
                request.wfile.write(chunk)
                request.wfile.flush()
        except OSError:
            pass
        finally:
            upstream.close()

    def stop(self):
        self.httpd.shutdown()
        for server in self.stores.values():
            server.stop()
