-- wrk script (docs/reference/http.md; evtool-bench serve): GET the favorites of a random user among
-- EVTOOL_USERS (default 100,000). EVTOOL_TOKEN: an app token.
local token = os.getenv("EVTOOL_TOKEN") or ""
local users = tonumber(os.getenv("EVTOOL_USERS") or "100000")
wrk.headers["Authorization"] = "Bearer " .. token
function request()
  return wrk.format("GET", "/v1/users/u" .. math.random(1, users) .. "/favorites")
end
