#!/usr/bin/env bash
# The whole test suite, from a fresh machine: installs missing system packages, builds with
# no warnings allowed, starts a throwaway PostgreSQL 15, runs every test against SQLite files
# and that server, and stops the server even when tests fail.
#
#   scripts/test.sh                 every test
#   scripts/test.sh --filter NAME   only tests matching NAME (passed to swift test)
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf 'test.sh: %s\n' "$*" >&2; }

scripts/bootstrap.sh

say "checking doc comments, docs/ARCHITECTURE.md's module table and the documents' links"
python3 scripts/check-doc-comments.py
python3 scripts/check-architecture.py
python3 scripts/check-doc-links.py

say "building (warnings fail the build)"
build_log=$(mktemp)
if ! swift build --build-tests 2>&1 | tee "$build_log"; then
    say "the build failed"; exit 1
fi
if grep -E "^/.*: warning:" "$build_log" | grep -v "/.build/" >/dev/null; then
    say "the build has warnings:"; grep -E "^/.*: warning:" "$build_log" | sort -u >&2; exit 1
fi
rm -f "$build_log"

# The tests' Python clients (httpx, schemathesis, Selenium from PyPI, in .build/venv; made once).
EVTOOL_TEST_PYTHON=$(scripts/python-env.sh)
export EVTOOL_TEST_PYTHON

pg_dir=$(mktemp -d /tmp/evtool-test-pg.XXXXXX)
# Tests that crash, restart or replicate a server start clusters of their own here
# (TestSupport's PrivatePostgres); whatever is still running when the run ends is stopped.
EVTOOL_TEST_PG_ROOT=$(mktemp -d /tmp/evtool-test-clusters.XXXXXX)
chmod 755 "$EVTOOL_TEST_PG_ROOT"
export EVTOOL_TEST_PG_ROOT
cleanup() {
    scripts/postgres.sh stop "$pg_dir" || true
    rm -rf "$pg_dir"
    local cluster
    for cluster in "$EVTOOL_TEST_PG_ROOT"/*/; do
        [[ -d "$cluster/data" ]] && scripts/postgres.sh crash "$cluster" >/dev/null 2>&1 || true
    done
    rm -rf "$EVTOOL_TEST_PG_ROOT"
}
trap cleanup EXIT
EVTOOL_TEST_POSTGRES_URL=$(scripts/postgres.sh start "$pg_dir")
export EVTOOL_TEST_POSTGRES_URL
say "PostgreSQL for the tests: $EVTOOL_TEST_POSTGRES_URL"

swift test "$@"
# The suites that use PostgreSQL once more on the partitioned layout (a new store is one table
# by default, schema 18): the store's own suites (gap safety, roles, tamper, partitions,
# replicas, failover), the conformance suites every store passes, the projections, the faults
# (crashes, load, first writes, the server crashing), the library's operations and replica
# reads. Their tests parameterised over stores take only their PostgreSQL cases in this pass
# (TestStores.postgresOnly); clusters the tests start for themselves ask for the layout too
# (PrivatePostgres). Skipped when a --filter names other tests.
if [[ $# -eq 0 ]]; then
    postgres_suites='StorePostgresTests'
    postgres_suites+='|EventLogTests\.(ConformanceTests|ProjectionStoreConformanceTests|MultiStreamAppendTests|IdentityRuleTests|HashChainTests)'
    postgres_suites+='|ProjectionsTests\.(ProjectorTests|CatchUpPhasesTests|RebuildResumeTests|CheckpointTests|ConcurrentReadTests|RebuildDocumentsTests|CrossStoreTests)'
    postgres_suites+='|FaultTests\.(CrashTests|LoadTests|FirstWriteTests|ServerFaultTests)'
    postgres_suites+='|EvtoolKitTests\.(ApplicationIdentityTests|AuditOperationsTests|ErasureGapTests|ForeignImportTests|ImportRaceTests|ReplicaReadsTests|TransferOperationsTests)'
    postgres_suites+='|evtoolTests\.ReadStoreCommandTests|HTTPAPITests\.ServeFaultTests'
    say "the PostgreSQL suites on the partitioned layout (EVTOOL_TEST_PG_LAYOUT=partitioned)"
    EVTOOL_TEST_PG_LAYOUT=partitioned swift test --skip-build --filter "$postgres_suites"
fi
