#!/usr/bin/env bash
# Processor time per PUT of `evtool serve` on PostgreSQL and of the plain back end an app would
# otherwise have (../shared/bench/crud/app.py: Starlette + asyncpg, one row per favorite), each
# with the PostgreSQL it writes to, in alternating rounds on fresh databases: where the PUT
# rates of ../shared/bench/serve-vs-crud.sh come from when wrk, the server and PostgreSQL share
# the machine's cores.
#
#   scripts/serve-vs-crud-cpu.sh [ROUNDS] [EVTOOL]      (default 3, .build/release/evtool)
#
# Each round starts each server on a fresh database, runs `wrk -t2 -c64 -d${DURATION:-8}s` with
# scripts/serve-favorite.lua (20,000 users) and reads, over the run, the server's processor
# time (its process and its children, utime + stime) and PostgreSQL's (every backend and
# helper process, and those that exited: the postmaster's cutime + cstime), each divided by the
# requests wrk counted. Uses the peers' PostgreSQL (../shared/bench/pg_cluster.sh, port 55432,
# stopped at the end) and their Python environment (/tmp/crud-venv, made if missing), as
# serve-vs-crud.sh does (EVTOOL_PEERS=DIR if the peer benchmarks are elsewhere).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3} evtool=${2:-.build/release/evtool} duration=${DURATION:-8}
peers=${EVTOOL_PEERS:-../shared/bench}
[[ -x $peers/pg_cluster.sh && -f $peers/crud/app.py ]] || { echo "serve-vs-crud-cpu: needs the peer benchmarks at $peers (EVTOOL_PEERS=DIR)" >&2; exit 69; }
venv=/tmp/crud-venv
[[ -x $venv/bin/uvicorn ]] || { python3 -m venv $venv && $venv/bin/pip install -q starlette uvicorn uvloop httptools asyncpg; }
work=$(mktemp -d /tmp/serve-cpu.XXXXXX)
server=""
cleanup() { [[ -n $server ]] && kill "$server" 2>/dev/null; "$peers/pg_cluster.sh" stop >/dev/null 2>&1 || true; rm -rf "$work"; }
trap cleanup EXIT
"$peers/pg_cluster.sh" start >/dev/null
socket="host=/tmp&port=55432"
export EVTOOL_USERS=20000
tick_ns=$((1000000000 / $(getconf CLK_TCK)))

# utime + stime of a process and its descendants, in ticks.
tree_ticks() {
    local total=0 fields child
    read -r -a fields < "/proc/$1/stat" || { echo 0; return; }
    total=$((fields[13] + fields[14]))
    for child in $(pgrep -P "$1" || true); do total=$((total + $(tree_ticks "$child"))); done
    echo $total
}
# PostgreSQL's processes, live and exited, in ticks.
postgres_ticks() {
    local postmaster total=0 fields process
    postmaster=$(head -1 /tmp/pgbench-cluster/postmaster.pid)
    read -r -a fields < "/proc/$postmaster/stat"
    total=$((fields[13] + fields[14] + fields[15] + fields[16]))
    for process in $(pgrep -P "$postmaster"); do
        read -r -a fields < "/proc/$process/stat" 2>/dev/null || continue
        total=$((total + fields[13] + fields[14]))
    done
    echo $total
}
fresh() { psql -h /tmp -p 55432 -U postgres -d postgres -qc "DROP DATABASE IF EXISTS $1" -c "CREATE DATABASE $1" >/dev/null; }
wait_up() { for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$1/healthz" >/dev/null && return 0; sleep 0.1; done; echo "serve-vs-crud-cpu: the server on port $1 did not start" >&2; exit 1; }

# One measured run against the server on port $2 (process $server): prints the line and
# appends "rate total" to $work/$1.
measure() {
    local name=$1 port=$2 s0 p0 s1 p1 out requests rate p99 per_server per_postgres
    s0=$(tree_ticks "$server"); p0=$(postgres_ticks)
    out=$(wrk -t2 -c64 -d"${duration}s" --latency -s scripts/serve-favorite.lua "http://127.0.0.1:$port" 2>&1)
    s1=$(tree_ticks "$server"); p1=$(postgres_ticks)
    requests=$(awk '/requests in/{print $1}' <<< "$out")
    rate=$(awk '/Requests\/sec/{print $2}' <<< "$out"); p99=$(awk '/ 99%/{print $2}' <<< "$out")
    grep -q "Non-2xx" <<< "$out" && { echo "serve-vs-crud-cpu: $name answered PUTs other than 2xx:"; grep "Non-2xx" <<< "$out"; exit 1; } >&2
    per_server=$(( (s1 - s0) * tick_ns / requests / 1000 )); per_postgres=$(( (p1 - p0) * tick_ns / requests / 1000 ))
    printf '%s: PUT %s req/s p99 %s | processor per PUT: server %d µs, PostgreSQL %d µs, both %d µs\n' \
        "$name" "$rate" "$p99" "$per_server" "$per_postgres" $((per_server + per_postgres))
    echo "$rate $((per_server + per_postgres))" >> "$work/$name"
}

echo "# processor time per PUT, fresh databases, wrk -t2 -c64 -d${duration}s scripts/serve-favorite.lua, 20,000 users; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for round in $(seq 1 "$rounds"); do
    fresh evs; rm -f "$work/tokens"
    EVTOOL_TOKEN=$("$evtool" token create --role app --tokens "$work/tokens" 2>/dev/null | tail -1); export EVTOOL_TOKEN
    "$evtool" init --store "postgresql://postgres@localhost:55432/evs?$socket" >/dev/null
    "$evtool" serve --listen 127.0.0.1:18601 --threads 8 --tokens "$work/tokens" --store "postgresql://postgres@localhost:55432/evs?$socket" >"$work/serve.log" 2>&1 &
    server=$!; wait_up 18601
    printf 'round %d ' "$round"; measure "evtool serve (PG)" 18601
    kill -TERM "$server"; wait "$server" 2>/dev/null || true; server=""

    fresh crud
    ( cd "$peers/crud" && CRUD_DSN="postgresql://postgres@/crud?$socket" CRUD_TOKEN="$EVTOOL_TOKEN" \
        exec $venv/bin/uvicorn app:app --host 127.0.0.1 --port 18602 --workers 2 --loop uvloop --http httptools --log-level warning ) 2>"$work/crud.log" &
    server=$!; wait_up 18602
    printf 'round %d ' "$round"; measure "crud (Starlette+asyncpg, 2 workers)" 18602
    kill -TERM "$server"; wait "$server" 2>/dev/null || true; server=""
done
median() { sort -n | awk '{v[NR]=$1} END{print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }
evtool_rate=$(cut -d' ' -f1 "$work/evtool serve (PG)" | median); crud_rate=$(cut -d' ' -f1 "$work/crud (Starlette+asyncpg, 2 workers)" | median)
evtool_cpu=$(cut -d' ' -f2 "$work/evtool serve (PG)" | median); crud_cpu=$(cut -d' ' -f2 "$work/crud (Starlette+asyncpg, 2 workers)" | median)
awk -v er="$evtool_rate" -v cr="$crud_rate" -v ec="$evtool_cpu" -v cc="$crud_cpu" 'BEGIN {
    printf "medians: evtool %.0f PUT/s with %.0f µs of processor per PUT, crud %.0f PUT/s with %.0f µs: %.2f× the rate for %.2f of the processor time\n", er, ec, cr, cc, er / cr, ec / cc }'
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
