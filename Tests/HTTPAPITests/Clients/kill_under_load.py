"""kill -9 of `evtool serve` under load while clients retry with their idempotency keys.

  EVTOOL_BIN    the evtool binary
  EVTOOL_STORE  the store
  EVTOOL_PORT   the port to serve on
Starts the server, runs 8 writer threads (each PUTs favorites with a fresh Idempotency-Key per
request and retries the same request on any failure until it is acknowledged), kills the
server with SIGKILL twice under that load and starts it again, then checks through the log
that every acknowledged request is in it exactly once. Prints 'N passed, 0 failed'.
"""
import json
import os
import signal
import subprocess
import sys
import threading
import time

import httpx

BIN, STORE, PORT = os.environ["EVTOOL_BIN"], os.environ["EVTOOL_STORE"], int(os.environ["EVTOOL_PORT"])
BASE = f"http://127.0.0.1:{PORT}"
SUMMARY = {"name": "Hamilton", "venue": "Pantages Theatre", "localDateTime": "2026-12-05 19:30:00", "category": "Arts & Theatre"}
passed = 0


def check(condition, what):
    global passed
    if not condition:
        print(f"FAILED: {what}", flush=True)
        print(f"{passed} passed, 1 failed", flush=True)
        stop_server()
        sys.exit(1)
    passed += 1


server = None


def start_server():
    global server
    server = subprocess.Popen([BIN, "serve", "--no-auth", "--listen", f"127.0.0.1:{PORT}", "--store", STORE],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            if httpx.get(BASE + "/healthz", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            time.sleep(0.05)
    check(False, "the server started")


def stop_server():
    if server is not None and server.poll() is None:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)


acknowledged = {}   # key -> (user, listing, position)
lock = threading.Lock()
running = True


def writer(index):
    client = httpx.Client(base_url=BASE, timeout=5)
    number = 0
    while running:
        number += 1
        user, listing, key = f"w{index}", f"L{index}-{number}", f"k{index}-{number}"
        while True:   # the same request, with the same key, until it is acknowledged
            try:
                r = client.put(f"/v1/users/{user}/favorites/{listing}", json=SUMMARY, headers={"Idempotency-Key": key})
                if r.status_code in (200, 201):
                    body = r.json()
                    with lock:
                        acknowledged[key] = (user, listing, body.get("position"))
                    break
            except httpx.HTTPError:
                pass
            time.sleep(0.02)
            if not running:
                break


start_server()
threads = [threading.Thread(target=writer, args=(index,)) for index in range(8)]
for thread in threads:
    thread.start()
for _ in range(2):
    time.sleep(1.5)
    server.send_signal(signal.SIGKILL)
    server.wait()
    time.sleep(0.3)
    start_server()
time.sleep(1.5)
running = False
for thread in threads:
    thread.join(timeout=30)
check(len(acknowledged) > 20, f"{len(acknowledged)} requests acknowledged across two kills")

keys = {}
after = 0
while True:
    page = httpx.get(BASE + "/v1/log", params={"after": after, "limit": 1000}, timeout=20).json()
    for event in page["events"]:
        key = event["metadata"].get("requestID")
        keys[key] = keys.get(key, 0) + 1
    if not page["events"]:
        break
    after = page["nextAfter"]
missing = [key for key in acknowledged if keys.get(key, 0) != 1]
check(not missing, f"every acknowledged request is in the log exactly once (not: {missing[:5]})")
check(all(count == 1 for count in keys.values()), "no request is in the log twice")
for index in range(8):
    favorites = httpx.get(BASE + f"/v1/users/w{index}/favorites", timeout=20).json()["items"]
    listings = {item["listingID"] for item in favorites}
    mine = {listing for key, (user, listing, _) in acknowledged.items() if user == f"w{index}"}
    check(mine <= listings, f"user w{index}'s view holds every acknowledged favorite")
stop_server()
print(json.dumps({"acknowledged": len(acknowledged), "events": sum(keys.values())}), flush=True)
print(f"{passed} passed, 0 failed", flush=True)
