#!/usr/bin/env bash
# Times `evtool report` with a release build: the page of a user with 10,000 actions, and the
# store overview over 1,000,000 events (1,000 users plus that one, over 90 days); then how long
# that user's page takes to open in headless Chromium (Tests/Browser/open_time.py, median of 5).
#
#   scripts/bench-report.sh [DIR]     (default: a fresh temporary folder; the store is kept there)
#   EVTOOL_BIN=/tmp/rel/release/evtool scripts/bench-report.sh DIR
#
# The store is made by importing generated JSON Lines (events copied from an `evtool demo`
# export, with new ids, streams, versions and recording times), then sealed and projected.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-$(mktemp -d /tmp/evtool-bench-report.XXXXXX)}
mkdir -p "$dir"
say() { printf 'bench-report: %s\n' "$*" >&2; }

# EVTOOL_BIN=PATH uses a release evtool built elsewhere (e.g. with --scratch-path) instead.
if [[ -n ${EVTOOL_BIN:-} ]]; then
    evtool=$EVTOOL_BIN
else
    swift build -c release --product evtool >&2
    evtool=$PWD/.build/release/evtool
fi
store=sqlite:$dir/big.sqlite

if [[ ! -f $dir/big.sqlite ]]; then
    say "making 1,000,000 events in $dir"
    "$evtool" demo --users 50 --actions 3000 --store "sqlite:$dir/demo.sqlite" >/dev/null 2>&1
    "$evtool" export --store "sqlite:$dir/demo.sqlite" 2>/dev/null | python3 -c '
import json, sys, uuid, datetime
templates = [json.loads(line) for line in sys.stdin if json.loads(line)["stream"][0] != "$"]
versions = {}
start = datetime.datetime(2026, 3, 1, tzinfo=datetime.timezone.utc)
total = 1_000_000
out = sys.stdout
for n in range(total):
    event = templates[n % len(templates)]
    stream = "heavy-user" if n % 100 == 0 else "user-%05d" % (n % 997)
    versions[stream] = versions.get(stream, 0) + 1
    at = start + datetime.timedelta(seconds=n * 90 * 86400 / total)
    line = {"stream": stream, "version": versions[stream], "id": str(uuid.uuid4()), "type": event["type"],
            "recordedAt": at.strftime("%Y-%m-%dT%H:%M:%S.%fZ"), "data": event["data"], "metadata": event["metadata"]}
    out.write(json.dumps(line, separators=(",", ":")) + "\n")
' > "$dir/big.jsonl"
    "$evtool" import "$dir/big.jsonl" --batch 5000 --store "$store" >&2
    "$evtool" seal --store "$store" >&2
    "$evtool" project --store "$store" >&2
fi

say "uptime: $(uptime)"
for run in 1 2 3; do
    /usr/bin/time -o "$dir/time" -f "report --user heavy-user (10,000 actions): %e s, %M KB max RSS" "$evtool" report --user heavy-user --out "$dir/heavy-user.html" --store "$store"
    cat "$dir/time"   # on standard output, where scripts/performance.sh keeps it
done
for run in 1 2 3; do
    /usr/bin/time -o "$dir/time" -f "report --store-overview (1,000,000 events): %e s, %M KB max RSS" "$evtool" report --store-overview --out "$dir/overview.html" --store "$store"
    cat "$dir/time"
done
ls -l "$dir/heavy-user.html" "$dir/overview.html" >&2
say "uptime: $(uptime)"
"$(scripts/python-env.sh)" Tests/Browser/open_time.py "$dir/heavy-user.html" 5
