-- wrk script: POST one action per request on keep-alive connections.
-- The body can be overridden with the ACTION environment variable. No response() callback:
-- it would run Lua per response and slow wrk itself; wrk reports non-2xx answers on its own.
wrk.method = "POST"
wrk.body = os.getenv("ACTION") or '{"type":"increase"}'
wrk.headers["Content-Type"] = "application/json"
