#!/usr/bin/env bash
# Creates (once) the Python virtual environment the tests' clients run in, at .build/venv,
# with the packages in scripts/python-requirements.txt (httpx and schemathesis for the HTTP
# tests, Selenium for the browser tests, all from PyPI), and prints the path of its python.
# Idempotent and quiet: it reinstalls only when the requirements file changed; safe to run
# from several processes at once.
#
#   python=$(scripts/python-env.sh)
set -euo pipefail
cd "$(dirname "$0")/.."

venv=.build/venv
requirements=scripts/python-requirements.txt
stamp=$venv/.requirements

mkdir -p .build
exec 9>.build/venv.lock
flock 9
if [[ ! -x $venv/bin/python ]]; then
    python3 -m venv "$venv" >&2
fi
if ! cmp -s "$requirements" "$stamp" 2>/dev/null; then
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$requirements" >&2
    cp "$requirements" "$stamp"
fi
printf '%s\n' "$PWD/$venv/bin/python"
