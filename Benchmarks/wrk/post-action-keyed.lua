-- wrk script: POST one action per request, each with an Idempotency-Key of its own shaped like a
-- UUID (36 characters), so every request is a new one that the server keeps an answer for.
-- KEY_ORDER (environment) chooses the keys' order: `random` (default: the first digits random,
-- like the version 4 UUIDs Foundation's UUID() draws) or `time` (the first twelve digits count up,
-- like a version 7 UUID's clock: each key sorts after the ones before it). The last twelve digits
-- count the thread's requests, so no key of one wrk repeats; KEY_PREFIX (environment, optional) is
-- appended to every key (`-PREFIX`), so that several wrk processes at once (one per replica of a
-- shared log) never send the same key. Builds each request in Lua, which costs wrk some time per
-- request: compare keyed runs with keyed runs.
local threads = 0
function setup(thread)
    threads = threads + 1
    thread:set("id", threads)
end

local counter = 0
local ordered = os.getenv("KEY_ORDER") == "time"
local prefix = os.getenv("KEY_PREFIX")
local suffix = prefix and ("-" .. prefix) or ""
local body = os.getenv("ACTION") or '{"type":"increase"}'
local headers = { ["Content-Type"] = "application/json" }

function init(args)
    local seed = os.time() * 100 + id
    for index = 1, #(prefix or "") do
        seed = (seed * 31 + string.byte(prefix, index)) % 2147483647
    end
    math.randomseed(seed)
end

local function hex(digits)
    local text = ""
    for _ = 1, digits do
        text = text .. string.format("%x", math.random(0, 15))
    end
    return text
end

function request()
    counter = counter + 1
    local head
    if ordered then
        -- Both threads count at about the same pace: every key sorts near the newest ones, as
        -- keys led by a clock do.
        head = string.format("%08x-%04x", math.floor(counter / 65536), counter % 65536)
    else
        head = hex(8) .. "-" .. hex(4)
    end
    headers["Idempotency-Key"] = string.format("%s-7%s-%x%s-%012x%s", head, hex(3), 8 + id % 8, hex(3), counter, suffix)
    return wrk.format("POST", nil, headers, body)
end
