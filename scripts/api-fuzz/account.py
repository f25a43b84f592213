#!/usr/bin/env python3
"""Checks that a schemathesis run changed the store only by valid actions the server accepted.

Usage: account.py BASE_URL OPENAPI_JSON VERSION_BEFORE HAR_FILE

schemathesis runs with one worker, so its HAR file lists every request it sent, in order. The
store may change only through POST /actions and POST /viewmodels/<name>/commands/<command>
answered 200 that are not replays (no `Idempotent-Replayed: true`): POST /actions by one version
per action object of its body, a command by one version, an action of the type the command is
named after (what each command of the example app dispatches). Then:
  1. each such request is valid by the document: its body matches the request body schema (an
     action of a registered type with a payload of its schema, or a non-empty array of them; a
     command's body schema, or no body where the body is optional), it was sent as
     application/json, and its documented headers (Idempotency-Key) match theirs;
  2. its 200 names the version before it plus its number of actions, so no request answered
     otherwise moved the store in between;
  3. the version now is VERSION_BEFORE plus all those actions: nothing moved it afterwards, nor
     with an answer schemathesis did not see (a request that timed out);
  4. GET /actions?since=VERSION_BEFORE lists exactly those action types, in that order (as far
     back as the in-memory action log still reaches).
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


def dispatching_path(url):
    """The documented path of a request that may move the store, or None."""
    path = urllib.parse.unquote(urllib.parse.urlsplit(url).path)
    if path.endswith("/actions"):
        return "/actions"
    parts = path.split("/")
    if len(parts) >= 5 and parts[-4] == "viewmodels" and parts[-2] == "commands":
        return "/" + "/".join(parts[-4:])
    return None


def main():
    base, document_path, before, har_path = sys.argv[1].rstrip("/"), sys.argv[2], int(sys.argv[3]), sys.argv[4]
    with open(document_path) as file:
        document = json.load(file)
    with open(har_path) as file:
        entries = json.load(file)["log"]["entries"]

    accepted = []  # action types, in the order the server applied them
    posts = commands = replays = 0
    version = before
    for entry in entries:
        request, response = entry["request"], entry["response"]
        path = dispatching_path(request["url"]) if request["method"] == "POST" else None
        if path is None:
            continue
        posts += 1
        text = request.get("postData", {}).get("text", "")
        status = response["status"]
        if status == 202:
            fail(f"202 to POST {path} {text[:200]!r}: a deferred action cannot be accounted")
        if status != 200:
            continue
        if any(h["name"].lower() == "idempotent-replayed" and h["value"] == "true" for h in response["headers"]):
            replays += 1
            continue
        if path not in document["paths"]:
            fail(f"POST {path} was answered 200, but the document does not describe it")
        body_validator, body_required, header_validators = validators(document, path)

        sent = {h["name"].lower(): h["value"] for h in request["headers"]}
        what = f"POST {path} {text[:200]!r} (headers {sent}) was answered 200"
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

        if is_command:
            commands += 1
            types = [path.rsplit("/", 1)[-1]]
        else:
            types = [action["type"] for action in (body if isinstance(body, list) else [body])]
        answered = json.loads(response["content"]["text"])["version"]
        if answered != version + len(types):
            fail(f"{what} with version {answered}, not {version} + {len(types)}: something else moved the store")
        version = answered
        accepted += types

    now = get(base, "/healthz")["version"]
    if now != before + len(accepted):
        fail(f"the version went from {before} to {now}, but the accepted actions account for {len(accepted)}")

    logged = []
    since = before
    while since < now:
        page = get(base, f"/actions?since={since}&limit=1000")
        if not page["actions"]:
            break
        logged += [record["type"] for record in page["actions"]]
        since = page["actions"][-1]["version"]
    # The in-memory log keeps only the newest actions: compare what it still has.
    kept = len(logged)
    if logged != accepted[len(accepted) - kept:]:
        fail(f"the action log since version {before} ({kept} actions) differs from the accepted actions")
    print(f"state: {posts} POSTs that dispatch ({commands} accepted commands), {len(accepted)} valid actions accepted (+{replays} replays), "
          f"version {before} -> {now}, every version accounted for, action log matches ({kept} compared)")


main()
