#!/usr/bin/env bash
# A/B of two evtool binaries' `serve` in alternating rounds (docs/PERFORMANCE.md has
# `evtool-bench serve`'s figures): for each round and binary, a fresh store, `evtool serve --no-auth --threads 8`,
# a 2 s warm-up, then `wrk -t2 -c64 -d$DURATION` of the script given; prints requests/s, p99
# and the server's CPU per request (utime+stime from /proc/PID/stat over the measured run,
# divided by the requests wrk counted), with `uptime` beside each round.
#
#   scripts/serve-ab.sh BASE_EVTOOL NEW_EVTOOL STORE_KIND [ROUNDS] [DURATION] [LUA]
#     STORE_KIND: sqlite, or postgres (needs $EVTOOL_AB_POSTGRES_URL: a server URL)
#     LUA: scripts/serve-favorite.lua (default: PUT favorites of random users, most not held
#          by the server yet) or scripts/serve-favorites-read.lua (GET favorites; the warm-up
#          then reads every user once first, so the measured reads are the view memory's)
set -euo pipefail
cd "$(dirname "$0")/.."
base=$1 new=$2 kind=$3 rounds=${4:-3} duration=${5:-10} lua=${6:-scripts/serve-favorite.lua}
users=${EVTOOL_USERS:-100000}
export EVTOOL_USERS=$users
work=$(mktemp -d /tmp/serve-ab.XXXXXX)
tick=$(getconf CLK_TCK)
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
pid=""
cleanup() { [[ -n "$pid" ]] && kill "$pid" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

run_one() {   # binary label round
    local binary=$1 label=$2 round=$3 store port
    port=$((20000 + RANDOM % 20000))
    if [[ $kind == sqlite ]]; then
        store="sqlite:$work/$label-$round.sqlite"
    else
        local schema="ab_${label}_${round}_$$"
        store="$EVTOOL_AB_POSTGRES_URL"; [[ $store == *\?* ]] && store+="&" || store+="?"; store+="schema=$schema"
    fi
    "$binary" serve --store "$store" --no-auth --threads 8 --listen "127.0.0.1:$port" 2>"$work/$label-$round.log" &
    pid=$!
    for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.1; done
    if [[ $lua == *read* ]]; then
        # Fill the view memory: wrk's read script draws the same users in every run.
        wrk -t2 -c64 -d"$duration"s -s "$lua" "http://127.0.0.1:$port" >/dev/null
    fi
    wrk -t2 -c64 -d2s -s "$lua" "http://127.0.0.1:$port" >/dev/null
    local before after out requests rate p99 load
    load=$(cut -d' ' -f1-3 /proc/loadavg)
    before=$(cpu_ticks "$pid")
    out=$(wrk -t2 -c64 -d"$duration"s --latency -s "$lua" "http://127.0.0.1:$port")
    after=$(cpu_ticks "$pid")
    requests=$(awk '/requests in/ {print $1}' <<<"$out")
    rate=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
    p99=$(awk '$1 == "99%" {print $2}' <<<"$out")
    kill -TERM "$pid"; wait "$pid" 2>/dev/null || true; pid=""
    if [[ $kind == postgres ]]; then
        psql "$EVTOOL_AB_POSTGRES_URL" -X -q -c "DROP SCHEMA IF EXISTS ab_${label}_${round}_$$ CASCADE" >/dev/null 2>&1 || true
    fi
    awk -v l="$label" -v r="$round" -v q="$requests" -v s="$rate" -v p="$p99" -v t="$((after - before))" -v k="$tick" -v a="$load" \
        'BEGIN { printf "%-5s round %d  %8.0f req/s  p99 %-9s  server CPU %6.0f us/request  (%d requests; load %s)\n", l, r, s, p, t / k * 1e6 / q, q, a }'
}

echo "serve-ab: $kind, $(basename "$lua"), ${rounds} rounds of ${duration}s, $users users; base=$base new=$new"
uptime
for round in $(seq 1 "$rounds"); do
    if (( round % 2 )); then run_one "$base" base "$round"; run_one "$new" new "$round"
    else run_one "$new" new "$round"; run_one "$base" base "$round"; fi
done
uptime
