-- wrk script: POST one action per request, spread over many stores: request i of a thread goes
-- to /stores/<PREFIX><n>/actions, n = (thread's offset + i) mod STORES, so every store gets its
-- share and consecutive requests of a connection touch different stores. STORES (default 1000)
-- and PREFIX (default "s") come from the environment; the stores must exist (PUT them first, or
-- run the server with autoCreateStores); with KEYED set, every request carries an Idempotency-Key
-- of its own. The same script with STORES=1 is the one-store figure,
-- so both sides pay the same Lua per request.
local stores = tonumber(os.getenv("STORES") or "1000")
local prefix = os.getenv("PREFIX") or "s"
local body = os.getenv("ACTION") or '{"type":"increase"}'
local headers = { ["Content-Type"] = "application/json" }
local paths = {}
for n = 0, stores - 1 do
    paths[n] = "/stores/" .. prefix .. n .. "/actions"
end
local counter = 0

function setup(thread)
    counter = counter + 1
    thread:set("offset", counter * 7919)
end

local i = 0
if os.getenv("KEYED") then
    -- Each request with an Idempotency-Key of its own (the thread's offset and a counter): every
    -- request is a new one that the server keeps an answer for.
    function request()
        i = i + 1
        headers["Idempotency-Key"] = "key-" .. offset .. "-" .. i
        return wrk.format("POST", paths[(offset + i) % stores], headers, body)
    end
else
    function request()
        i = i + 1
        return wrk.format("POST", paths[(offset + i) % stores], headers, body)
    end
end
