#!/usr/bin/env python3
"""Checks that a schemathesis run changed the stores only by valid actions the server accepted.

Usage: account.py snapshot BASE_URL > BEFORE_JSON          every store's version before a run
       account.py check BASE_URL OPENAPI_JSON BEFORE_JSON HAR_FILE

schemathesis runs with one worker, so its HAR file lists every request it sent, in order. A store
may change only through POST /actions and POST /viewmodels/<name>/commands/<command> (the store
default), or the same under /stores/{id}/ (the store id), answered 200 that are not replays (no
`Idempotent-Replayed: true`): POST .../actions by one version per action object of its body, a
command by one version, an action of the type the command is named after (what each command of
the example app dispatches). A navigation action that would change nothing (a pop on a root
screen, a dismissal without a modal, the tab already selected) makes no version, so a request
moves its store by at least its other actions and at most all of them. A store exists from a PUT
answered 201 at version 0 and ends with a DELETE answered 204. Then:
  1. each such request is valid by the document: its body matches the request body schema (an
     action of a registered type with a payload of its schema, or a non-empty array of them; a
     command's body schema, or no body where the body is optional), it was sent as
     application/json, and its documented headers (Idempotency-Key) match theirs;
  2. its 200 names its store's version before it plus its number of actions (less navigation
     actions that changed nothing), so no request answered otherwise moved the store in between;
  3. every store's version now is its version before the run plus all those actions, and the
     stores now are exactly those before, less those deleted, plus those created: nothing moved
     or made a store afterwards, nor with an answer schemathesis did not see (a request that
     timed out);
  4. each store's action log (GET .../actions?since=) lists exactly the actions each request
     made, in that order (as far back as the in-memory action log still reaches).
A 202 (taken by middleware, maybe reduced later) cannot be accounted and fails: the example app
has no middleware that defers.
Prints one summary line; exits 1 with the first discrepancy.
"""
import json
import sys
import urllib.parse
import urllib.request

from jsonschema import Draft202012Validator
from referencing import Registry
from referencing.jsonschema import DRAFT202012

DOCUMENT = "urn:remvvm:openapi"


def get(base, path):
    with urllib.request.urlopen(base + path, timeout=10) as response:
        return json.load(response)


def fail(message):
    print(f"FAIL (state): {message}", file=sys.stderr)
    sys.exit(1)


def validators(document, path):
    """Validators of POST `path`: the JSON body, whether a body is required, and each documented
    header by its name."""
    registry = Registry().with_resource(DOCUMENT, DRAFT202012.create_resource(document))
    operation = document["paths"][path]["post"]
    if list(operation["requestBody"]["content"]) != ["application/json"]:
        fail(f"POST {path} documents a request body other than application/json")
    pointer = path.replace("~", "~0").replace("/", "~1")
    body = Draft202012Validator(
        {"$ref": f"{DOCUMENT}#/paths/{pointer}/post/requestBody/content/application~1json/schema"},
        registry=registry,
    )
    headers = {
        parameter["name"].lower(): Draft202012Validator(parameter["schema"], registry=registry)
        for parameter in operation.get("parameters", [])
        if parameter["in"] == "header"
    }
    return body, operation["requestBody"].get("required", False), headers


STORE_PREFIX = "/stores/{store}"


def route(url):
    """(store id, the path as the store's root route, the prefix of the documented path) of a
    request's URL: a route under /stores/{id}/ is the store id's, a root route the store default's."""
    path = urllib.parse.unquote(urllib.parse.urlsplit(url).path)
    if path.startswith("/stores/"):
        parts = path.split("/", 3)
        return parts[2], "/" + (parts[3] if len(parts) > 3 else ""), STORE_PREFIX
    return "default", path, ""


def dispatching_path(path):
    """The documented root path of a store route that may move the store, or None."""
    if path == "/actions":
        return path
    parts = path.split("/")
    if len(parts) == 5 and parts[1] == "viewmodels" and parts[3] == "commands":
        return path
    return None


def store_path(store, path):
    return path if store == "default" else f"/stores/{urllib.parse.quote(store, safe='')}{path}"


def versions(base):
    """Every store's version: {id: version}, the pages of GET /stores."""
    found, after = {}, None
    while True:
        page = get(base, "/stores?limit=1000" + (f"&after={urllib.parse.quote(after, safe='')}" if after else ""))
        found.update({store["id"]: store["version"] for store in page["stores"]})
        after = page["next"]
        if after is None:
            return found


class Store:
    """What the run did to one store since it was last created (or since the run began)."""

    def __init__(self, version):
        self.before = self.version = version
        self.chunks = []  # per accepted request: (types it sent, navigation flags, versions it made)


def check_log(base, store, account):
    """The store's action log since the run (or its creation) against the requests' chunks."""
    logged, since = [], account.before
    while since < account.version:
        page = get(base, store_path(store, f"/actions?since={since}&limit=1000"))
        if not page["actions"]:
            break
        logged += [record["type"] for record in page["actions"]]
        since = page["actions"][-1]["version"]
    # The in-memory log keeps only the newest actions: compare, from the newest back, what it has.
    end = len(logged)
    for types, navigation, made in reversed(account.chunks):
        if end == 0:
            break
        got = logged[max(0, end - made):end]
        end -= len(got)
        # what it made: its actions in order, navigation actions that changed nothing left out
        expected_tail = iter(reversed(list(zip(types, navigation))))
        for kind in reversed(got):
            for sent, is_navigation in expected_tail:
                if sent == kind:
                    break
                if not is_navigation:
                    fail(f"store {store}: the action log lacks a {sent} it accepted")
            else:
                fail(f"store {store}: the action log has a {kind} no accepted request sent")
    return len(logged)


def check(base, document_path, before_path, har_path):
    with open(document_path) as file:
        document = json.load(file)
    with open(before_path) as file:
        before = json.load(file)
    with open(har_path) as file:
        entries = json.load(file)["log"]["entries"]
    navigation_types = {name for name in (action.get("title") for action in document["components"]["schemas"]["Action"]["oneOf"])
                        if name and name.startswith("navigation.")}

    stores = {store: Store(version) for store, version in before.items()}
    posts = commands = replays = accepted = 0
    for entry in entries:
        request, response = entry["request"], entry["response"]
        store, path, prefix = route(request["url"])
        status = response["status"]
        if request["method"] == "PUT" and path == "/" and status == 201:
            stores[store] = Store(0)
            continue
        if request["method"] == "DELETE" and path == "/" and status == 204:
            stores.pop(store, None)
            continue
        path = dispatching_path(path) if request["method"] == "POST" else None
        if path is None:
            continue
        posts += 1
        documented = prefix + path
        text = request.get("postData", {}).get("text", "")
        if status == 202:
            fail(f"202 to POST {documented} {text[:200]!r}: a deferred action cannot be accounted")
        if status != 200:
            continue
        if any(h["name"].lower() == "idempotent-replayed" and h["value"] == "true" for h in response["headers"]):
            replays += 1
            continue
        if documented not in document["paths"]:
            fail(f"POST {documented} was answered 200, but the document does not describe it")
        body_validator, body_required, header_validators = validators(document, documented)

        sent = {h["name"].lower(): h["value"] for h in request["headers"]}
        what = f"POST {store_path(store, path)} {text[:200]!r} (headers {sent}) was answered 200"
        is_command = path != "/actions"
        if is_command and not text and not body_required:
            body = None  # an optional body left out: read as {}
        else:
            if sent.get("content-type", "").split(";")[0].strip().lower() != "application/json":
                fail(f"{what}, but it is not sent as application/json")
            try:
                body = json.loads(text)
            except ValueError:
                fail(f"{what}, but its body is not JSON")
            errors = sorted(body_validator.iter_errors(body), key=lambda error: error.path)
            if errors:
                fail(f"{what}, but the document does not allow its body: {errors[0].message[:300]}")
        for name, validator in header_validators.items():
            if name in sent and not validator.is_valid(sent[name]):
                fail(f"{what}, but the document does not allow its {name} header")
        if store not in stores:
            fail(f"{what}, but no store {store} exists by the requests before it")

        if is_command:
            commands += 1
            types = [path.rsplit("/", 1)[-1]]
        else:
            types = [action["type"] for action in (body if isinstance(body, list) else [body])]
        navigation = [kind in navigation_types for kind in types]
        account = stores[store]
        answered = json.loads(response["content"]["text"])["version"]
        made = answered - account.version
        if not len(types) - sum(navigation) <= made <= len(types):
            fail(f"{what} with version {answered}, not {account.version} + {len(types)} "
                 f"({sum(navigation)} of them navigation): something else moved the store")
        account.version = answered
        account.chunks.append((types, navigation, made))
        accepted += made

    now = versions(base)
    if set(now) != set(stores):
        fail(f"the stores now {sorted(set(now) ^ set(stores))[:10]} differ from what the requests made and deleted")
    compared = 0
    for store, account in stores.items():
        if now[store] != account.version:
            fail(f"store {store}: the version went from {account.before} to {now[store]}, "
                 f"but the accepted actions account for {account.version - account.before}")
        compared += check_log(base, store, account)
    moved = sum(1 for account in stores.values() if account.chunks)
    print(f"state: {posts} POSTs that dispatch ({commands} accepted commands), {accepted} versions made by valid actions "
          f"(+{replays} replays) in {moved} of {len(stores)} stores, every version accounted for, "
          f"action logs match ({compared} compared)")


def main():
    if sys.argv[1:2] == ["snapshot"] and len(sys.argv) == 3:
        print(json.dumps(versions(sys.argv[2].rstrip("/"))))
    elif sys.argv[1:2] == ["check"] and len(sys.argv) == 6:
        check(sys.argv[2].rstrip("/"), *sys.argv[3:6])
    else:
        sys.exit(__doc__)


main()
