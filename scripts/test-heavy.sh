#!/usr/bin/env bash
# The fault suite with heavy settings, against release builds of evtool and the fault driver
# (so the load figures are honest), on SQLite files and a throwaway PostgreSQL 15, then a
# bounded coverage-guided fuzz run of the import line parser. Prints the figures at the end.
#
#   scripts/test-heavy.sh
#
# Settings (environment; the quick settings inside scripts/test.sh are 2 / 1,000 / 2 s):
#   EVTOOL_FAULT_ITERATIONS  kills per crash scenario and store, and
#                            server restarts per server-fault test       (default 10)
#   EVTOOL_FAULT_EVENTS      events in the logs killed during import,
#                            migrate and rebuild                         (default 5000)
#   EVTOOL_LOAD_SECONDS      seconds of concurrent load per store        (default 15)
#   EVTOOL_FAULT_SEED        first seed; failures name theirs            (default: the time)
#   EVTOOL_FUZZ_SECONDS      seconds of fuzzing; 0 skips it              (default 120)
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf 'test-heavy.sh: %s\n' "$*" >&2; }

scripts/bootstrap.sh

export EVTOOL_FAULT_ITERATIONS=${EVTOOL_FAULT_ITERATIONS:-10}
export EVTOOL_FAULT_EVENTS=${EVTOOL_FAULT_EVENTS:-5000}
export EVTOOL_LOAD_SECONDS=${EVTOOL_LOAD_SECONDS:-15}
export EVTOOL_FAULT_SEED=${EVTOOL_FAULT_SEED:-$(date +%s)}
fuzz_seconds=${EVTOOL_FUZZ_SECONDS:-120}
say "kills per scenario $EVTOOL_FAULT_ITERATIONS, logs of $EVTOOL_FAULT_EVENTS events, load $EVTOOL_LOAD_SECONDS s, seed $EVTOOL_FAULT_SEED"

say "building the tests, and evtool and the fault driver in release mode"
swift build --build-tests
swift build -c release --product evtool
swift build -c release --product FaultDriver
EVTOOL_FAULT_BINARIES=$(swift build -c release --show-bin-path)
export EVTOOL_FAULT_BINARIES

pg_dir=$(mktemp -d /tmp/evtool-heavy-pg.XXXXXX)
log=$(mktemp /tmp/evtool-heavy-log.XXXXXX)
cleanup() {
    scripts/postgres.sh stop "$pg_dir" || true
    rm -rf "$pg_dir"
}
trap cleanup EXIT
EVTOOL_TEST_POSTGRES_URL=$(scripts/postgres.sh start "$pg_dir")
export EVTOOL_TEST_POSTGRES_URL

started=$(date +%s)
status=0
swift test --skip-build --filter FaultTests 2>&1 | tee "$log" || status=$?
say "fault suite: exit $status after $(( $(date +%s) - started )) s"

if [[ "$fuzz_seconds" != 0 ]]; then
    scripts/fuzz.sh "$fuzz_seconds" 2>&1 | tee -a "$log" || status=1
fi

echo
echo "== figures (seed $EVTOOL_FAULT_SEED)"
grep -h '^FAULT-REPORT' "$log" | sed 's/^FAULT-REPORT //' | sort
grep -h '^FUZZ-REPORT' "$log" | sed 's/^FUZZ-REPORT //' || true
rm -f "$log"
exit "$status"
