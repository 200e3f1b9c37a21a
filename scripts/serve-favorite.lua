-- wrk script (docs/reference/http.md, Group commit; evtool-bench serve): PUT a new favorite of a random user
-- among EVTOOL_USERS (default 100,000). EVTOOL_TOKEN: an app token.
-- Every run (and each of its threads) takes a run id of its own from the kernel, seeds its
-- random users with it and puts it in its listing ids, so a run after another on the same store
-- records new favorites too (wrk's LuaJIT starts every run with the same random sequence: a
-- counter and math.random alone repeat the last run's user and listing pairs, answered 200
-- "already a favorite"). done() prints how many answers were not 201 Created.
local token = os.getenv("EVTOOL_TOKEN") or ""
local users = tonumber(os.getenv("EVTOOL_USERS") or "100000")
local uuid = io.open("/proc/sys/kernel/random/uuid", "r")
local run = uuid and uuid:read("*l"):sub(1, 8) or string.format("%x", os.time())
if uuid then uuid:close() end
math.randomseed(tonumber(run, 16))
local threads = {}
not_created = 0
wrk.method = "PUT"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer " .. token
wrk.body = '{"name":"Hamilton","venue":"Pantages Theatre","localDateTime":"2026-12-05 19:30:00","category":"Arts & Theatre"}'
function setup(thread)
  table.insert(threads, thread)
end
function request()
  n = (n or 0) + 1
  local user = "u" .. math.random(1, users)
  return wrk.format(nil, "/v1/users/" .. user .. "/favorites/L" .. run .. "-" .. n)
end
function response(status, headers, body)
  if status ~= 201 then not_created = not_created + 1 end
end
function done(summary, latency, requests)
  local total = 0
  for _, thread in ipairs(threads) do total = total + (thread:get("not_created") or 0) end
  io.write(string.format("answers other than 201 Created: %d\n", total))
end
