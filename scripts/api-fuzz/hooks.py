"""Schemathesis hooks for scripts/api-fuzz.sh.

One check, `valid_action_not_unprocessable`: the 422 half of schemathesis's
`positive_data_acceptance`, told about the one 422 that a schema-valid request can
rightly get. POST /actions answers 422 `urn:remvvm:problem:idempotency-key-reused` when
the Idempotency-Key was used before with another body (docs/http-api.md, "Conditional
and idempotent dispatch"), and schemathesis draws the same short keys ("0", "!") over and
over. So the config lists 422 among `positive_data_acceptance`'s expected statuses, and
this check fails every other 422 to a request schemathesis generated as valid: an action
the document describes that the server does not accept is a document or server error.
"""
import json

import schemathesis

KEY_REUSED = "urn:remvvm:problem:idempotency-key-reused"


@schemathesis.check
def valid_action_not_unprocessable(ctx, response, case):
    """A schema-valid request gets no 422, unless its Idempotency-Key was used for another body."""
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive or response.status_code != 422:
        return None
    try:
        problem_type = json.loads(response.content).get("type")
    except (ValueError, AttributeError):
        problem_type = None
    headers = {name.lower() for name in (case.headers or {})}
    if problem_type == KEY_REUSED and "idempotency-key" in headers:
        return None
    raise AssertionError(
        f"A request valid by the document got 422 ({problem_type}): {response.content[:300]!r}"
    )
