"""End-to-end checks of `evtool serve` with a real HTTP client (httpx).

Run by ServeEndToEndTests with:
  EVTOOL_BASE      the server's base URL, e.g. http://127.0.0.1:40123
  EVTOOL_TOKENS    JSON {"app": TOKEN, "auditor": TOKEN, "admin": TOKEN}
  EVTOOL_PID       the server's process id (the last check sends it SIGTERM)
  EVTOOL_MAX_BODY  the server's --max-body
Prints one line per group of checks and 'N passed, 0 failed' at the end; the first failed
check stops it with a message naming what was expected and what came back (exit 1).
"""
import json
import pathlib
import os
import signal
import socket
import sys
import threading
import time
import uuid

import httpx
import jsonschema

import checks
from checks import TOKENS, auth, check

BASE = os.environ["EVTOOL_BASE"]
PID = int(os.environ["EVTOOL_PID"])
MAX_BODY = int(os.environ["EVTOOL_MAX_BODY"])
HOST, PORT = BASE.split("//")[1].split(":")
PORT = int(PORT)
RUN = os.environ.get("EVTOOL_RUN") or uuid.uuid4().hex[:8]


client = httpx.Client(base_url=BASE, timeout=20)
SUMMARY = {"name": "Hamilton", "venue": "Pantages Theatre", "localDateTime": "2026-12-05 19:30:00", "category": "Arts & Theatre"}
DETAILS = {"listingID": "L7", "info": {"name": "Hamilton", "artistsOrTeams": [], "venue": "Pantages Theatre",
                                       "localDateTime": "2026-12-05 19:30:00", "category": "Arts & Theatre", "genres": ["Musical"]},
           "upcomingEvents": []}
SEARCH = {"keyword": "jazz", "category": "Music", "location": "Los Angeles"}


SCHEMAS = pathlib.Path(__file__).resolve().parents[3] / "docs" / "schemas"


def shared(response, name):
    """An answer validates against docs/schemas/NAME.schema.json, the schema the command line's --json shares."""
    schema = json.loads((SCHEMAS / f"{name}.schema.json").read_text())
    errors = [e.message for e in jsonschema.Draft202012Validator(schema).iter_errors(response.json())]
    check(not errors, f"the answer has the shared {name} shape: {errors}", response)
OUTCOME_SCHEMA = json.loads((pathlib.Path(__file__).resolve().parents[3] / "docs" / "schemas" / "outcome.schema.json").read_text())
STATS_SCHEMA = json.loads((pathlib.Path(__file__).resolve().parents[3] / "docs" / "schemas" / "stats.schema.json").read_text())


def outcome(response):
    """A write's answer validates against the outcome schema the command line's --json shares."""
    shared(response, "outcome")


def problem(response, status, kind, field=None):
    check(response.status_code == status, f"status {status} ({kind})", response)
    check(response.headers.get("content-type", "").startswith("application/problem+json"), f"{status} is application/problem+json", response)
    body = response.json()
    check(body.get("type") == f"/problems/{kind}" and body.get("status") == status and body.get("title") and body.get("detail"),
          f"problem document of kind {kind}", response)
    if field is not None:
        check(body.get("field") == field, f"problem names field {field!r}", response)
    return body


def head():
    response = client.get("/v1/log", params={"after": 0, "limit": 1}, headers=auth("auditor"))
    check(response.status_code == 200, "log readable", response)
    return client.get("/v1/stats", headers=auth("auditor")).json()["head"]


# --- open routes -------------------------------------------------------------------------
r = client.get("/healthz")
check(r.status_code == 200 and r.json() == {"status": "ok"}, "healthz 200", r)
r = client.get("/readyz")
check(r.status_code == 200 and r.json()["status"] == "ready", "readyz 200", r)
r = client.get("/openapi.json")
check(r.status_code == 200 and r.json()["openapi"].startswith("3.1"), "openapi.json is OpenAPI 3.1", r)
print("open routes ok", flush=True)

# --- 401 ------------------------------------------------------------------------------------
for headers in ({}, {"Authorization": "Basic YTpi"}, {"Authorization": "Bearer evt_" + "0" * 64}, {"Authorization": "Bearer"}):
    r = client.get("/v1/users/ada/favorites", headers=headers)
    problem(r, 401, "unauthorized")
    check(r.headers.get("www-authenticate", "").startswith("Bearer"), "401 carries WWW-Authenticate: Bearer", r)
r = client.get("/metrics")
problem(r, 401, "unauthorized")
print("401 ok", flush=True)

# --- role matrix: each role against each route ----------------------------------------------
user = f"matrix-{RUN}"
routes = [
    ("POST", f"/v1/users/{user}/searches", SEARCH, {"app", "admin"}),
    ("PUT", f"/v1/users/{user}/favorites/L1", SUMMARY, {"app", "admin"}),
    ("DELETE", f"/v1/users/{user}/favorites/L1", None, {"app", "admin"}),
    ("POST", f"/v1/users/{user}/views", DETAILS, {"app", "admin"}),
    ("GET", f"/v1/users/{user}/favorites", None, {"app", "auditor", "admin"}),
    ("GET", f"/v1/users/{user}/recent-searches", None, {"app", "auditor", "admin"}),
    ("GET", f"/v1/users/{user}/recently-viewed", None, {"app", "auditor", "admin"}),
    ("GET", f"/v1/users/{user}/listings/L7", None, {"app", "auditor", "admin"}),
    ("GET", f"/v1/users/{user}/history", None, {"auditor", "admin"}),
    ("GET", "/v1/listings/L7/details", None, {"app", "auditor", "admin"}),
    ("GET", "/v1/log", None, {"auditor", "admin"}),
    ("GET", "/v1/stats", None, {"auditor", "admin"}),
    ("GET", "/metrics", None, {"auditor", "admin"}),
    ("GET", f"/v1/audit/users/{user}", None, {"auditor", "admin"}),
    ("GET", "/v1/audit", None, {"auditor", "admin"}),
]
for method, path, body, allowed in routes:
    for role in ("app", "auditor", "admin"):
        before = head()
        r = client.request(method, path, json=body, headers=auth(role))
        if role in allowed:
            check(r.status_code in (200, 201), f"{role} may {method} {path}", r)
        else:
            problem(r, 403, "forbidden")
            check(head() == before, f"a refused {method} by {role} records nothing")
# The event stream: opened by the roles that may read the log, refused to the app role.
for role in ("app", "auditor", "admin"):
    with httpx.stream("GET", BASE + "/v1/log/stream", headers={**auth(role), "Last-Event-ID": str(head())}, timeout=20) as stream:
        if role == "app":
            check(stream.status_code == 403, f"app may not GET /v1/log/stream: {stream.status_code}")
        else:
            check(stream.status_code == 200 and stream.headers["content-type"].startswith("text/event-stream"), f"{role} may GET /v1/log/stream")
print("role matrix ok", flush=True)

# --- admin routes: rebuild, seal, forget (admin only, each with an audit line) ----------------
victim = f"forget-{RUN}"
r = client.put(f"/v1/users/{victim}/favorites/F1", json=SUMMARY, headers=auth("app"))
check(r.status_code == 201, "a favorite of the user to forget", r)
admin_routes = [
    ("POST", "/v1/admin/rebuild", {"views": ["favorites"]}),
    ("POST", "/v1/admin/seal", None),
    ("POST", f"/v1/admin/users/{victim}/forget", {"reason": "e2e ticket 1"}),
]
for method, path, body in admin_routes:
    for role in ("app", "auditor"):
        before = head()
        r = client.request(method, path, json=body, headers=auth(role))
        problem(r, 403, "forbidden")
        check(head() == before, f"a refused {method} {path} by {role} records nothing")
r = client.post("/v1/admin/rebuild", json={"views": ["favorites"]}, headers=auth("admin"))
check(r.status_code == 200 and [v["name"] for v in r.json()["views"]] == ["favorites"] and r.json()["views"][0]["documents"] >= 1
      and r.json()["head"] == head(), "admin rebuilds favorites: the views, their documents, the head", r)
shared(r, "rebuild")
r = client.post("/v1/admin/rebuild", headers=auth("admin"))
check(r.status_code == 200 and len(r.json()["views"]) == 4, "an empty body rebuilds every view", r)
shared(r, "rebuild")
problem(client.post("/v1/admin/rebuild", json={"views": ["nope"]}, headers=auth("admin")), 422, "validation", "views")
r = client.post("/v1/admin/seal", headers=auth("admin"))
check(r.status_code == 201 and r.json()["number"] >= 1 and r.json()["position"] == head() and r.json()["signed"] is False
      and r.json()["checkpoint"].startswith("evtool\n"), "admin seals: 201, the seal at the head, an unsigned checkpoint", r)
shared(r, "seal")
sealed = r.json()
r = client.post("/v1/admin/seal", headers=auth("admin"))
check(r.status_code == 201 and r.json()["number"] == sealed["number"] + 1 and r.json()["previousHash"] == sealed["hash"], "the next seal chains to the first", r)
shared(r, "seal")
problem(client.post(f"/v1/admin/users/{victim}/forget", json={"reason": "  "}, headers=auth("admin")), 422, "validation", "reason")
problem(client.post(f"/v1/admin/users/{victim}/forget", json={"by": "x"}, headers=auth("admin")), 422, "validation")
problem(client.post(f"/v1/admin/users/nobody-{RUN}/forget", json={"reason": "x"}, headers=auth("admin")), 404, "not-found")
r = client.post(f"/v1/admin/users/{victim}/forget", json={"reason": "e2e ticket 1"}, headers=auth("admin"))
check(r.status_code == 200 and r.json()["erasedEvents"] == 1 and r.json()["by"] == "e2e-admin" and r.json()["position"] == head()
      and r.json()["rebuiltThrough"] == head() and r.json()["archived"] == [], "admin forgets the user: one event erased, UserErased at the head, the token's name as operator", r)
shared(r, "forget")
r = client.get(f"/v1/users/{victim}/favorites", headers=auth("app"))
check(r.status_code == 200 and r.json()["items"] == [], "the erased user's favorites are empty at once", r)
r = client.put(f"/v1/users/{victim}/favorites/F1", json=SUMMARY, headers=auth("app"))
check(r.status_code == 201, "after the erasure the user can favorite the listing again (no stale state)", r)
print("admin routes ok", flush=True)

# --- role matrix of the verifiable log's routes (after the seals above recorded checkpoints) --------
first_event = client.get("/v1/log", params={"after": 0, "limit": 1}, headers=auth("auditor")).json()["events"][0]["id"]
for path in ("/v1/checkpoints/latest", f"/v1/proofs/inclusion?event={first_event}", "/v1/proofs/consistency?from=1&to=1"):
    for role in ("app", "auditor", "admin"):
        before = head()
        r = client.get(path, headers=auth(role))
        if role == "app":
            problem(r, 403, "forbidden")
        else:
            check(r.status_code == 200 and r.headers["content-type"] == "application/json", f"{role} may GET {path}", r)
        check(head() == before, f"GET {path} by {role} records nothing")
    problem(client.get(path), 401, "unauthorized")
print("proof routes role matrix ok", flush=True)

# --- writes: recorded (201) and unchanged (200) ----------------------------------------------
user = f"ada-{RUN}"
r = client.put(f"/v1/users/{user}/favorites/L42", json=SUMMARY, headers=auth("app"))
check(r.status_code == 201 and r.json()["outcome"] == "recorded" and r.json()["version"] == 1, "favorite recorded: 201, version 1", r)
outcome(r)
check(r.headers["etag"] == '"1"' and r.headers["location"] == f"/v1/users/{user}/listings/L42", "201 has ETag and Location", r)
event_id = r.json()["eventIDs"][0]
located = client.get(r.headers["location"], headers=auth("app"))
check(located.status_code == 200 and located.json()["favorite"] is True, "the writer may read its 201's Location", located)
# Revalidation: the current ETag answers 304 with no body; another one the view.
etag = located.headers["etag"]
r = client.get(f"/v1/users/{user}/listings/L42", headers={**auth("app"), "If-None-Match": etag})
check(r.status_code == 304 and r.content == b"" and r.headers["etag"] == etag, "If-None-Match with the current ETag: 304, no body", r)
r = client.get(f"/v1/users/{user}/favorites", headers={**auth("app"), "If-None-Match": f'W/{etag}, "999"'})
check(r.status_code == 304, "If-None-Match compares weakly and takes a list", r)
r = client.get(f"/v1/users/{user}/favorites", headers={**auth("app"), "If-None-Match": '"0"'})
check(r.status_code == 200 and r.json()["items"], "If-None-Match with an old ETag: the view", r)
r = client.put(f"/v1/users/{user}/favorites/L42", json=SUMMARY, headers=auth("app"))
check(r.status_code == 200 and r.json()["outcome"] == "unchanged" and "already a favorite" in r.json()["reason"], "repeated favorite: 200 unchanged", r)
outcome(r)
r = client.get(f"/v1/users/{user}/listings/L42", headers=auth("app"))
check(r.status_code == 200 and r.json()["favorite"] is True, "details page says it is a favorite", r)
r = client.delete(f"/v1/users/{user}/favorites/L42", headers=auth("app"))
check(r.status_code == 201 and r.json()["type"] == "Unfavorited", "removal recorded: 201", r)
r = client.get(f"/v1/users/{user}/listings/L42", headers=auth("app"))
check(r.status_code == 200 and r.json()["favorite"] is False, "the moment it is removed, the page shows Save Event again", r)
r = client.delete(f"/v1/users/{user}/favorites/L42", headers=auth("app"))
check(r.status_code == 200 and "not a favorite" in r.json()["reason"], "removing a non-favorite: 200 unchanged", r)
r = client.post(f"/v1/users/{user}/searches", json={**SEARCH, "here": None, "results": {"count": 2, "listingIDs": ["L1", "L2"]}}, headers=auth("app"))
check(r.status_code == 201 and r.json()["type"] == "Searched", "search recorded", r)
check(r.headers["location"] == f"/v1/users/{user}/recent-searches" and client.get(r.headers["location"], headers=auth("app")).status_code == 200,
      "a search's Location is the recent searches, which the app may read", r)
r = client.post(f"/v1/users/{user}/searches", json={"keyword": "x", "location": "LA", "catgory": "Music", "distanse": 50}, headers=auth("app"))
problem(r, 422, "validation")
check(r.json()["field"] == "catgory", "a member the body does not take is named (422), not dropped", r)
r = client.post(f"/v1/users/{user}/views", json=DETAILS, headers=auth("app"))
check(r.status_code == 201 and r.json()["type"] == "DetailsViewed", "details view recorded", r)
r = client.get("/v1/listings/L7/details", headers=auth("app"))
check(r.status_code == 200 and "Hamilton" in r.text, "cached details readable", r)
r = client.get(f"/v1/users/{user}/recently-viewed", headers=auth("app"))
check(r.status_code == 200 and r.json()["items"][0]["listingID"] == "L7", "recently viewed has it", r)
r = client.get(f"/v1/users/{user}/recent-searches", headers=auth("app"))
check(r.status_code == 200 and r.json()["items"][0]["keyword"] == "jazz", "recent searches has it", r)
print("writes ok", flush=True)

# --- read-your-writes, many times --------------------------------------------------------------
ryw = f"ryw-{RUN}"
for index in range(25):
    listing = f"R{index}"
    r = client.put(f"/v1/users/{ryw}/favorites/{listing}", json=SUMMARY, headers=auth("app"))
    check(r.status_code == 201, "favorite recorded", r)
    r = client.get(f"/v1/users/{ryw}/favorites", headers=auth("app"))
    check(listing in [item["listingID"] for item in r.json()["items"]], f"a read right after the write sees {listing}", r)
    check(r.headers["etag"] == f'"{index * 2 + 1}"', "the ETag is the stream version", r)
    r = client.delete(f"/v1/users/{ryw}/favorites/{listing}", headers=auth("app"))
    r = client.get(f"/v1/users/{ryw}/listings/{listing}", headers=auth("app"))
    check(r.json()["favorite"] is False, "a read right after the removal sees it gone", r)
print("read-your-writes ok", flush=True)

# --- ETag / If-Match -> 412 ----------------------------------------------------------------------
etag_user = f"etag-{RUN}"
r = client.put(f"/v1/users/{etag_user}/favorites/E1", json=SUMMARY, headers={**auth("app"), "If-Match": "*"})
problem(r, 412, "precondition-failed")
r = client.put(f"/v1/users/{etag_user}/favorites/E1", json=SUMMARY, headers={**auth("app"), "If-Match": '"0"'})
check(r.status_code == 201, "If-Match \"0\" on a new user appends", r)
r = client.get(f"/v1/users/{etag_user}/favorites", headers=auth("app"))
etag = r.headers["etag"]
check(etag == '"1"', "ETag after one event", r)
before = head()
for stale in ('"0"', 'W/"1"', '"x"', '"7"'):
    r = client.put(f"/v1/users/{etag_user}/favorites/E2", json=SUMMARY, headers={**auth("app"), "If-Match": stale})
    problem(r, 412, "precondition-failed")
check(head() == before, "a 412 records nothing")
r = client.put(f"/v1/users/{etag_user}/favorites/E2", json=SUMMARY, headers={**auth("app"), "If-Match": etag})
check(r.status_code == 201 and r.headers["etag"] == '"2"', "If-Match with the current ETag appends", r)
r = client.delete(f"/v1/users/{etag_user}/favorites/E2", headers={**auth("app"), "If-Match": etag})
problem(r, 412, "precondition-failed")
check(r.headers.get("etag") == '"2"', "a 412 carries the current ETag", r)
r = client.put(f"/v1/users/{etag_user}/favorites/E3", json=SUMMARY, headers={**auth("app"), "If-Match": "*"})
check(r.status_code == 201, "If-Match * on an existing user appends", r)
print("etag ok", flush=True)

# --- Idempotency-Key ------------------------------------------------------------------------------
key = f"key-{RUN}"
idem_user = f"idem-{RUN}"
first = client.post(f"/v1/users/{idem_user}/searches", json=SEARCH, headers={**auth("app"), "Idempotency-Key": key})
check(first.status_code == 201 and first.json()["replayed"] is False, "first request recorded", first)
before = head()
for _ in range(3):
    again = client.post(f"/v1/users/{idem_user}/searches", json=SEARCH, headers={**auth("app"), "Idempotency-Key": key})
    check(again.status_code == 201 and again.headers.get("idempotent-replayed") == "true", "a replay answers 201 with Idempotent-Replayed", again)
    check(again.json()["eventIDs"] == first.json()["eventIDs"] and again.json()["position"] == first.json()["position"]
          and again.json()["version"] == first.json()["version"], "a replay returns the first outcome", again)
check(head() == before, "replays record nothing new")
r = client.post(f"/v1/users/{idem_user}/searches", json=SEARCH, headers={**auth("app"), "If-Match": '"0"', "Idempotency-Key": key})
check(r.status_code == 201 and r.headers.get("idempotent-replayed") == "true", "a replay wins over a stale If-Match (the first outcome)", r)
r = client.post(f"/v1/users/{idem_user}/searches", json=SEARCH, headers={**auth("app"), "Idempotency-Key": "x" * 201})
problem(r, 422, "validation", "Idempotency-Key")
print("idempotency ok", flush=True)

# --- history, log, stats, as-of ---------------------------------------------------------------------
r = client.get(f"/v1/users/{user}/history", headers=auth("auditor"))
items = r.json()["items"]
check(r.status_code == 200 and [i["type"] for i in items] == ["Favorited", "Unfavorited", "Searched", "DetailsViewed"], "history in order", r)
pages, after = [], 0
while True:
    r = client.get(f"/v1/users/{user}/history", params={"limit": 1, "after": after}, headers=auth("auditor"))
    check(r.status_code == 200, "history page", r)
    pages += r.json()["items"]
    if r.json()["nextAfter"] is None:
        break
    after = r.json()["nextAfter"]
check([p["position"] for p in pages] == [i["position"] for i in items], "paging with limit=1 visits every entry once")
r = client.get(f"/v1/users/{user}/history", params=[("type", "Favorited"), ("type", "Unfavorited")], headers=auth("auditor"))
check([i["type"] for i in r.json()["items"]] == ["Favorited", "Unfavorited"], "history filtered by type (repeatable)", r)
r = client.get(f"/v1/users/{user}/history", params={"since": "2999-01-01"}, headers=auth("auditor"))
check(r.json()["items"] == [], "since in the future: nothing", r)
r = client.get(f"/v1/users/{user}/history", params={"until": "2000-01-01"}, headers=auth("auditor"))
check(r.json()["items"] == [], "until in the past: nothing", r)
r = client.get(f"/v1/users/{user}/history", params={"as-of": items[1]["position"]}, headers=auth("auditor"))
check(r.status_code == 200 and [i["position"] for i in r.json()["items"]] == [i["position"] for i in items[:2]] and "etag" not in r.headers,
      "history as of the second entry: the first two entries, no ETag (a past answer is no version to match)", r)
r = client.get(f"/v1/users/{user}/history", params={"as-of": items[0]["position"], "type": "Searched"}, headers=auth("auditor"))
check(r.status_code == 200 and r.json()["items"] == [], "history as of the first entry, searches only: none yet", r)
r = client.get(f"/v1/users/{user}/favorites", params={"as-of": items[0]["position"]}, headers=auth("app"))
check([i["listingID"] for i in r.json()["items"]] == ["L42"], "favorites as of the first event hold L42", r)
r = client.get(f"/v1/users/{user}/favorites", headers=auth("app"))
check(r.json()["items"] == [], "favorites now are empty", r)
r = client.get("/v1/log", params={"after": items[0]["position"] - 1, "limit": 2}, headers=auth("auditor"))
events = r.json()["events"]
check(len(events) == 2 and events[0]["position"] == items[0]["position"] and events[0]["id"] == event_id
      and r.json()["nextAfter"] == events[1]["position"], "log page after a position", r)
r = client.get("/v1/stats", headers=auth("auditor"))
stats = r.json()
errors = [e.message for e in jsonschema.Draft202012Validator(STATS_SCHEMA).iter_errors(stats)]
check(not errors, f"GET /v1/stats has the shape of stats --json (docs/schemas/stats.schema.json): {errors}", r)
check("sizeBytes" in stats and (stats["sizeBytes"] is None or stats["sizeBytes"] > 0), "stats give the store's size (null when it cannot say)", r)
total, after = 0, 0
while True:
    page = client.get("/v1/log", params={"after": after, "limit": 1000}, headers=auth("admin")).json()
    total += len(page["events"])
    if not page["events"]:
        break
    after = page["nextAfter"]
check(stats["events"] == total and stats["head"] >= total, "stats count the log")
r = client.get("/metrics", headers=auth("auditor"))
check(r.status_code == 200 and "evtool_http_requests_total{route=\"addFavorite\",status=\"201\"}" in r.text
      and "evtool_idempotent_replays_total 4" in r.text, "metrics count routes and replays", r)
samples = {}
for line in r.text.splitlines():
    if line and not line.startswith("#"):
        name, value = line.rsplit(" ", 1)
        samples[name] = float(value)
types = dict(line.split(" ")[2:4] for line in r.text.splitlines() if line.startswith("# TYPE "))
check(samples.get('evtool_http_request_duration_seconds_bucket{route="addFavorite",le="+Inf"}') == samples.get('evtool_http_request_duration_seconds_count{route="addFavorite"}')
      == sum(value for name, value in samples.items() if name.startswith('evtool_http_requests_total{route="addFavorite",')) > 0,
      "the latency histogram of a route counts each of its requests once, in +Inf and in _count", r)
check(samples.get("evtool_appends_total", 0) >= 40, f"appends are counted: {samples.get('evtool_appends_total')}", r)
check(samples.get("evtool_conflicts_total", 0) >= 6, f"the 412s above are counted as conflicts: {samples.get('evtool_conflicts_total')}", r)
check(samples.get("evtool_store_errors_total") == 0, "no store error so far", r)
check(any(name.startswith("evtool_projection_lag_events{view=") for name in samples) and all(value >= 0 for name, value in samples.items() if "projection_lag" in name),
      "projection lag per view", r)
check(all(kind == "counter" for name, kind in types.items() if name.endswith("_total")) and types.get("evtool_projection_lag_events") == "gauge"
      and types.get("evtool_http_request_duration_seconds") == "histogram", f"counters end in _total, levels are gauges: {types}", r)
print("reads ok", flush=True)

# --- the audit report pages (the same HTML as evtool report) ----------------------------------------
import re  # noqa: E402
from urllib.parse import quote  # noqa: E402


def html_page(response, what):
    check(response.status_code == 200 and response.headers.get("content-type") == "text/html; charset=utf-8", f"{what}: 200 text/html", response)
    csp = response.headers.get("content-security-policy", "")
    meta = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)">', response.text)
    check(csp.startswith("default-src 'none'") and meta is not None and meta.group(1) == csp, f"{what}: the CSP header is the page's own", response)
    check(response.headers.get("x-content-type-options") == "nosniff", f"{what}: nosniff", response)
    check(response.text.startswith("<!DOCTYPE html>") and response.text.endswith("</html>\n"), f"{what}: a whole page", response)
    return response.text


page = html_page(client.get(f"/v1/audit/users/{user}", headers=auth("auditor")), "user page")
rows = re.findall(r'<tr id="event-\d+" (?:class="erased" )?data-position="(\d+)"', page)
check(rows == [str(i["position"]) for i in items], f"the page's timeline has one row per history entry: {rows}")
check('id="action-count">4<' in page and 'data-status="verified"' in page, "the page counts 4 actions and the chain verifies", None)
page = html_page(client.get(f"/v1/audit/users/{user}", params={"as-of": items[1]["position"]}, headers=auth("admin")), "user page as of")
check(re.findall(r'<tr id="event-\d+" (?:class="erased" )?data-position="(\d+)"', page) == [str(i["position"]) for i in items[:2]], "as-of: the first two actions only")
if os.environ.get("EVTOOL_AUDIT_PAGE"):
    with open(os.environ["EVTOOL_AUDIT_PAGE"], "w", encoding="utf-8") as saved:
        saved.write(json.dumps({"user": user, "asOf": items[1]["position"], "page": page}))
r = client.head(f"/v1/audit/users/{user}", headers=auth("auditor"))
check(r.status_code == 200 and r.headers.get("content-type", "").startswith("text/html"), "HEAD answers like GET", r)
hostile = f"<img src=x onerror=alert(1)>-{RUN}"
r = client.post(f"/v1/users/{quote(hostile, safe='')}/searches", json={**SEARCH, "keyword": "<script>alert(1)</script>"}, headers=auth("app"))
check(r.status_code == 201, "a hostile user id and keyword are recorded", r)
page = html_page(client.get(f"/v1/audit/users/{quote(hostile, safe='')}", headers=auth("auditor")), "hostile page")
check("<img" not in page and "<script>alert" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page, "hostile strings are escaped", None)
overview = html_page(client.get("/v1/audit", headers=auth("auditor")), "overview")
stats = client.get("/v1/stats", headers=auth("auditor")).json()
check(f'id="event-count">{stats["events"]}<' in overview, f"the overview counts the log's {stats['events']} events", None)
problem(client.get(f"/v1/audit/users/{user}", params={"as-of": "soon"}, headers=auth("auditor")), 400, "malformed-request", "as-of")
problem(client.get("/v1/audit", params={"as-of": "3"}, headers=auth("auditor")), 400, "malformed-request", "as-of")
problem(client.get(f"/v1/audit/users/{'u' * 201}", headers=auth("auditor")), 422, "validation", "user id")
problem(client.get(f"/v1/audit/users/{user}", headers=auth("app")), 403, "forbidden")
problem(client.get("/v1/audit"), 401, "unauthorized")
print("audit pages ok", flush=True)

# --- 400 404 405 413 415 422 -----------------------------------------------------------------------
problem(client.post(f"/v1/users/{user}/searches", content=b'{"keyword":', headers={**auth("app"), "Content-Type": "application/json"}), 400, "malformed-request")
problem(client.post(f"/v1/users/{user}/searches", content=b'\xff\xfe', headers={**auth("app"), "Content-Type": "application/json"}), 400, "malformed-request")
problem(client.get("/v1/users/a%2Fb/favorites", headers=auth("app")), 400, "invalid-path")
problem(client.get("/v1/users/%FF/favorites", headers=auth("app")), 400, "invalid-path")
problem(client.get("/v1/users/%2E%2E/favorites", headers=auth("app")), 400, "invalid-path")
problem(client.get("/v1/users/ada/history", params={"limit": "0"}, headers=auth("auditor")), 400, "malformed-request", "limit")
problem(client.get("/v1/users/ada/favorites", params={"as-of": "yesterday"}, headers=auth("app")), 400, "malformed-request", "as-of")
problem(client.get("/v1/nothing", headers=auth("app")), 404, "not-found")
problem(client.get("/v1/listings/NO-SUCH/details", headers=auth("app")), 404, "not-found")
r = client.patch(f"/v1/users/{user}/favorites/L1", headers=auth("app"))
problem(r, 405, "method-not-allowed")
check(r.headers.get("allow") == "PUT, DELETE", "405 names the allowed methods", r)
before = head()
r = client.put(f"/v1/users/{user}/favorites/L9", content=b"x" * (MAX_BODY + 1), headers={**auth("app"), "Content-Type": "application/json"})
problem(r, 413, "body-too-large")
problem(client.put(f"/v1/users/{user}/favorites/L9", content=b"{}", headers={**auth("app"), "Content-Type": "text/plain"}), 415, "unsupported-media-type")
problem(client.put(f"/v1/users/{user}/favorites/L9", content=b"{}", headers=auth("app")), 415, "unsupported-media-type")
problem(client.post(f"/v1/users/{user}/searches", json={**SEARCH, "keyword": "   "}, headers=auth("app")), 422, "validation", "keyword")
problem(client.post(f"/v1/users/{user}/searches", json={"keyword": "x"}, headers=auth("app")), 422, "validation", "location")
problem(client.post(f"/v1/users/{user}/searches", json={**SEARCH, "category": "Opera"}, headers=auth("app")), 422, "validation", "category")
problem(client.post(f"/v1/users/{user}/searches", json={**SEARCH, "distance": -1}, headers=auth("app")), 422, "validation")
problem(client.put(f"/v1/users/{user}/favorites/L9", json={"name": "x"}, headers=auth("app")), 422, "validation", "venue")
problem(client.put(f"/v1/users/{'u' * 201}/favorites/L9", json=SUMMARY, headers=auth("app")), 422, "validation", "user id")
problem(client.put(f"/v1/users/{user}/favorites/L%09", json=SUMMARY, headers=auth("app")), 422, "validation", "listing id")
problem(client.get(f"/v1/users/{'u' * 201}/favorites", headers=auth("app")), 422, "validation", "user id")
check(head() == before, "refused requests record nothing")
print("error statuses ok", flush=True)


# --- raw sockets: what a library client would not send ---------------------------------------------
def raw(data, read=True):
    with socket.create_connection((HOST, PORT), timeout=10) as s:
        s.sendall(data)
        if not read:
            return b""
        chunks = []
        while True:
            try:
                chunk = s.recv(65536)
            except (ConnectionResetError, socket.timeout):
                break
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks)


token = TOKENS["app"].encode()
before_raw = head()
answer = raw(b"GET /v1/users/../favorites HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + token + b"\r\nConnection: close\r\n\r\n")
check(answer.startswith(b"HTTP/1.1 400"), f"a literal '..' segment is 400: {answer[:80]!r}")
answer = raw(b"GARBAGE\r\n\r\n")
check(answer == b"", f"a request line that is none is closed without an answer: {answer[:80]!r}")
answer = raw(b"GET /healthz\r\n\r\n")
check(answer.startswith(b"HTTP/1.1 400"), f"a request line without a version is a 400: {answer[:80]!r}")
answer = raw(b"GET /healthz HTTP/9.9\r\nHost: x\r\n\r\n")
check(answer.startswith(b"HTTP/1.1 505"), f"an HTTP version other than 1.x is a 505: {answer[:80]!r}")
answer = raw(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 100_000 + b"\r\nConnection: close\r\n\r\n")
check(answer.startswith(b"HTTP/1.1 431"), f"huge headers are refused with 431: {answer[:80]!r}")
answer = raw(b"PUT /v1/users/ada/favorites/L1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + token
             + b"\r\nContent-Type: application/json\r\nContent-Length: 104857600\r\n\r\n" + b"x" * 65536)
check(answer.startswith(b"HTTP/1.1 413"), f"a 100 MB body is 413 before it is read: {answer[:80]!r}")
for line, named in ((b"Bad Name: y", "'Bad Name' has a space"), (b"Content-Length : 0", "'Content-Length ' has a space"),
                    (b"X-Note: a\x01b", "byte 0x01"), (b"X-Note: a\rb", "byte 0x0D"), (b"X\x7f: a", "byte 0x7F")):
    answer = raw(b"GET /healthz HTTP/1.1\r\nHost: x\r\n" + line + b"\r\nConnection: close\r\n\r\n")
    check(answer.startswith(b"HTTP/1.1 400") and b"/problems/malformed-request" in answer and named.encode() in answer,
          f"a header field RFC 9110 does not allow ({line!r}) is a 400 naming it: {answer[-200:]!r}")
answer = raw(b"GET /healthz HTTP/1.1\r\nHost: x\r\nNoColonHere\r\nConnection: close\r\n\r\n")
check(answer.startswith(b"HTTP/1.1 400"), f"a header line without a colon is a 400: {answer[:80]!r}")
r = client.get("/healthz")
check(r.status_code == 200, "the server keeps serving after hostile clients", r)
check(head() == before_raw, "hostile clients recorded nothing (the PUTs with a huge body or a bad header included)")
print("hostile clients ok", flush=True)

# --- SSE: Last-Event-ID resume and heartbeat ------------------------------------------------------
sse_user = f"sse-{RUN}"
start = head()
for index in range(3):
    client.put(f"/v1/users/{sse_user}/favorites/S{index}", json=SUMMARY, headers=auth("app"))
with httpx.stream("GET", BASE + "/v1/log/stream", headers={**auth("auditor"), "Last-Event-ID": str(start + 1)}, timeout=20) as stream:
    check(stream.status_code == 200 and stream.headers["content-type"].startswith("text/event-stream"), "stream opens")
    ids, heartbeat = [], False
    for line in stream.iter_lines():
        if line.startswith("id: "):
            ids.append(int(line[4:]))
        if line.startswith(": heartbeat"):
            heartbeat = True
            break
    check(ids == [start + 2, start + 3], f"the stream resumes after Last-Event-ID: {ids}")
    check(heartbeat, "a quiet stream sends a heartbeat")
problem(client.get("/v1/log/stream", headers={**auth("auditor"), "Last-Event-ID": "soon"}), 400, "malformed-request", "Last-Event-ID")

# More open streams than the server has threads: a waiting stream holds no thread, so other
# requests are answered at once, and a new event reaches every stream.
streams, seen, failures = [], [], []
ready = threading.Barrier(9)
mark = head()


def follow():
    try:
        with httpx.stream("GET", BASE + "/v1/log/stream", headers={**auth("auditor"), "Last-Event-ID": str(mark)}, timeout=20) as stream:
            ready.wait()
            for line in stream.iter_lines():
                if line.startswith("id: "):
                    seen.append(int(line[4:]))
                    return
    except Exception as error:  # noqa: BLE001 - reported below
        failures.append(repr(error))


threads = [threading.Thread(target=follow) for _ in range(8)]
for thread in threads:
    thread.start()
ready.wait(timeout=20)
time.sleep(0.3)
started = time.monotonic()
r = client.get("/healthz")
check(r.status_code == 200 and time.monotonic() - started < 1.0, f"with 8 streams open on 4 threads, other requests are answered at once ({time.monotonic() - started:.2f} s)")
r = client.put(f"/v1/users/{sse_user}/favorites/S9", json=SUMMARY, headers=auth("app"))
check(r.status_code == 201, "write while streams wait", r)
for thread in threads:
    thread.join(timeout=20)
check(not failures and seen == [r.json()["position"]] * 8, f"the new event reached all 8 streams: {seen} {failures}")
print("event stream ok", flush=True)

# --- graceful shutdown with a request in flight ------------------------------------------------------
body = json.dumps(SUMMARY).encode()
in_flight = socket.create_connection((HOST, PORT), timeout=10)
in_flight.sendall(b"PUT /v1/users/" + f"last-{RUN}".encode() + b"/favorites/Z1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + token
                  + b"\r\nContent-Type: application/json\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body[:10])
time.sleep(0.3)
os.kill(PID, signal.SIGTERM)
time.sleep(0.5)
refused = False
try:
    socket.create_connection((HOST, PORT), timeout=2).close()
except OSError:
    refused = True
check(refused, "after SIGTERM new connections are refused")
in_flight.sendall(body[10:])
answer = b""
while b"\r\n\r\n" not in answer:
    chunk = in_flight.recv(65536)
    if not chunk:
        break
    answer += chunk
check(answer.startswith(b"HTTP/1.1 201"), f"the request in flight when SIGTERM came is finished: {answer[:80]!r}")
in_flight.close()
checks.summary()
