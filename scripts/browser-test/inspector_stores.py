"""The inspector's store picker in a real browser (issue 35, item 6), run by inspector_driver.py.

On a server with store routes and three tokens (manage = read+dispatch+manage, write =
read+dispatch, read): 25 stores room-00..room-24 and lobby are created (more than a page of the
picker's listing), room-03 gets two actions. With the manage token the picker lists the stores a
page at a time (More), filters them by prefix, and a click inspects room-03: the address says
?store=room-03, the page shows its version, state and log, follows an action posted to it from
outside (its event stream), and a dispatch through the form goes to room-03 while default's version
stays; its view models come from its own view-model stream. A reload keeps the store. A typed
unknown id gets the store-not-found problem, not a blank page. With the write token (no manage)
the picker says it cannot list, and a typed id still works.
"""
import json
import urllib.request

STORE = "room-03"


def send(base, method, path, token, body=None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(base + path, data=data, method=method,
                                     headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=5) as response:
        text = response.read().decode()
        return response.status, json.loads(text) if text else None


def version_of(base, path, token):
    request = urllib.request.Request(base + path, method="HEAD", headers={"Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(request, timeout=5) as response:
        return int(response.headers["ETag"].strip('"').split("-")[0])


def listed(page):
    return page.js("return [...document.querySelectorAll('#store-list .store-choice')].map(b => b.dataset.store)")


def login(page, wait_until, token):
    # The button shows once the page knows its token (GET /access).
    if not wait_until(lambda: not page.hidden("forget-token")):
        return False
    page.element("#forget-token").click()
    if not wait_until(lambda: page.js("return document.getElementById('login').open")):
        return False
    page.element("#login-token").send_keys(token + "\n")
    return wait_until(lambda: page.state("ready"))


def open_picker(page, wait_until):
    page.element("#store-open").click()
    return wait_until(lambda: page.js("return document.getElementById('store-dialog').open"))


def run(page, browser, base, tokens, check, wait_until, out):
    manage, write = tokens["manage"], tokens["write"]
    print("\n[store picker]")
    for index in range(25):
        send(base, "PUT", f"/stores/room-{index:02}", manage)
    send(base, "PUT", "/stores/lobby", manage)
    for _ in range(2):
        send(base, "POST", f"/stores/{STORE}/actions", write, {"type": "increase"})
    default_version = version_of(base, "/state", write)

    # --- the listing, with the manage token ---------------------------------------------------
    check(login(page, wait_until, manage), "with a manage token the page goes live on default")
    check(page.text("store-name") == "default", f"the header names the store: {page.text('store-name')}")
    check(open_picker(page, wait_until), "Change store opens the picker")
    first = wait_until(lambda: (lambda s: s if len(s) == 20 else None)(listed(page)))
    check(first and first[0] == "default" and first[1] == "lobby", f"the first page lists 20 stores by id: {first and first[:3]}…")
    check(not page.hidden("store-more"), "more than a page: a More button (next)")
    page.element("#store-more").click()
    everything = wait_until(lambda: (lambda s: s if len(s) == 27 else None)(listed(page)))
    check(everything and everything[-1] == "room-24" and page.hidden("store-more"),
          f"More lists the rest: {len(everything or [])} stores, ending at {(everything or ['?'])[-1]}, no More after the last page")
    page.element("#store-field").send_keys("room-0")
    filtered = wait_until(lambda: (lambda s: s if s and all(x.startswith("room-0") for x in s) else None)(listed(page)))
    check(filtered and len(filtered) == 10, f"a prefix filters the list: {filtered}")
    page.screenshot(out, "inspector-store-picker")

    # --- inspecting room-03 -------------------------------------------------------------------
    page.element(f".store-choice[data-store='{STORE}']").click()
    check(wait_until(lambda: f"store={STORE}" in browser.current_url and page.state("ready") and page.state("store") == STORE),
          f"a click inspects {STORE}: the address is {browser.current_url}")
    check(page.text("store-name") == STORE, f"the header names it: {page.text('store-name')}")
    check(wait_until(lambda: page.version() == 2), f"its version is shown: {page.version()}")
    counter = lambda: page.js("const r = document.querySelector('#state-tree .tree-row[data-pointer=\"/counter\"]'); return r && r.querySelector('.value').textContent")
    check(wait_until(lambda: counter() == "2"), f"its state: counter {counter()}")
    log = lambda: page.js("return [...document.querySelectorAll('#log-list li')].map(li => li.dataset.version)")
    check(wait_until(lambda: log() == ["2", "1"]), f"its action log: versions {log()}")
    send(base, "POST", f"/stores/{STORE}/actions", write, {"type": "increase"})
    check(wait_until(lambda: page.version() == 3 and counter() == "3"), f"an action posted to {STORE} arrives by its event stream: version {page.version()}")
    answer = page.dispatch("increase", "")
    check(answer and "version 4" in answer, f"dispatch through the form goes to {STORE}: {answer}")
    check(wait_until(lambda: page.version() == 4), f"the page shows version 4: {page.version()}")
    check(version_of(base, f"/stores/{STORE}/state", write) == 4, f"{STORE} is at version 4 on the server")
    check(version_of(base, "/state", write) == default_version, f"default's version did not move ({default_version})")
    vm_counter = lambda: page.js("const v = document.querySelector('.vm[data-name=counter] .tree-row[data-pointer=\"/counter\"] .value'); return v && v.textContent")
    check(wait_until(lambda: vm_counter() == '"4"') and "no view-model streams" not in (page.text("vm-status") or ""),
          f"its view models stream from {STORE}: counter {vm_counter()} ({page.text('vm-status')})")
    page.screenshot(out, "inspector-store")

    browser.refresh()
    check(wait_until(lambda: page.state("ready") and page.version() == 4), "a reload keeps the store and its version")
    check(page.text("store-name") == STORE and f"store={STORE}" in browser.current_url, f"after the reload: {page.text('store-name')}")

    # --- an unknown store ---------------------------------------------------------------------
    open_picker(page, wait_until)
    page.element("#store-field").send_keys("no-such-store\n")
    problem = wait_until(lambda: (lambda t: t if t and "no-such-store" in t else None)(page.text("store-problem")))
    check(problem and "There is no store" in problem and "urn:remvvm:problem:store-not-found" in problem,
          "a typed unknown id: the page says there is no such store (404 problem shown)", " ".join((problem or "").split()))
    check(page.state("storeMissing") and page.hidden("state-panel"), "and shows no empty panels")
    page.screenshot(out, "inspector-store-unknown")

    # --- a token without manage ---------------------------------------------------------------
    # Forget token reloads the page: a navigation from a page with both streams open (before the
    # page closed them on pagehide, this waited behind them for a connection).
    browser.get(f"{base}/inspector?store={STORE}")
    check(login(page, wait_until, write), f"with a token without manage the page still inspects {STORE}")
    open_picker(page, wait_until)
    note = wait_until(lambda: (lambda t: t if t and "may not list" in t else None)(page.text("store-note")))
    check(note and not listed(page), f"the picker says it cannot list: {note}")
    page.element("#store-field").send_keys("room-04\n")
    check(wait_until(lambda: "store=room-04" in browser.current_url and page.state("ready") and page.version() == 0),
          f"a typed id still works: room-04 at version {page.version()}")
    check(page.state("errors") == [], "no script errors in the page", json.dumps(page.state("errors")))
