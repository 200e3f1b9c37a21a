-- wrk script (docs/HTTP.md, Group commit; evtool-bench serve): PUT a favorite for a random user
-- among EVTOOL_USERS (default 100,000) and a fresh listing each time. EVTOOL_TOKEN: an app token.
local counter = 0
local token = os.getenv("EVTOOL_TOKEN") or ""
local users = tonumber(os.getenv("EVTOOL_USERS") or "100000")
wrk.method = "PUT"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer " .. token
wrk.body = '{"name":"Hamilton","venue":"Pantages Theatre","localDateTime":"2026-12-05 19:30:00","category":"Arts & Theatre"}'
function setup(thread)
  thread:set("id", counter)
  counter = counter + 1
end
function request()
  n = (n or 0) + 1
  local user = "u" .. math.random(1, users)
  return wrk.format(nil, "/v1/users/" .. user .. "/favorites/L" .. id .. "-" .. n)
end
