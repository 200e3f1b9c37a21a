#!/usr/bin/env bash
# evtool with every `--store` given to it replaced by one SQLite file: for harnesses written
# for PostgreSQL, such as the peers' ../shared/bench/serve-vs-crud.sh, which starts `evtool
# init` and `evtool serve` on its own PostgreSQL. Run through this, the same rounds, wrk
# scripts and Python service give evtool's figures on the embedded default (the crud suite of
# scripts/performance.sh runs it both ways).
#
#   EVTOOL_SQLITE_STORE=PATH (default /tmp/evtool-on-sqlite.sqlite; remove it for a fresh store)
#   EVTOOL_BINARY=PATH       (default .build/release/evtool beside this script)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
binary=${EVTOOL_BINARY:-$here/.build/release/evtool}
store=sqlite:${EVTOOL_SQLITE_STORE:-/tmp/evtool-on-sqlite.sqlite}
arguments=()
replace=0
for argument in "$@"; do
    if [[ $replace == 1 ]]; then arguments+=("$store"); replace=0; continue; fi
    case $argument in
        --store) arguments+=("$argument"); replace=1 ;;
        --store=*) arguments+=("--store=$store") ;;
        *) arguments+=("$argument") ;;
    esac
done
exec "$binary" "${arguments[@]}"
