#!/usr/bin/env bash
# Installs the system packages evtool builds and tests with, when they are missing:
# libsqlite3-dev, libpq-dev, libssl-dev, libmicrohttpd-dev, pkg-config, the sqlite3 shell,
# PostgreSQL 15, python3 with venv (the HTTP tests' client and Selenium come from PyPI into
# virtual environments), for the report's browser tests Chromium and its WebDriver, and
# man-db (the man page test), and wrk (the HTTP load of `evtool-bench serve` and of
# ServeFavoriteScriptTests).
# As root it uses apt-get; otherwise it names what to install and fails.
set -euo pipefail

say() { printf 'bootstrap: %s\n' "$*" >&2; }

missing=()
have_pkg() { pkg-config --exists "$1" 2>/dev/null; }
command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
have_pkg sqlite3 || missing+=(libsqlite3-dev)
have_pkg libpq || missing+=(libpq-dev)
have_pkg libcrypto || missing+=(libssl-dev)
have_pkg libmicrohttpd || missing+=(libmicrohttpd-dev)
command -v python3 >/dev/null 2>&1 || missing+=(python3)
python3 -c 'import ensurepip, venv' >/dev/null 2>&1 || missing+=(python3-venv)
command -v sqlite3 >/dev/null 2>&1 || missing+=(sqlite3)
command -v psql >/dev/null 2>&1 || missing+=(postgresql-client)
if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then missing+=(postgresql); fi
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v chromedriver >/dev/null 2>&1 || missing+=(chromium-driver)
# The man page test renders 'evtool man' with man -l (man-db brings groff).
command -v man >/dev/null 2>&1 || missing+=(man-db)
command -v wrk >/dev/null 2>&1 || missing+=(wrk)

if ((${#missing[@]} == 0)); then
    exit 0
fi
if [[ $(id -u) -ne 0 ]]; then
    say "missing system packages: ${missing[*]}"
    say "install them (e.g. sudo apt-get install -y ${missing[*]}) or run this script as root"
    exit 1
fi
say "installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
apt-get install -y -qq "${missing[@]}" >&2
