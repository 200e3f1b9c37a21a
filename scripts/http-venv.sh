#!/usr/bin/env bash
# Makes, once, the Python environment the HTTP end-to-end tests drive `evtool serve` with
# (httpx and schemathesis from PyPI, in .build/http-venv), and prints the path of its python. Quiet when it is
# already there; safe to run from several processes at once.
set -euo pipefail
cd "$(dirname "$0")/.."
venv="$PWD/.build/http-venv"
mkdir -p .build
exec 9>.build/http-venv.lock
flock 9
if ! "$venv/bin/python" -c 'import httpx, schemathesis' >/dev/null 2>&1; then
    python3 -m venv "$venv" >&2
    "$venv/bin/pip" install --quiet --disable-pip-version-check 'httpx==0.28.1' 'schemathesis==4.32.5' >&2
fi
echo "$venv/bin/python"
