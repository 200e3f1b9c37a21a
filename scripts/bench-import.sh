#!/usr/bin/env bash
# Times `evtool import` of a JSON Lines export into a fresh SQLite file against a few lines of
# Python doing the least an import can (`json.loads` per line, one `executemany` into a table of
# the same shape, with the same indexes, in one transaction), alternating run by run, with the
# load average beside the figures (issue 19, "Import").
#
#   scripts/bench-import.sh [RUNS] [EVENTS]   (default 3 runs of 48,000 events)
#
# The export is made like a real one: `evtool demo` records 1,000 actions, their events are
# copied (new ids, ~1,000 streams, versions, recording times) into a staging store by an
# import, and that store's `evtool export` (hashes included, so the import checks them) is
# what is timed.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}; total=${2:-48000}
say() { printf 'bench-import: %s\n' "$*" >&2; }
command -v python3 >/dev/null || { say "python3 is not installed: no baseline"; exit 69; }
swift build -c release --product evtool >&2
evtool=$PWD/.build/release/evtool
dir=$(mktemp -d /tmp/evtool-bench-import.XXXXXX)
trap 'rm -rf "$dir"' EXIT
"$evtool" demo --users 50 --actions 1000 --store "sqlite:$dir/demo.sqlite" >/dev/null 2>&1
"$evtool" export --store "sqlite:$dir/demo.sqlite" 2>/dev/null | python3 -c '
import json, sys, uuid, datetime
templates = [json.loads(line) for line in sys.stdin if json.loads(line)["stream"][0] != "$"]
total = int(sys.argv[1]); versions = {}
start = datetime.datetime(2026, 3, 1, tzinfo=datetime.timezone.utc)
for n in range(total):
    event = templates[n % len(templates)]
    stream = "user-%04d" % (n * 7919 % 997)
    versions[stream] = versions.get(stream, 0) + 1
    at = start + datetime.timedelta(seconds=n * 3)
    sys.stdout.write(json.dumps({"stream": stream, "version": versions[stream], "id": str(uuid.uuid4()), "type": event["type"],
        "recordedAt": at.strftime("%Y-%m-%dT%H:%M:%S.%fZ"), "data": event["data"], "metadata": event["metadata"]}, separators=(",", ":")) + "\n")
' "$total" > "$dir/staging.jsonl"
"$evtool" import "$dir/staging.jsonl" --store "sqlite:$dir/staging.sqlite" >/dev/null 2>&1
"$evtool" export --store "sqlite:$dir/staging.sqlite" > "$dir/export.jsonl" 2>/dev/null
lines=$(wc -l < "$dir/export.jsonl")
say "export: $lines events, $(du -k "$dir/export.jsonl" | cut -f1) KiB; uptime: $(uptime)"

python_baseline() {
    python3 - "$1" "$2" <<'PY'
import json, sqlite3, sys, time
path, db = sys.argv[1], sys.argv[2]
start = time.perf_counter()
con = sqlite3.connect(db)
con.execute("PRAGMA journal_mode=WAL"); con.execute("PRAGMA synchronous=FULL")
con.execute("CREATE TABLE events (position INTEGER PRIMARY KEY, stream_id TEXT NOT NULL, version INTEGER NOT NULL, event_id TEXT NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL, metadata TEXT NOT NULL, recorded_at TEXT NOT NULL, hash TEXT NOT NULL)")
con.execute("CREATE UNIQUE INDEX events_stream_version ON events (stream_id, version)")
con.execute("CREATE UNIQUE INDEX events_event_id ON events (event_id)")
rows = []
with open(path, "rb") as f:
    for line in f:
        e = json.loads(line)
        rows.append((e["stream"], e["version"], e["id"], e["type"], json.dumps(e["data"], separators=(",", ":")),
                     json.dumps(e["metadata"], separators=(",", ":")), e["recordedAt"], e["hash"]))
with con:
    con.executemany("INSERT INTO events (stream_id, version, event_id, type, data, metadata, recorded_at, hash) VALUES (?,?,?,?,?,?,?,?)", rows)
con.close()
print("%.3f" % (time.perf_counter() - start))
PY
}

ours=(); python=()
for run in $(seq 1 "$runs"); do
    rm -f "$dir"/target* "$dir"/python*
    step_ours() {
        local start end
        start=$(date +%s.%N)
        "$evtool" import "$dir/export.jsonl" --store "sqlite:$dir/target.sqlite" >/dev/null 2>&1
        end=$(date +%s.%N)
        ours+=("$(echo "$end - $start" | bc)")
    }
    step_python() { python+=("$(python_baseline "$dir/export.jsonl" "$dir/python.sqlite")"); }
    if (( run % 2 == 1 )); then step_ours; step_python; else step_python; step_ours; fi
    imported=$("$evtool" stats --store "sqlite:$dir/target.sqlite" 2>/dev/null | grep -m1 -o '^events: *[0-9,]*' || true)
    say "run $run: evtool ${ours[-1]} s, python ${python[-1]} s ${imported:+($imported)}"
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
o=$(median "${ours[@]}"); p=$(median "${python[@]}")
awk -v n="$lines" -v o="$o" -v p="$p" 'BEGIN {
    printf "import of %d events into a fresh SQLite file (median of runs, whole process for evtool):\n", n
    printf "  evtool import  %9.0f events/s  (%.3f s)\n", n / o, o
    printf "  python3 json.loads + executemany %9.0f events/s  (%.3f s)\n", n / p, p
    printf "  ratio %.2f (target >= 1.0)\n", (n / o) / (n / p) }'
say "uptime: $(uptime)"
