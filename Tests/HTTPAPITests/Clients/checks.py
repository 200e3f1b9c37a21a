"""What the httpx clients of the serve tests share: one check that stops at the first failure
(naming what was expected and what came back), the count of checks passed, and the bearer
header of a role's token from EVTOOL_TOKENS (JSON {"app": TOKEN, "auditor": TOKEN, "admin": TOKEN})."""
import json
import os
import sys

TOKENS = json.loads(os.environ["EVTOOL_TOKENS"])
passed = 0


def check(condition, what, response=None):
    """Counts a passed check; prints the failed one (with the response) and exits 1."""
    global passed
    if not condition:
        extra = ""
        if response is not None:
            extra = f"\n  got {response.status_code} {dict(response.headers)}\n  {response.text[:800]}"
        print(f"FAILED: {what}{extra}", flush=True)
        print(f"{passed} passed, 1 failed", flush=True)
        sys.exit(1)
    passed += 1


def auth(role):
    """The Authorization header of `role`'s token."""
    return {"Authorization": f"Bearer {TOKENS[role]}"}


def summary():
    """The last line: how many checks passed."""
    print(f"{passed} passed, 0 failed", flush=True)
