"""An auditor's session with `evtool serve` (httpx): fetch the newest checkpoint and proofs.

Run by ServeProofsTests with:
  EVTOOL_BASE    the server's base URL (a server started with --seal-key)
  EVTOOL_TOKENS  JSON {"app": TOKEN, "auditor": TOKEN, "admin": TOKEN}
  EVTOOL_OUT     a folder: the served checkpoints' notes and proofs are written there as files
                 (cp1.txt, cp2.txt, inclusion.json, inclusion-at-8.json, consistency.json) with
                 ids.json naming the proven events, for the test to check with `evtool check-proof`
Prints one line per group of checks and 'N passed, 0 failed' at the end; the first failed
check stops it naming what was expected and what came back (exit 1).
"""
import json
import os
import sys
import uuid

import httpx

import checks
from checks import TOKENS, auth, check

BASE = os.environ["EVTOOL_BASE"]
OUT = os.environ["EVTOOL_OUT"]
RUN = uuid.uuid4().hex[:8]


def problem(response, status, kind, field=None):
    check(response.status_code == status, f"status {status} ({kind})", response)
    check(response.headers.get("content-type", "").startswith("application/problem+json"), f"{status} is problem+json", response)
    body = response.json()
    check(body.get("type") == f"/problems/{kind}" and body.get("status") == status and body.get("detail"), f"a {kind} problem", response)
    if field is not None:
        check(body.get("field") == field, f"the problem names {field!r}", response)


def save(name, data):
    with open(os.path.join(OUT, name), "wb") as file:
        file.write(data)


client = httpx.Client(base_url=BASE, timeout=30)
SUMMARY = {"name": "Hamilton", "venue": "Pantages Theatre", "localDateTime": "2026-12-05 19:30:00", "category": "Arts & Theatre"}


def favorite(user, listing):
    r = client.put(f"/v1/users/{user}/favorites/{listing}", json=SUMMARY, headers=auth("app"))
    check(r.status_code == 201, f"{user} favorites {listing}", r)
    return r.json()["eventIDs"][0]


def seal():
    r = client.post("/v1/admin/seal", headers=auth("admin"))
    check(r.status_code == 201 and r.json()["signed"] is True, "admin seals: a signed checkpoint", r)
    return r.json()


def latest(size):
    r = client.get("/v1/checkpoints/latest", headers=auth("auditor"))
    check(r.status_code == 200 and r.headers["content-type"] == "application/json", "the auditor reads the newest checkpoint", r)
    body = r.json()
    check(body["size"] == size and body["signed"] is True and len(body["keyIDs"]) == 1 and body["checkpoint"].startswith(f"evtool\n{size}\n"),
          f"the newest checkpoint covers {size} events and is signed", r)
    return body


# --- before any seal -------------------------------------------------------------------------------
problem(client.get("/v1/checkpoints/latest", headers=auth("auditor")), 404, "not-found")
ids = [favorite(f"ada-{RUN}", f"L{index}") for index in range(3)] + [favorite(f"bob-{RUN}", f"L{index}") for index in range(2)]
print("recorded 5 events", flush=True)

# --- the first checkpoint and an inclusion proof bound to it --------------------------------------------
sealed = seal()
first = latest(5)
check(first["checkpoint"] == sealed["checkpoint"], "the recorded checkpoint is the one the seal answered")
save("cp1.txt", first["checkpoint"].encode())
r = client.get("/v1/proofs/inclusion", params={"event": ids[1]}, headers=auth("auditor"))
check(r.status_code == 200 and r.headers["content-type"] == "application/json", "the auditor gets an inclusion proof", r)
proof = r.json()
check(proof["proof"] == "inclusion" and proof["index"] == 1 and proof["size"] == 5 and proof["event"] == ids[1],
      "leaf 1 in the tree of the newest checkpoint (5 events)", r)
save("inclusion.json", r.content)
print("checkpoint 1 and an inclusion proof ok", flush=True)

# --- more events, a second checkpoint, a consistency proof between the two ----------------------------
ids += [favorite(f"cy-{RUN}", f"L{index}") for index in range(3)]
seal()
second = latest(8)
check(second["number"] == first["number"] + 1, "the second recorded checkpoint", None)
save("cp2.txt", second["checkpoint"].encode())
r = client.get("/v1/proofs/consistency", params={"from": 5, "to": 8}, headers=auth("admin"))
check(r.status_code == 200 and r.json()["proof"] == "consistency" and r.json()["from"] == 5 and r.json()["to"] == 8, "a consistency proof 5 -> 8", r)
save("consistency.json", r.content)
r = client.get("/v1/proofs/inclusion", params={"event": ids[6]}, headers=auth("auditor"))
check(r.status_code == 200 and r.json()["size"] == 8 and r.json()["index"] == 6, "a proof bound to the second checkpoint by default", r)
save("inclusion-at-8.json", r.content)
r = client.get("/v1/proofs/inclusion", params={"event": ids[1], "size": 5}, headers=auth("auditor"))
check(r.status_code == 200 and r.content == open(os.path.join(OUT, "inclusion.json"), "rb").read(),
      "size=5 gives the same bytes as the proof bound to the first checkpoint", r)
print("checkpoint 2 and a consistency proof ok", flush=True)

# --- who may, and bad parameters -----------------------------------------------------------------------
for path in ("/v1/checkpoints/latest", f"/v1/proofs/inclusion?event={ids[0]}", "/v1/proofs/consistency?from=1&to=8"):
    problem(client.get(path, headers=auth("app")), 403, "forbidden")
    problem(client.get(path), 401, "unauthorized")
problem(client.get("/v1/proofs/inclusion", headers=auth("auditor")), 400, "malformed-request", "event")
problem(client.get("/v1/proofs/inclusion", params={"event": "nope"}, headers=auth("auditor")), 400, "malformed-request", "event")
problem(client.get("/v1/proofs/inclusion", params={"event": str(uuid.uuid4())}, headers=auth("auditor")), 404, "not-found", "event")
problem(client.get("/v1/proofs/inclusion", params={"event": ids[0], "size": "many"}, headers=auth("auditor")), 400, "malformed-request", "size")
problem(client.get("/v1/proofs/inclusion", params={"event": ids[0], "size": 9}, headers=auth("auditor")), 422, "validation", "size")
problem(client.get("/v1/proofs/consistency", params={"to": 8}, headers=auth("auditor")), 400, "malformed-request", "from")
problem(client.get("/v1/proofs/consistency", params={"from": 5, "to": "x"}, headers=auth("auditor")), 400, "malformed-request", "to")
problem(client.get("/v1/proofs/consistency", params={"from": 8, "to": 5}, headers=auth("auditor")), 422, "validation", "from")
problem(client.get("/v1/proofs/consistency", params={"from": 5, "to": 9}, headers=auth("auditor")), 422, "validation", "to")
print("roles and bad parameters ok", flush=True)

save("ids.json", json.dumps({"first": ids[1], "later": ids[6]}).encode())
checks.summary()
