-- wrk script: POST one action per request, each with an Idempotency-Key of its own (the prefix
-- from the KEY_PREFIX environment variable, default "k", then the thread and a counter), so every
-- request is a new one that the server keeps an answer for. Builds each request in Lua, which
-- costs wrk some time per request: compare keyed runs with keyed runs.
local threads = 0
function setup(thread)
    threads = threads + 1
    thread:set("id", threads)
end

local counter = 0
local prefix = (os.getenv("KEY_PREFIX") or "k") .. "-"
local body = os.getenv("ACTION") or '{"type":"increase"}'
local headers = { ["Content-Type"] = "application/json" }

function request()
    counter = counter + 1
    headers["Idempotency-Key"] = prefix .. id .. "-" .. counter
    return wrk.format("POST", nil, headers, body)
end
