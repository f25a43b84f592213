#!/usr/bin/env python3
"""The real-browser test of the inspector page (issue 15), run by scripts/inspector-test.sh.

    inspector_driver.py --server-bin BIN --large-bin BIN --work DIR --out DIR --pids FILE

With the tokens in INSPECTOR_TEST_WRITE_TOKEN (read+dispatch), INSPECTOR_TEST_READ_TOKEN (read)
and INSPECTOR_TEST_MANAGE_TOKEN (read+dispatch+manage), it starts remvvm-server itself (durable, in DIR/data, on a free port of 127.0.0.1, so that
it can stop it and start it again on the same port and data) and, later, large-state-server
(10,000 items, no tokens). Debian's headless Chromium, through chromedriver and selenium:

  1. loads /inspector, is asked for a token, is refused a wrong one (the problem is shown), gets
     in with the read+dispatch token typed and Enter;
  2. dispatches through the form and sees the version, the highlighted tree row and the log
     entry change; a payload that is not JSON is caught before sending (no request, the server's
     version and request count unchanged); a payload of the wrong type shows the server's problem
     details; selects actions in the log (with the keyboard) and sees their patch and the state
     right after them, one kept by the page and, after a reload, one replayed by the server;
     clicks a view-model command when the server lists commands (skipped, with a note, when it
     lists none); sees the health figures; checks the JavaScript JSON diff in the page;
  3. stops the server and starts it again: the page says it reconnected with Last-Event-ID and
     resumed, and goes on with the new server's versions; again with a stale cookie (another
     token): the page sets the cookie again from its session's token;
  4. keyboard and layout: the state tree with arrows, no horizontal scrolling at phone width;
  5. forgets the token, comes back with the read token: no dispatch controls, no command buttons;
     then the store picker with a manage token (INSPECTOR_TEST_MANAGE_TOKEN): inspector_stores.py;
  6. large state: 10,000 items at 100 actions/s for 10 s; the version shown against the server's
     at the end and after the page caught up, main-thread long tasks (PerformanceObserver) and
     timer delay measured in the page, and a click on the tree answered while the load runs;
  7. then 10 actions/s for 5 s, which the page streams again (full states, diffed in its worker).

Screenshots, the page's records and the figures (inspector-results.json) go to --out. Prints a
summary ending in "inspector-test: N passed, M failed" and exits 1 on any failure.
"""
import http.client
import json
import os
import pathlib
import random
import signal
import socket
import subprocess
import sys
import threading
import time
import traceback
import urllib.request

import driver as common
import inspector_stores

WAIT = 15  # seconds for any one thing the page should show
LOAD_SECONDS = 10
LOAD_RATE = 100


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_until(condition, seconds=WAIT, poll=0.05):
    """condition()'s first truthy value within `seconds`, else None."""
    deadline = time.monotonic() + seconds
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() >= deadline:
            return None
        time.sleep(poll)


class Server:
    """A server process the driver starts, stops and starts again on the same port."""

    def __init__(self, name, command, env, port, log_path, pids):
        self.name, self.command, self.env, self.port = name, command, env, port
        self.log_path, self.pids = log_path, pids
        self.process = None
        self.base = f"http://127.0.0.1:{port}"

    def start(self):
        log = open(self.log_path, "a")
        self.process = subprocess.Popen(self.command, env=self.env, stdout=log, stderr=subprocess.STDOUT)
        self.pids.append(self.process.pid)
        if not wait_until(self.healthy, 30, 0.1):
            raise RuntimeError(f"{self.name} did not answer /healthz within 30 s (log: {self.log_path})")

    def healthy(self):
        if self.process.poll() is not None:
            raise RuntimeError(f"{self.name} exited with {self.process.returncode} (log: {self.log_path})")
        try:
            return self.version() is not None
        except OSError:
            return False

    def version(self):
        with urllib.request.urlopen(self.base + "/healthz", timeout=2) as response:
            return json.loads(response.read())["version"]

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        code = self.process.returncode if self.process else None
        self.process = None
        return code


class Page:
    """The browser on the inspector, with helpers that wait (bounded) for what it shows."""

    def __init__(self, browser):
        self.browser = browser

    def js(self, script, *args):
        return self.browser.execute_script(script, *args)

    def state(self, expression):
        return self.js(f"return window.inspector && window.inspector.{expression}")

    def text(self, element_id):
        return self.js("const e = document.getElementById(arguments[0]); return e ? e.innerText : null", element_id)

    def hidden(self, element_id):
        return self.js("const e = document.getElementById(arguments[0]); return !e || e.hidden || e.offsetParent === null", element_id)

    def element(self, css):
        from selenium.webdriver.common.by import By
        return self.browser.find_element(By.CSS_SELECTOR, css)

    def elements(self, css):
        from selenium.webdriver.common.by import By
        return self.browser.find_elements(By.CSS_SELECTOR, css)

    def wait_text(self, element_id, fragment, seconds=WAIT):
        return wait_until(lambda: fragment in (self.text(element_id) or ""), seconds)

    def version(self):
        return self.state("version")

    def dispatch(self, action_type, payload_text):
        from selenium.webdriver.support.ui import Select
        Select(self.element("#dispatch-type")).select_by_value(action_type)
        payload = self.element("#dispatch-payload")
        payload.clear()
        if payload_text:
            payload.send_keys(payload_text)
        self.js("document.getElementById('dispatch-result').textContent = ''")
        self.element("#dispatch-send").click()
        return wait_until(lambda: (lambda t: t if t and t != "Sending…" else None)(self.text("dispatch-result")))

    def screenshot(self, out, name):
        self.browser.save_screenshot(str(out / f"{name}.png"))


def common_post(base, token, action):
    request = urllib.request.Request(base + "/actions", data=json.dumps(action).encode(), method="POST",
                                     headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(request, timeout=5) as response:
        return json.loads(response.read())


def post_actions(base, seconds, rate, result):
    """POSTs toggle actions at `rate` per second for `seconds` on one keep-alive connection."""
    host, port = base.split("//")[1].split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=10)
    started = time.monotonic()
    sent = 0
    late = 0.0
    while time.monotonic() - started < seconds:
        due = started + sent / rate
        delay = due - time.monotonic()
        if delay > 0:
            time.sleep(delay)  # pacing the load, not waiting for a condition
        else:
            late = max(late, -delay)
        body = json.dumps({"type": "toggle", "payload": {"id": random.randrange(10_000)}})
        connection.request("POST", "/actions", body=body, headers={"Content-Type": "application/json"})
        response = connection.getresponse()
        answer = json.loads(response.read())
        sent += 1
        result["version"] = answer.get("version", result.get("version"))
    result.update(sent=sent, seconds=time.monotonic() - started, most_late_ms=round(late * 1000, 1))
    connection.close()


MEASURE = """
window.measure = {longTasks: [], timerDelays: [], started: performance.now()};
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) window.measure.longTasks.push([Math.round(entry.startTime), Math.round(entry.duration)]);
}).observe({type: 'longtask'});
let expected = performance.now() + 100;
window.measure.timer = setInterval(() => {
  const now = performance.now();
  window.measure.timerDelays.push(Math.max(0, now - expected));
  expected = now + 100;
}, 100);
"""

MEASURED = """
clearInterval(window.measure.timer);
const m = window.measure;
const delays = m.timerDelays.slice().sort((a, b) => a - b);
return {
  window_ms: Math.round(performance.now() - m.started),
  long_tasks: m.longTasks.length,
  long_task_ms: m.longTasks.reduce((sum, task) => sum + task[1], 0),
  longest_task_ms: m.longTasks.reduce((most, task) => Math.max(most, task[1]), 0),
  timer_delay_p50_ms: Math.round(delays[Math.floor(delays.length / 2)] || 0),
  timer_delay_max_ms: Math.round(delays[delays.length - 1] || 0),
};
"""

INTERACTION = """
const key = arguments[0];
const tree = document.getElementById('state-tree');
window.interaction = {clicked: null, shown: null};
tree.addEventListener('click', () => { window.interaction.clicked = performance.now(); }, {capture: true, once: true});
new MutationObserver((records, observer) => {
  const row = [...tree.querySelectorAll('.tree-row')].find((candidate) => candidate.dataset.pointer === key);
  if (window.interaction.clicked !== null && row && row.getAttribute('aria-expanded') === 'true') {
    window.interaction.shown = performance.now();
    observer.disconnect();
  }
}).observe(tree, {attributes: true, subtree: true, attributeFilter: ['aria-expanded']});
"""

JS_UNIT = """
const done = arguments[arguments.length - 1];
Promise.all([import('./inspector/jsondiff.js'), import('./inspector/dispatch.js'), import('./inspector/treemodel.js')]).then(([j, d, t]) => {
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const value = (depth) => {
    const r = random();
    if (depth > 3 || r < 0.3) return [null, true, 0, 2.5, 'a', 'b/c', '~x'][Math.floor(random() * 7)];
    if (r < 0.65) return Array.from({length: Math.floor(random() * 5)}, () => value(depth + 1));
    const o = {};
    for (let i = 0; i < Math.floor(random() * 5); i++) o[['a', 'b', 'c/d', 'e~f', 'g'][Math.floor(random() * 5)]] = value(depth + 1);
    return o;
  };
  let failures = 0;
  for (let i = 0; i < 2000; i++) {
    const a = value(0), b = value(0);
    if (!j.equal(j.applyPatch(structuredClone(a), j.diff(a, b)), b)) failures++;
  }
  const big = {items: Array.from({length: 10000}, (_, i) => ({id: i, title: 'Todo item number ' + i, done: false}))};
  const changed = structuredClone(big);
  changed.items[4242].done = true;
  const view = t.createView();
  t.toggle(view, '/items', true);
  const rows = t.project(changed, view, t.changeIndex(j.diff(big, changed).map((op) => op.path)));
  done({
    diffFailures: failures,
    bigPatch: j.diff(big, changed),
    bigRows: rows.length,
    bigHighlighted: rows.filter((row) => row.h).map((row) => row.p),
    payloadErrors: ['{"a": ', '[1]', '{"a": 1}', ''].map((text) => d.payloadError(text)),
  });
}).catch((error) => done({error: String(error)}));
"""


def run(args):
    write_token = os.environ["INSPECTOR_TEST_WRITE_TOKEN"]
    read_token = os.environ["INSPECTOR_TEST_READ_TOKEN"]
    manage_token = os.environ["INSPECTOR_TEST_MANAGE_TOKEN"]
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    work = pathlib.Path(args.work)
    checks = common.Checks()
    check = checks.check
    results = {}
    server_pids = []

    def redacted(text):
        return str(text).replace(write_token, "<write token>").replace(read_token, "<read token>").replace(manage_token, "<manage token>")

    def save_pids():
        pathlib.Path(args.pids).write_text("\n".join(str(p) for p in browser_pids + server_pids) + "\n")

    env = {k: v for k, v in os.environ.items() if not k.startswith("REMVVM_") and not k.startswith("INSPECTOR_TEST_")}
    env["REMVVM_AUTH_TOKENS"] = f"{write_token}=read+dispatch,{read_token}=read,{manage_token}=read+dispatch+manage"
    port = free_port()
    app = Server("remvvm-server", [args.server_bin, "--host", "127.0.0.1", "--port", str(port), "--data-dir", str(work / "data"),
                                   "--config", str(work / "config.json"), "--metrics-enabled", "true", "--log-level", "info"],
                 env, port, work / "server.log", server_pids)
    (work / "config.json").write_text("{}\n")
    browser_pids = []
    large = None
    browser = common.start_browser(str(work / "browser.pids"), str(work / "chromedriver.log"))
    browser_pids = [int(p) for p in (work / "browser.pids").read_text().split()]
    page = Page(browser)
    try:
        app.start()
        save_pids()
        browser.set_window_size(1280, 900)
        auth = {"Authorization": f"Bearer {read_token}"}

        # --- 1. token ------------------------------------------------------------------------
        print(f"\n[inspector on {app.base}, tokens configured]")
        browser.get(app.base + "/inspector")
        check(wait_until(lambda: page.js("return document.getElementById('login').open")), "the page asks for a token (dialog open)")
        page.screenshot(out, "login")
        page.element("#login-token").send_keys("not-a-token-we-know\n")
        check(page.wait_text("login-problem", "does not accept"), "a wrong token is refused, the server's problem shown",
              page.text("login-problem"))
        token_field = page.element("#login-token")
        token_field.clear()
        token_field.send_keys(write_token + "\n")
        check(wait_until(lambda: page.state("ready")), "with the read+dispatch token (typed, Enter) the page goes live")
        check("read + dispatch" in (page.text("access-mode") or ""), f"the page shows the token's scopes: {page.text('access-mode')}")
        check(not page.hidden("dispatch-form"), "the dispatch form is shown")
        openapi = json.loads(common.http_get(app.base + "/openapi.json", read_token))
        registered = sorted(v["properties"]["type"]["const"] for v in openapi["components"]["schemas"]["Action"]["oneOf"])
        offered = sorted(page.js("return [...document.querySelectorAll('#dispatch-type option')].map(o => o.value)"))
        check(offered == registered, f"the form offers the registered action types {offered}")

        # --- 2. dispatch, tree, log ----------------------------------------------------------
        # One action first, so that the form's comes at version 2 or later: time travel to it
        # needs the version before it, which a stream resumed at version 0 cannot give.
        if app.version() == 0:
            common_post(app.base, write_token, {"type": "logout"})
            wait_until(lambda: page.version() == 1)
        before = app.version()
        answer = page.dispatch("increase", "")
        check(answer and f"version {before + 1}" in answer, f"dispatch through the form: {answer}")
        check(wait_until(lambda: page.version() == before + 1), f"the page shows version {before + 1}", page.version())
        counter = json.loads(common.http_get(app.base + "/state", read_token))["counter"]
        check(page.text("version") == str(before + 1), f"the header says version {page.text('version')}")
        counter_row = wait_until(lambda: page.js(
            "const r = document.querySelector('#state-tree .tree-row[data-pointer=\"/counter\"]'); return r && r.classList.contains('changed') && r.querySelector('.value').textContent"))
        check(counter_row == str(counter), f"the tree's /counter row shows {counter_row} and is highlighted")
        check("changed /counter" in (page.text("state-summary") or ""), f"the summary names the change: {page.text('state-summary')}")
        first_log = wait_until(lambda: page.js("const li = document.querySelector('#log-list li'); return li && [li.dataset.version, li.querySelector('.type').textContent]"))
        check(first_log == [str(before + 1), "increase"], f"the log's newest entry is version {before + 1}, increase: {first_log}")
        check("History ends at version 1" in (page.text("log-end") or ""), f"the log says where history ends: {page.text('log-end')}")

        requests_before = page.state("dispatchRequests")
        counts_before = common.request_counts(app.base, read_token)
        version_before = app.version()
        answer = page.dispatch("login", '{"firstName": ')
        check(answer and answer.startswith("Not sent") and "not valid JSON" in answer, f"a payload that is not JSON is caught in the page: {answer}")
        check(page.js("return document.getElementById('dispatch-payload').getAttribute('aria-invalid')") == "true", "the payload editor is marked invalid")
        counts_after = common.request_counts(app.base, read_token)
        check(page.state("dispatchRequests") == requests_before and app.version() == version_before
              and common.moved(counts_before, counts_after, "POST", "/actions") == 0,
              "nothing was sent: no request from the form, the server's version and POST count unchanged")

        answer = page.dispatch("login", '{"firstName": 5, "lastName": "Lovelace"}')
        problem = page.text("dispatch-result") or ""
        check("422" in problem and "urn:remvvm:problem:invalid-payload" in problem and "payload.firstName" in problem,
              "a payload of the wrong type: the server's problem details are shown (422, type, field)", problem)

        answer = page.dispatch("login", '{"firstName": "Ada", "lastName": "Lovelace"}')
        check(answer and "Applied" in answer, f"login dispatched: {answer}")
        greeting = wait_until(lambda: page.js("const v = document.querySelector('.vm[data-name=greetings]'); return v && v.innerText.includes('Ada Lovelace') && v.innerText"))
        check(greeting, "the greetings view model shows its live value", str(greeting))

        # Selecting with the keyboard: the log, ArrowDown to the increase, Enter.
        from selenium.webdriver.common.keys import Keys
        log = page.element("#log-list")
        log.click()
        log.send_keys(Keys.HOME)
        for _ in range(5):
            focused = page.js("const li = document.querySelector('#log-list li.focused'); return li && li.dataset.version")
            if focused == str(before + 1):
                break
            log.send_keys(Keys.ARROW_DOWN)
        log.send_keys(Keys.ENTER)
        patch = wait_until(lambda: (lambda t: t if t and "/counter" in t else None)(page.text("detail-patch")))
        check(patch and '"op":"replace"' in patch, f"the selected action's patch: {patch and ' '.join(patch.split())}")
        detail_counter = wait_until(lambda: page.js("const r = document.querySelector('#detail-tree .tree-row[data-pointer=\"/counter\"]'); return r && r.querySelector('.value').textContent"))
        check(detail_counter == str(counter), f"the state right after it: counter {detail_counter}")

        js = browser.execute_async_script(JS_UNIT)
        results["javascript"] = {k: v for k, v in js.items() if k != "bigRows"}
        check(js.get("diffFailures") == 0, f"JSON diff in the page: apply(diff(a, b), a) == b for 2,000 random pairs ({js.get('error') or js.get('diffFailures')} failures)")
        check(js.get("bigPatch") == [{"op": "replace", "path": "/items/4242/done", "value": True}] and "/items\u00004200-4299" in js.get("bigHighlighted", []),
              "a 10,000-item diff is one operation, and the collapsed chunk holding it is marked", json.dumps(js.get("bigPatch")))
        errors = js.get("payloadErrors", [])
        check(len(errors) == 4 and errors[0] and errors[1] and errors[2] is None and errors[3] is None,
              "the payload check: broken JSON and non-objects refused, an object or nothing accepted", json.dumps(errors))

        # Commands: only when the server lists them (issue 13's commands).
        listing = json.loads(common.http_get(app.base + "/viewmodels", read_token))
        if listing.get("commands") and any(listing["commands"].values()):
            check(wait_until(lambda: page.state("commandCount")) , f"command buttons shown for {listing['commands']}")
            name = next(n for n, c in listing["commands"].items() if c)
            command = listing["commands"][name][0]
            version = app.version()
            page.element(f".vm[data-name='{name}'] button.command[data-command='{command}']").click()
            result = wait_until(lambda: (lambda t: t if t and t != "Sending…" else None)(
                page.js(f"const r = document.querySelector(\".vm[data-name='{name}'] .commands .result\"); return r && r.innerText")))
            check(result, f"clicking {name}.{command}: {result}")
            check(wait_until(lambda: app.version() > version) or "refused" in (result or ""), f"the command reached the server ({result})")
        else:
            print("  NOTE the server lists no view-model commands (GET /viewmodels has no \"commands\"): the command-button check is skipped; "
                  "the issue-13 commands branch makes it active")
            check(page.state("commandCount") == 0, "no command buttons without commands")

        subscribers = wait_until(lambda: page.js("const o = document.getElementById('health-subscribers'); return o.dataset.events && Number(o.dataset.events) >= 1 && o.innerText"))
        check(subscribers, f"health: subscribers {subscribers}")
        check(wait_until(lambda: (page.text("health-rate") or "–") != "–"), f"health: actions/s {page.text('health-rate')}")

        # Time travel to an action the page did not see live: reload (the session keeps the token).
        browser.refresh()
        check(wait_until(lambda: page.state("ready")), "after a reload the session's token is used without asking")
        check(not page.js("return document.getElementById('login').open"), "no token dialog after the reload")
        wait_until(lambda: page.js(f"return !!document.getElementById('action-{before + 1}')"))
        page.element(f"#action-{before + 1}").click()
        summary = wait_until(lambda: (lambda t: t if t and "replayed by the server" in t else None)(page.text("detail-summary")))
        patch = page.text("detail-patch") or ""
        check(summary and "/counter" in patch, f"an older action's state replayed by the server: {summary}; patch {' '.join(patch.split())}")

        # --- 3. reconnect ----------------------------------------------------------------------
        version = app.version()
        code = app.stop()
        check(code == 0, f"the server stopped cleanly (exit {code})")
        check(wait_until(lambda: page.state("connection.state") == "reconnecting"), "the page says it is reconnecting", json.dumps(page.state("connection")))
        app.start()
        save_pids()
        resumed = wait_until(lambda: (lambda n: n if any("resumed after" in x or "reconnected with Last-Event-ID" in x for x in n) else None)(page.state("notices") or []), 20)
        check(resumed and any("Last-Event-ID" in x for x in resumed), "after a restart the page reconnected with Last-Event-ID and says so",
              json.dumps(page.state("notices")))
        print("    notices: " + json.dumps(page.state("notices")))
        answer = page.dispatch("increase", "")
        check(answer and f"version {version + 1}" in answer, f"dispatch after the restart: {answer}")
        check(wait_until(lambda: page.version() == version + 1), f"the page follows the restarted server: version {page.version()}")
        check(wait_until(lambda: any("resumed after" in x for x in page.state("notices") or [])), "the page said how the stream resumed",
              json.dumps(page.state("notices")))
        counter = json.loads(common.http_get(app.base + "/state", read_token))["counter"]
        shown = wait_until(lambda: page.js("const v = document.querySelector('.vm[data-name=counter] .tree-row[data-pointer=\"/counter\"] .value'); return v && v.textContent"))
        check(wait_until(lambda: page.js("const v = document.querySelector('.vm[data-name=counter] .tree-row[data-pointer=\"/counter\"] .value'); return v && v.textContent") == f'"{counter}"'),
              f"the view-model stream resumed too: counter {counter}", str(shown))
        wait_until(lambda: (page.text("health-rate") or "–") != "–")
        # Tall enough for every panel, health charts included: docs/inspector.png is this one.
        browser.set_window_size(1280, 1280)
        wait_until(lambda: page.js("return window.innerHeight >= 1100"))
        wait_until(lambda: page.js("return !!document.querySelector('#log-list li:first-child .time:not(.local)')"), 3)
        page.screenshot(out, "inspector-laptop")
        browser.set_window_size(1280, 900)

        # A cookie holding another token (a page of another server on this host set it): the
        # streams are refused on their next connection; the page sets the cookie again from its
        # session's token and goes on.
        page.js("document.cookie = 'remvvmAuthorization=someone-else; Path=/; SameSite=Strict'")
        app.stop()
        app.start()
        save_pids()
        check(wait_until(lambda: any("held another token" in x for x in page.state("notices") or []), 20),
              "a stream refused with a stale cookie: the page sets the cookie again from its token", json.dumps(page.state("notices")[-4:]))
        answer = page.dispatch("increase", "")
        check(wait_until(lambda: page.version() == app.version() and page.state("connection.state") == "live"),
              f"and follows the server again: version {page.version()}", json.dumps(page.state("connection")))

        # --- 4. keyboard and layout ------------------------------------------------------------
        tree = page.element("#state-tree")
        page.js("document.getElementById('state-tree').focus()")
        tree.send_keys(Keys.HOME)
        tree.send_keys(Keys.ARROW_DOWN)
        tree.send_keys(Keys.ARROW_DOWN)
        active = lambda: page.js("const r = document.querySelector('#state-tree .tree-row.active'); return r && [r.dataset.pointer, r.getAttribute('aria-expanded')]")
        check(active() == ["/user", "true"], f"arrows move through the state tree: {active()}")
        tree.send_keys(Keys.ARROW_LEFT)
        check(wait_until(lambda: active() == ["/user", "false"]), f"ArrowLeft collapses: {active()}")
        tree.send_keys(Keys.ENTER)
        check(wait_until(lambda: active() == ["/user", "true"]), f"Enter expands again: {active()}")
        browser.set_window_size(390, 844)
        wait_until(lambda: page.js("return window.innerWidth <= 400"))
        widths = page.js("return [document.documentElement.scrollWidth, window.innerWidth]")
        check(widths[0] <= widths[1], f"phone width: no horizontal scrolling (content {widths[0]} px, window {widths[1]} px)")
        page.screenshot(out, "inspector-phone")
        browser.set_window_size(1280, 900)

        # --- 5. read-only -----------------------------------------------------------------------
        page.element("#forget-token").click()
        check(wait_until(lambda: page.js("return document.getElementById('login').open")), "after Forget token the page asks again")
        page.element("#login-token").send_keys(read_token + "\n")
        check(wait_until(lambda: page.state("ready")), "with the read-only token the page goes live")
        check(page.hidden("dispatch-form") and not page.hidden("dispatch-readonly"), "a read-only token: no dispatch form, and the page says why")
        check(page.js("return [...document.querySelectorAll('.vm .commands')].every(c => c.hidden)"), "a read-only token: no command buttons")
        check("token: read" == (page.text("access-mode") or "").strip(), f"the page shows the scope: {page.text('access-mode')}")
        page.screenshot(out, "inspector-read-only")
        results["app_errors"] = page.state("errors")
        check(page.state("errors") == [], "no script errors in the page", redacted(json.dumps(page.state("errors"))))

        # --- 5b. the store picker ------------------------------------------------------------------
        inspector_stores.run(page, browser, app.base, {"manage": manage_token, "write": write_token}, check, wait_until, out)
        app.stop()

        # --- 6. large state ----------------------------------------------------------------------
        large_port = free_port()
        large = Server("large-state-server", [args.large_bin, str(large_port), "10000"], env, large_port, work / "large.log", server_pids)
        large.start()
        save_pids()
        print(f"\n[inspector on {large.base}: 10,000 items, {LOAD_RATE} actions/s for {LOAD_SECONDS} s]")
        started = time.monotonic()
        browser.get(large.base + "/inspector")
        ready = wait_until(lambda: page.state("ready"), 30)
        first_seconds = time.monotonic() - started
        check(ready, f"the page shows the 10,000-item state {first_seconds:.2f} s after loading")
        page.element("#state-tree .tree-row[data-pointer='/items']").click()
        check(wait_until(lambda: len(page.elements("#state-tree .tree-row.kind-chunk")) > 10),
              "items opens as groups of 100 ([0 … 99], …), only the visible rows drawn",
              str(len(page.elements("#state-tree .tree-row"))))
        page.js(MEASURE)
        load = {}
        loader = threading.Thread(target=post_actions, args=(large.base, LOAD_SECONDS, LOAD_RATE, load))
        loader.start()
        start_version = wait_until(lambda: load.get("version"), 10) or 0
        # Mid-load, once half the actions were answered: an interaction while the stream runs.
        wait_until(lambda: (load.get("version") or 0) - start_version >= LOAD_RATE * LOAD_SECONDS // 2, LOAD_SECONDS * 2)
        chunk = page.element("#state-tree .tree-row.kind-chunk")
        page.js(INTERACTION, chunk.get_attribute("data-pointer"))
        chunk.click()
        opened = wait_until(lambda: page.js("return window.interaction.shown !== null"), 5)
        interaction_ms = page.js("return window.interaction.shown && Math.round(window.interaction.shown - window.interaction.clicked)")
        check(opened, f"mid-load, a click on the tree opens the group in {interaction_ms} ms (from the click event to the rows drawn, in the page)")
        loader.join(LOAD_SECONDS + 20)
        ended = time.monotonic()
        server_end = large.version()
        page_end = page.version()
        caught_up = wait_until(lambda: page.version() == server_end, 10)
        catch_up_ms = round((time.monotonic() - ended) * 1000) if caught_up else None
        measured = page.js(MEASURED)
        behind_notices = [n for n in page.state("notices") or [] if "dropped" in n or "could not resume" in n]
        results["large_state"] = {
            "posted": load, "server_version_at_end": server_end, "page_version_at_end": page_end,
            "page_caught_up": bool(caught_up), "catch_up_ms": catch_up_ms, "first_state_s": round(first_seconds, 2), "mid_load_click_ms": interaction_ms,
            "stream_drops": behind_notices, "mode": page.state("mode"), **measured,
        }
        print("    " + json.dumps(results["large_state"]))
        check(load.get("sent", 0) >= LOAD_RATE * LOAD_SECONDS * 0.9, f"the load ran: {load.get('sent')} actions in {load.get('seconds', 0):.1f} s")
        check(page_end is not None and server_end - page_end <= LOAD_RATE,
              f"at the end the page showed version {page_end}, the server {server_end} ({server_end - (page_end or 0)} in flight, at most {LOAD_RATE} = 1 s allowed)")
        check(caught_up, f"the page then shows the server's version {server_end}", str(page.version()))
        check(not behind_notices, "the stream was never cut off for falling behind", json.dumps(behind_notices))
        check(measured["long_task_ms"] <= 0.2 * measured["window_ms"],
              f"main thread: {measured['long_tasks']} long tasks, {measured['long_task_ms']} ms in {measured['window_ms']} ms "
              f"(longest {measured['longest_task_ms']} ms; timer delay median {measured['timer_delay_p50_ms']} ms, max {measured['timer_delay_max_ms']} ms)")
        page.screenshot(out, "inspector-large-state")

        # Older actions, and time travel past what the server keeps (its ring holds about 117
        # versions of a 0.5 MB state: 64 MiB).
        shown = page.state("logSize")
        page.element("#log-older").click()
        check(wait_until(lambda: page.state("logSize") >= shown + 90), f"Load older actions: {shown} entries, then {page.state('logSize')}")
        old_version = page.js("return Number(document.querySelector('#log-list li:last-child').dataset.version)")
        page.element("#log-list li:last-child").click()
        summary = wait_until(lambda: (lambda t: t if t and "Loading" not in t else None)(page.text("detail-summary")))
        check(old_version < server_end - 300 and summary and "history ends" in summary,
              f"version {old_version}, long gone from the server's ring: the page says where history ends: {summary}")

        # --- 7. the same state at a rate it can be streamed at -------------------------------------
        streaming = wait_until(lambda: page.state("mode") not in ("sampling", None) and page.state("connection.state") == "live", 20)
        check(streaming, f"with the load gone the page streams every version again ({page.state('mode')})",
              json.dumps(page.state("notices")[-3:]))
        page.js(MEASURE)
        slow = {}
        post_actions(large.base, 5, 10, slow)
        server_end = large.version()
        caught_up = wait_until(lambda: page.version() == server_end, 10)
        measured = page.js(MEASURED)
        results["large_state_streamed"] = {"posted": slow, "server_version_at_end": server_end, "mode": page.state("mode"), **measured}
        print("    " + json.dumps(results["large_state_streamed"]))
        check(caught_up and page.state("mode") != "sampling", f"10 actions/s streamed (full states, diffed in the worker): the page shows version {server_end}")
        check(measured["long_task_ms"] <= 0.2 * measured["window_ms"],
              f"main thread while streaming: {measured['long_tasks']} long tasks, {measured['long_task_ms']} ms in {measured['window_ms']} ms "
              f"(timer delay max {measured['timer_delay_max_ms']} ms)")
        check(page.state("errors") == [], "no script errors in the page", json.dumps(page.state("errors")))
    except Exception as error:
        print(redacted("".join(traceback.format_exception(error))), file=sys.stderr)
        check(False, "the run went through", redacted(f"{type(error).__name__}: {error}".splitlines()[0]))
        try:
            page.screenshot(out, "failure")
            (out / "failure.json").write_text(redacted(json.dumps({"inspector": page.js("return window.inspector"), "console": browser.get_log("browser")}, indent=2, default=str)))
        except Exception:
            pass
    finally:
        (out / "inspector-results.json").write_text(json.dumps(results, indent=2) + "\n")
        try:
            browser.quit()
        except Exception as error:
            print(f"could not quit the browser: {error}", file=sys.stderr)
        for server in (app, large):
            if server:
                server.stop()

    return checks.summary("inspector-test", out, "screenshots and figures")


if __name__ == "__main__":
    sys.exit(common.run_main(run, "--server-bin", "--large-bin", "--work", "--out", "--pids"))
