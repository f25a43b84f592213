#!/usr/bin/env python3
"""The real-browser test of CORS and access tokens (issue 12), run by scripts/browser-test.sh.

    driver.py serve PORTS_FILE
        Serves page.html on two origins, http://127.0.0.1:<listed> and http://127.0.0.1:<unlisted>
        (both ports chosen by the kernel), writes "<listed> <unlisted>" to PORTS_FILE once both
        listen, and serves until SIGTERM.

    driver.py run --server URL --listed URL --unlisted URL --out DIR --pids FILE
        With the tokens in BROWSER_TEST_WRITE_TOKEN (read+dispatch) and BROWSER_TEST_READ_TOKEN
        (read): starts Debian's headless Chromium through Debian's chromedriver, sets the
        remvvmAuthorization cookie on the server's origin, loads the page from the listed origin
        and then from the unlisted one, waits (WebDriverWait, bounded) until each page says it is
        done, asserts what each recorded, and checks the server's side (/healthz, /metrics).
        Writes screenshots, the pages' records and the browser's console to DIR; writes the PIDs of
        chromedriver and the browser to FILE (the shell script stops them if this process cannot).
        Prints a summary ending in "browser-test: N passed, M failed"; exits 1 on any failure.
"""
import argparse
import http.server
import json
import os
import pathlib
import re
import signal
import sys
import threading
import traceback
import urllib.parse
import urllib.request

HERE = pathlib.Path(__file__).resolve().parent
CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
PAGE_WAIT_SECONDS = 45  # the page bounds each of its own waits at 15 s
COOKIE = "remvvmAuthorization"


# --- serve -----------------------------------------------------------------------------------------
def serve(ports_file):
    page = (HERE / "page.html").read_bytes()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            path = urllib.parse.urlsplit(self.path).path
            if path == "/page.html":
                body, status = page, 200
            elif path == "/blank.html":
                body, status = b"<!DOCTYPE html><title>blank</title>", 200
            elif path == "/favicon.ico":
                body, status = b"", 204
            else:
                body, status = b"not found", 404
            self.send_response(status)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Cache-Control", "no-store")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_):
            pass

    servers = [http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler) for _ in range(2)]
    threads = [threading.Thread(target=s.serve_forever, daemon=True) for s in servers]
    for thread in threads:
        thread.start()
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    temporary = ports_file + ".tmp"
    with open(temporary, "w") as handle:
        handle.write(" ".join(str(s.server_address[1]) for s in servers) + "\n")
    os.replace(temporary, ports_file)
    stop.wait()
    for server in servers:
        server.shutdown()
        server.server_close()


# --- run -------------------------------------------------------------------------------------------
class Checks:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, condition, what, detail=""):
        if condition:
            self.passed += 1
            print(f"  PASS {what}")
        else:
            self.failed += 1
            print(f"  FAIL {what}" + (f": {detail}" if detail else ""))
        return condition

    def summary(self, test, out, contents="screenshots"):
        """Prints where the `contents` went and the counts; returns the exit status (0: none failed)."""
        print(f"\n{contents}: {out}/")
        print(f"{test}: {self.passed} passed, {self.failed} failed")
        return 0 if self.failed == 0 else 1


def run_main(run, *options):
    """Parses `options` (each required), lets SIGTERM (the shell script's trap or timeout) end the
    run through its finally blocks (browsers and servers are stopped), and returns `run(args)`."""
    parser = argparse.ArgumentParser()
    for name in options:
        parser.add_argument(name, required=True)
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    return run(args)


def http_get(url, token=None):
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"} if token else {})
    with urllib.request.urlopen(request, timeout=5) as response:
        return response.read().decode()


def server_version(server):
    return json.loads(http_get(server + "/healthz"))["version"]


def request_counts(server, token):
    """http_requests_total by (method, route, code), from GET /metrics."""
    counts = {}
    pattern = re.compile(r'^http_requests_total\{(.*)\} (\d+(?:\.\d+)?)$')
    for line in http_get(server + "/metrics", token).splitlines():
        match = pattern.match(line)
        if match:
            labels = dict(re.findall(r'(\w+)="([^"]*)"', match.group(1)))
            key = (labels.get("method"), labels.get("route"), labels.get("code"))
            counts[key] = counts.get(key, 0) + int(float(match.group(2)))
    return counts


def moved(before, after, method, route, code=None):
    """How many requests of method and route (and code, when given) were counted in between."""
    return sum(n - before.get(key, 0) for key, n in after.items()
               if key[0] == method and key[1] == route and (code is None or key[2] == code))


def children(pid):
    """PIDs whose parent is pid (from /proc)."""
    found = []
    for entry in pathlib.Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if int(fields[1]) == pid:
            found.append(int(entry.name))
    return found


def start_browser(pids_file, log_path):
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                     "--no-default-browser-check", "--disable-background-networking",
                     "--disable-component-update", "--disable-sync", "--window-size=1000,1400"):
        options.add_argument(argument)
    if os.geteuid() == 0:
        options.add_argument("--no-sandbox")  # Chromium's sandbox refuses to run as root
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    # A path for the driver keeps Selenium Manager (which would download one) out of it.
    service = Service(executable_path=CHROMEDRIVER, log_output=log_path)
    driver = webdriver.Chrome(service=service, options=options)
    pids = [service.process.pid] + children(service.process.pid)
    with open(pids_file, "w") as handle:
        handle.write("\n".join(str(pid) for pid in pids) + "\n")
    driver.set_page_load_timeout(20)
    driver.set_script_timeout(20)
    return driver


def load_page(driver, origin, fragment, out, name, redacted):
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get(f"{origin}/page.html#{urllib.parse.urlencode(fragment)}")
    finished = True
    try:
        WebDriverWait(driver, PAGE_WAIT_SECONDS, poll_frequency=0.1).until(
            lambda d: d.execute_script("return !!(window.remvvmTest && window.remvvmTest.done)"))
    except TimeoutException:
        finished = False
    driver.save_screenshot(str(out / f"{name}.png"))
    record = json.loads(driver.execute_script("return JSON.stringify(window.remvvmTest || null)"))
    console = driver.get_log("browser")
    (out / f"{name}.json").write_text(redacted(json.dumps({"record": record, "console": console}, indent=2)) + "\n")
    if not finished:
        raise RuntimeError(f"the {name} page did not finish within {PAGE_WAIT_SECONDS} s; what it recorded: {out}/{name}.json")
    return record, console


def run(args):
    write_token = os.environ["BROWSER_TEST_WRITE_TOKEN"]
    read_token = os.environ["BROWSER_TEST_READ_TOKEN"]
    server, listed, unlisted = args.server, args.listed, args.unlisted
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    checks = Checks()
    check = checks.check

    def redacted(text):
        return str(text).replace(write_token, "<write token>").replace(read_token, "<read token>")

    driver = start_browser(args.pids, str(pathlib.Path(args.pids).with_name("chromedriver.log")))
    try:
        capabilities = driver.capabilities
        print(f"browser: {capabilities.get('browserName')} {capabilities.get('browserVersion')}, "
              f"chromedriver {capabilities.get('chrome', {}).get('chromedriverVersion', '?').split(' ')[0]}, "
              f"selenium {__import__('selenium').__version__}")

        # The cookie: set on the server's origin, as a login flow there would (HttpOnly,
        # SameSite=Strict). Cookies belong to a host, not to an origin: the page on another port
        # of 127.0.0.1 is the same site, so its credentialed requests carry it too.
        driver.get(server + "/healthz")
        driver.add_cookie({"name": COOKIE, "value": read_token, "path": "/", "httpOnly": True, "sameSite": "Strict"})
        on_server = [c for c in driver.get_cookies() if c["name"] == COOKIE]
        driver.get(listed + "/blank.html")
        on_page = [c for c in driver.get_cookies() if c["name"] == COOKIE]
        cookie_note = (f"cookie set on {server}: visible there {bool(on_server)}, "
                       f"on {listed} (another port, same host) {bool(on_page)}")
        print(cookie_note)

        before = server_version(server)
        counts_before = request_counts(server, read_token)
        fragment = {"server": server, "write": write_token, "read": read_token, "cookie": "1"}

        def visit(origin, role):
            """Loads the page from `origin` as `role` and checks it finished; returns its console,
            the server's version and request counts after it, and the page's streams and requests."""
            fragment["role"] = role
            record, console = load_page(driver, origin, fragment, out, role, redacted)
            version, counts = server_version(server), request_counts(server, read_token)
            check(record["error"] is None, "the page finished without an error", record["error"])
            return console, version, counts, record["streams"], record["requests"]

        print(f"\n[listed origin {listed}] (server version {before})")
        console, after, counts_listed, streams, requests = visit(listed, "listed")
        expected = [before, before + 1]
        for name, how in (("query", "?access_token="), ("cookie", "cookie, withCredentials")):
            stream = streams.get(name, {})
            check(stream.get("opened", 0) >= 1 and stream.get("errors") == 0,
                  f"EventSource ({how}) opened, no error", json.dumps(stream))
            check(stream.get("versions") == expected and stream.get("actions", [None, None])[1] == "increase",
                  f"EventSource ({how}) received versions {expected}, the second by increase",
                  json.dumps(stream))
            check(str(stream.get("lastEventId", "")).startswith(f"{before + 1}-"),
                  f"EventSource ({how}) lastEventId names version {before + 1}", stream.get("lastEventId"))
        bare = streams.get("noCredentials", {})
        check(bare.get("readyState") == 2 and bare.get("versions") == [] and bare.get("opened") == 0,
              "EventSource without credentials (no query, no cookie sent): refused, closed (readyState 2)",
              json.dumps(bare))
        check(moved(counts_before, counts_listed, "GET", "/events", "401") == 1
              and moved(counts_before, counts_listed, "GET", "/events", "200") == 2,
              "the server counted the two streams with a token as 200 and the one without as 401",
              json.dumps({k[2]: moved(counts_before, counts_listed, "GET", "/events", k[2])
                          for k in counts_listed if k[:2] == ("GET", "/events")}))
        state = requests.get("state", {})
        check(state.get("status") == 200 and (state.get("headers") or {}).get("ETag", "").startswith(f'"{before}-'),
              f"GET /state (read token): 200, ETag readable ({(state.get('headers') or {}).get('ETag')})",
              json.dumps(state))
        dispatch = requests.get("dispatch", {})
        headers = dispatch.get("headers") or {}
        check(dispatch.get("status") == 200 and dispatch.get("body") == {"version": before + 1},
              f"POST /actions (read+dispatch token, preflighted): 200 {json.dumps(dispatch.get('body'))}",
              json.dumps(dispatch))
        check(headers.get("Idempotent-Replayed") is None and headers.get("Content-Type", "").startswith("application/json"),
              "the first POST is not a replay (Idempotent-Replayed absent), Content-Type readable", json.dumps(headers))
        check(dispatch.get("status") == 200 and headers.get("Vary") is None and headers.get("Access-Control-Allow-Origin") is None,
              "headers the server does not expose (Vary, Access-Control-Allow-Origin) stay hidden from the page",
              json.dumps(headers))
        replay = requests.get("replay", {})
        check(replay.get("status") == 200 and replay.get("body") == {"version": before + 1}
              and (replay.get("headers") or {}).get("Idempotent-Replayed") == "true",
              "the same POST with its Idempotency-Key again: 200, same body, exposed Idempotent-Replayed: true",
              json.dumps(replay))
        read_only = requests.get("readOnly", {})
        challenge = (read_only.get("headers") or {}).get("WWW-Authenticate") or ""
        check(read_only.get("status") == 403 and 'error="insufficient_scope"' in challenge and 'scope="dispatch"' in challenge
              and (read_only.get("body") or {}).get("type") == "urn:remvvm:problem:insufficient-scope",
              f"POST /actions (read-only token): 403, WWW-Authenticate readable: {challenge}",
              json.dumps(read_only))
        no_token = requests.get("noToken", {})
        challenge = (no_token.get("headers") or {}).get("WWW-Authenticate") or ""
        check(no_token.get("status") == 401 and challenge == 'Bearer realm="remvvm"'
              and (no_token.get("body") or {}).get("type") == "urn:remvvm:problem:unauthorized",
              f"POST /actions (no token): 401, WWW-Authenticate readable: {challenge}", json.dumps(no_token))
        check(after == before + 1, f"the server's version moved by exactly one ({before} -> {after})")
        new_preflights = moved(counts_before, counts_listed, "OPTIONS", "/actions", "204")
        check(new_preflights >= 1 and moved(counts_before, counts_listed, "OPTIONS", "/actions") == new_preflights,
              f"the server answered {new_preflights} preflight(s) OPTIONS /actions, all 204 (the browser caches them)")

        print(f"\n[unlisted origin {unlisted}]")
        console, final, counts_unlisted, streams, requests = visit(unlisted, "unlisted")
        for name, what in (("dispatch", "POST /actions (preflight refused)"),
                           ("health", "GET /healthz (simple request, answer without CORS headers)")):
            entry = requests.get(name, {})
            error = entry.get("error") or {}
            check(error.get("name") == "TypeError" and "status" not in entry,
                  f"{what}: fetch rejected with {error.get('name')}: {error.get('message')}", json.dumps(entry))
        stream = streams.get("query", {})
        check(stream.get("readyState") == 2 and stream.get("versions") == [] and stream.get("opened") == 0,
              f"EventSource (?access_token=): failed, closed (readyState 2), no event after {stream.get('errors')} error(s)",
              json.dumps(stream))
        check(final == after, f"the server's version did not move ({after} -> {final})")
        refused = moved(counts_listed, counts_unlisted, "OPTIONS", "/actions", "403")
        posted = moved(counts_listed, counts_unlisted, "POST", "/actions")
        check(refused >= 1 and posted == 0,
              f"the server refused {refused} preflight(s) OPTIONS /actions with 403, and no POST was sent after it",
              f"{posted} POST /actions counted")
        cors_messages = [m["message"] for m in console if "CORS policy" in m.get("message", "")]
        check(len(cors_messages) >= 2, f"the browser's console names CORS for the blocked requests ({len(cors_messages)} messages)",
              redacted(json.dumps(console)))
        for message in cors_messages:
            print("    console: " + redacted(message.split(" - ", 1)[-1])[:240])
    except Exception as error:  # a page that never finished, a lost browser: one more failure, reported
        print(redacted("".join(traceback.format_exception(error))), file=sys.stderr)
        check(False, "the run went through", redacted(f"{type(error).__name__}: {error}".splitlines()[0]))
    finally:
        try:
            driver.quit()
        except Exception as error:  # scripts/browser-test.sh then stops them by their PIDs
            print(f"could not quit the browser: {type(error).__name__}: {error}", file=sys.stderr)

    return checks.summary("browser-test", out, "screenshots and records")


def main():
    parser = argparse.ArgumentParser()
    commands = parser.add_subparsers(dest="command", required=True)
    serve_parser = commands.add_parser("serve")
    serve_parser.add_argument("ports_file")
    run_parser = commands.add_parser("run")
    for name in ("--server", "--listed", "--unlisted", "--out", "--pids"):
        run_parser.add_argument(name, required=True)
    args = parser.parse_args()
    if args.command == "serve":
        serve(args.ports_file)
        return 0
    # SIGTERM (from the shell script's trap or timeout) ends the run through its finally: the
    # browser and chromedriver are quit.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
