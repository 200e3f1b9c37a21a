#!/usr/bin/env bash
# Writes docs/schema/sqlite.sql and docs/schema/postgres.sql: the schema of a new store of
# each kind, as the store makes it (the SchemaFileTests of StoreSQLiteTests and
# StorePostgresTests, with EVTOOL_WRITE_SCHEMA=1). Run it after adding a schema step; without
# it those tests fail, naming the first line that differs.
#
#   scripts/schema.sh
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf 'schema: %s\n' "$*" >&2; }

pg_dir=$(mktemp -d /tmp/evtool-schema-pg.XXXXXX)
chmod 755 "$pg_dir"
trap 'scripts/postgres.sh stop "$pg_dir" >/dev/null 2>&1 || true; rm -rf "$pg_dir"' EXIT
EVTOOL_TEST_POSTGRES_URL=$(scripts/postgres.sh start "$pg_dir")
export EVTOOL_TEST_POSTGRES_URL

EVTOOL_WRITE_SCHEMA=1 swift test --filter 'SchemaFileTests' >&2
say "wrote docs/schema/sqlite.sql and docs/schema/postgres.sql"
