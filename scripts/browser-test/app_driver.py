#!/usr/bin/env python3
"""The real-browser test of the thin client, GET /app (issue 36), run by scripts/app-test.sh.

    app_driver.py --server-bin BIN --work DIR --out DIR --pids FILE

Starts remvvm-server itself (durable, in DIR/data, on a free port of 127.0.0.1, without tokens,
so that it can stop it and start it again on the same port and data; later one in memory with a
token drawn for the run) and drives Debian's headless
Chromium through chromedriver and selenium, with the helpers of driver.py and inspector_driver.py:

  1. loads /app: the counter tab at its root, live; a command (+) changes the counter shown;
  2. push: "In binary", then "In hexadecimal" (counterInBase, keys 2 and 16); a command on the
     pushed screen; the browser's Back button pops one screen, the page's Back button another;
  3. tabs: a screen pushed on the counter tab, a switch to the account tab (nobody logged in),
     and back: the counter tab kept its screen;
  4. modal: "Log in" shows the login modal (tabs hidden); the browser's Back dismisses it; shown
     again, a login through its form closes it by itself and the greeting shows;
  5. reload: the same screen; server restart: the page says plainly that the connection is lost,
     a tap meanwhile says the server cannot be reached, and once the server is back the page is
     live again on the same screen and its commands work;
  6. sessions: with store routes (PUT /stores/{id}), a second browser (its own profile, so its own
     localStorage) gets its own session, at the start, and what one does leaves the other as it
     is; a reload keeps each its session; a page opened with ?session=<the first one's> shows the
     first one's screen. Without store routes (the root routes, store "default") the second
     browser shows the same screen as the first, and the same session checks then run through
     store_routes_proxy.py, a stand-in for the store routes (a server per store behind a proxy);
  7. a server with tokens: the page asks for one, refuses a wrong one, goes live with the right
     one, and its commands carry it; a token over the sessions does not reach the store default;
     a token without manage cannot open a session, and the page says so (403).

Screenshots and, on failure, the page's console go to --out. Prints a summary ending in
"app-test: N passed, M failed" and exits 1 on any failure.
"""
import json
import os
import pathlib
import sys
import traceback
import urllib.error
import urllib.request

import driver as common
from inspector_driver import Page, Server, free_port, wait_until
from store_routes_proxy import StoreRoutesProxy


class AppPage(Page):
    """The browser on /app: what the page says in its body's data attributes, and its buttons."""

    def data(self, name):
        return self.js("return document.body.dataset[arguments[0]] ?? null", name)

    def shows(self, screen, key="", seconds=15):
        """Waits until the page is live on `screen` (and `key`)."""
        return wait_until(lambda: self.data("connection") == "live" and self.data("screen") == screen
                          and self.data("key") == key, seconds)

    def click(self, element_id):
        self.element("#" + element_id).click()

    def value(self):
        return self.text("counter-value")

    def session(self):
        return self.text("session") or ""


def check_sessions(check, first, second, app, forget=None):
    """Two browsers on a server with store routes: a session each, independent; ?session= shares.
    With `forget(id)` (the stand-in's), a store that vanishes is made again by the page."""
    # A session of its own: with real store routes the session of the checks before (kept in
    # localStorage) is still there, on the screen they left it at.
    first.js("localStorage.clear()")
    first.browser.get(app)
    check(first.shows("counter"), "the first browser starts at the counter's root")
    check(first.session().startswith("session "), f"in a session of its own: {first.session()}")
    session = first.session().split(" ", 1)[1]
    first.click("base-2")
    check(first.shows("counterInBase", "2"), "it pushes a screen")
    second.browser.get(app)
    check(second.shows("counter"), "a second browser (its own storage) starts at the counter's root")
    check(second.session().startswith("session ") and second.session() != first.session(),
          f"in another session: {second.session()}")
    second.click("tab-account")
    check(second.shows("greetings"), "it switches to the account tab")
    check(first.data("screen") == "counterInBase" and first.data("key") == "2" and first.data("tab") == "counter",
          "the first browser's screen is unchanged")
    first.browser.refresh()
    check(first.shows("counterInBase", "2") and first.session() == f"session {session}",
          "after a reload the first browser has its session (localStorage) and its screen")
    if forget:
        forget(session)
        check(wait_until(lambda: first.data("connection") != "live", 10), "the first session's store is gone: the page says so")
        check(first.shows("counter", "", 20) and first.session() == f"session {session}",
              "the page makes its session's store again (PUT) and shows its start")
        first.click("base-2")
        check(first.shows("counterInBase", "2"), "and navigates in it")
    second.browser.get(f"{app}?session={session}")
    check(second.shows("counterInBase", "2"), "?session=<the first one's> shows the first session's screen")


def status_of(url, token):
    """The status of a GET of `url` with `token`."""
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def store_get(base, prefix, path):
    with urllib.request.urlopen(f"{base}/{prefix}{path}", timeout=5) as response:
        return json.loads(response.read())


def run(args):
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    work = pathlib.Path(args.work)
    checks = common.Checks()
    check = checks.check
    server_pids, browser_pids = [], []

    def save_pids():
        pathlib.Path(args.pids).write_text("\n".join(str(p) for p in browser_pids + server_pids) + "\n")

    env = {k: v for k, v in os.environ.items() if not k.startswith("REMVVM_")}
    port = free_port()
    (work / "config.json").write_text("{}\n")
    server = Server("remvvm-server", [args.server_bin, "--host", "127.0.0.1", "--port", str(port), "--data-dir", str(work / "data"),
                                      "--config", str(work / "config.json"), "--log-level", "info"],
                    env, port, work / "server.log", server_pids)
    browsers = []

    def new_browser(name):
        browser = common.start_browser(str(work / f"{name}.pids"), str(work / f"chromedriver-{name}.log"))
        browsers.append(browser)
        browser_pids.extend(int(p) for p in (work / f"{name}.pids").read_text().split())
        save_pids()
        browser.set_window_size(480, 800)
        return AppPage(browser)

    page = new_browser("first")
    try:
        server.start()
        save_pids()
        app = server.base + "/app"

        # --- 1. start -------------------------------------------------------------------------
        print(f"\n[the thin client on {app}]")
        page.browser.get(app)
        check(page.shows("counter"), "the page is live on the counter tab's root screen", f"{page.data('connection')} {page.data('screen')}")
        session = page.session()
        with_stores = session.startswith("session ")
        prefix = f"stores/{session.split(' ', 1)[1]}/" if with_stores else ""
        print(f"    {session}")
        start = int(page.value() or "0")
        page.click("increase")
        check(wait_until(lambda: page.value() == str(start + 1)), f"+ sends the counter's command: {page.value()}")
        check(store_get(server.base, prefix, "viewmodels/counter") == {"counter": str(start + 1)}, "the store has it")
        page.screenshot(out, "counter")

        # --- 2. push, pop, Back -----------------------------------------------------------------
        page.click("base-2")
        check(page.shows("counterInBase", "2"), "push: In binary shows counterInBase with key 2")
        check(page.value() == format(start + 1, "b"), f"the counter in base 2: {page.value()}")
        check(not page.hidden("back"), "the page offers Back")
        page.click("increase")
        check(wait_until(lambda: page.value() == format(start + 2, "b")), f"a command of the pushed screen: {page.value()}")
        page.click("base-16")
        check(page.shows("counterInBase", "16"), "push: In hexadecimal over it (key 16)")
        page.screenshot(out, "pushed")
        page.browser.back()
        check(page.shows("counterInBase", "2"), "the browser's Back pops one screen", f"{page.data('screen')} {page.data('key')}")
        page.click("back")
        check(page.shows("counter"), "the page's Back pops to the root")
        check(page.hidden("back"), "no Back on a root screen")

        # --- 3. tabs ------------------------------------------------------------------------------
        page.click("base-8")
        check(page.shows("counterInBase", "8"), "push In octal")
        page.click("tab-account")
        check(page.shows("greetings"), "the account tab shows its greeting screen")
        check(wait_until(lambda: page.text("greeting") == "Nobody is logged in."), f"nobody is logged in: {page.text('greeting')}")
        page.click("tab-counter")
        check(page.shows("counterInBase", "8"), "back on the counter tab, at the screen it was left on")
        page.click("tab-account")
        check(page.shows("greetings"), "the account tab again")

        # --- 4. modal -----------------------------------------------------------------------------
        page.click("show-login")
        check(page.shows("login"), "Log in shows the login modal")
        check(page.data("modal") == "true" and page.hidden("tabs"), "over everything: the tabs are hidden")
        page.screenshot(out, "login-modal")
        page.browser.back()
        check(page.shows("greetings"), "the browser's Back dismisses the modal")
        check(page.data("modal") == "false", "no modal left")
        page.click("show-login")
        check(page.shows("login"), "the login modal again")
        page.element("#first-name").send_keys("Ada")
        page.element("#last-name").send_keys("Lovelace")
        version_before = int(page.data("version"))
        page.click("login-submit")
        check(wait_until(lambda: page.text("greeting") == "Hello Ada Lovelace <3" and page.data("modal") == "false"),
              f"a login through the form closes the modal by itself: {page.text('greeting')}")
        check(int(page.data("version")) == version_before + 1, "in one version (no step showing an unavailable login)")
        page.screenshot(out, "logged-in")

        # --- 5. reload, server restart -----------------------------------------------------------
        page.click("tab-counter")
        check(page.shows("counterInBase", "8"), "the counter tab, in octal")
        shown = (page.data("screen"), page.data("key"), page.value())
        page.browser.refresh()
        check(page.shows("counterInBase", "8") and page.value() == shown[2], "after a reload: the same screen", str(shown))
        check(page.session() == session, "and the same session")
        code = server.stop()
        check(code == 0, f"the server stopped cleanly ({code})")
        check(wait_until(lambda: page.data("connection") in ("reconnecting", "lost")), f"the page says the connection is lost: {page.text('connection')}")
        check("Connection lost" in (page.text("connection") or ""), f"plainly: {page.text('connection')}")
        page.click("tab-account")
        check(wait_until(lambda: "cannot be reached" in (page.text("problem") or "")), f"a tap meanwhile says why nothing happens: {page.text('problem')}")
        page.screenshot(out, "connection-lost")
        server.start()
        save_pids()
        check(page.shows("counterInBase", "8", 20) and page.value() == shown[2], "after the server restart: live again, the same screen")
        page.click("increase")
        check(wait_until(lambda: page.value() == format(int(shown[2], 8) + 1, "o")), f"and its commands work: {page.value()}")

        # --- 6. sessions --------------------------------------------------------------------------
        other = new_browser("second")
        other.browser.get(app)
        if with_stores:
            check_sessions(check, page, other, app)
        else:
            check(other.shows("counterInBase", "8"), "a second browser on the same store shows the same screen")
            other.click("back")
            check(page.shows("counter"), "and what it does, the first one shows (one shared store)")
            # The session path of the client, through a stand-in for the store routes: a server
            # per store behind a proxy (store_routes_proxy.py), on an origin of its own (its own
            # localStorage).
            print("\n[sessions through a stand-in for the store routes: this server has none yet]")
            proxy = StoreRoutesProxy(args.server_bin, env, work, server_pids, port, save_pids)
            try:
                page.browser.get(proxy.base + "/app")
                check_sessions(check, page, other, proxy.base + "/app", proxy.forget)
            finally:
                proxy.stop()

        # --- 7. a server with tokens ---------------------------------------------------------------
        # A session store is created with PUT /stores/{id}: the token needs manage, here only over
        # the sessions' ids.
        token = os.urandom(18).hex()
        no_manage = os.urandom(18).hex()
        secured_port = free_port()
        tokens = f"{token}=read+dispatch+manage@session-*,{no_manage}=read+dispatch@session-*"
        secured = Server("remvvm-server", [args.server_bin, "--host", "127.0.0.1", "--port", str(secured_port),
                                           "--config", str(work / "config.json")],
                         {**env, "REMVVM_IN_MEMORY": "1", "REMVVM_AUTH_TOKENS": tokens},
                         secured_port, work / "secured.log", server_pids)
        try:
            secured.start()
            save_pids()
            print(f"\n[a server with tokens: {secured.base}/app]")
            other.browser.get(secured.base + "/app")
            check(wait_until(lambda: not other.hidden("token-form")), "the page asks for a token")
            check("401" in (other.text("problem") or ""), f"and says why: {other.text('problem')}")
            other.element("#token").send_keys("wrong-token\n")
            check(wait_until(lambda: not other.hidden("token-form") and "the token is not valid" in (other.text("problem") or "")),
                  f"a wrong token is refused, the form asks again: {other.text('problem')}")
            other.element("#token").send_keys(token + "\n")
            check(other.shows("counter") and other.hidden("token-form"), "with the token it is live on the counter")
            other.click("increase")
            check(wait_until(lambda: other.value() == "1"), "and its commands carry the token")
            other.screenshot(out, "token")
            default = status_of(f"{secured.base}/state", token)
            check(default == 404, f"the token over the sessions does not reach the store default: GET /state {default}")
            # A token without manage cannot create the session's store (PUT /stores/{id}).
            page.browser.get(secured.base + "/app")
            check(wait_until(lambda: not page.hidden("token-form")), "another browser is asked for a token too")
            page.element("#token").send_keys(no_manage + "\n")
            check(wait_until(lambda: "403" in (page.text("problem") or "")),
                  f"a token without manage cannot open a session, and the page says so: {page.text('problem')}")
            check(page.data("connection") != "live", "the page is not live on a session it could not open")
        finally:
            secured.stop()
        severe = [entry for browser in browsers for entry in browser.get_log("browser")
                  if entry.get("level") == "SEVERE" and "Uncaught" in entry.get("message", "")]
        check(severe == [], "no uncaught script errors", json.dumps(severe)[:500])
    except Exception as error:
        print("".join(traceback.format_exception(error)), file=sys.stderr)
        check(False, "the run went through", f"{type(error).__name__}: {error}".splitlines()[0])
        try:
            page.screenshot(out, "failure")
            (out / "failure.json").write_text(json.dumps({"body": page.js("return {...document.body.dataset}"),
                                                          "console": page.browser.get_log("browser")}, indent=2, default=str))
        except Exception:
            pass
    finally:
        for browser in browsers:
            try:
                browser.quit()
            except Exception as error:
                print(f"could not quit a browser: {error}", file=sys.stderr)
        server.stop()

    return checks.summary("app-test", out)


if __name__ == "__main__":
    sys.exit(common.run_main(run, "--server-bin", "--work", "--out", "--pids"))
