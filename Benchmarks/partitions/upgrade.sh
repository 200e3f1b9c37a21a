#!/bin/bash
# Times the schema-10 migration of a schema-9 store with N events (rows inserted by SQL: 100,000
# streams), then drops it. usage: Benchmarks/partitions/upgrade.sh URL [N]
U=$1; N=${2:-1000000}; S=up_$N

psql "$U" -X -q -c "DROP SCHEMA IF EXISTS $S CASCADE" 2>/dev/null
python3 "$(dirname "$0")/render.py" $S 9 > /tmp/$S-9.sql
python3 "$(dirname "$0")/render.py" $S 10 9 > /tmp/$S-10.sql
psql "$U" -X -q -v ON_ERROR_STOP=1 -f /tmp/$S-9.sql > /dev/null
psql "$U" -X -q -v ON_ERROR_STOP=1 <<SQL
INSERT INTO $S.events (position, stream_id, version, event_id, type, data, metadata, recorded_at, tx_id, hash)
SELECT g, 'user-' || (g % 100000), g / 100000 + 1, gen_random_uuid(), 'Searched', '{"keyword":"jazz","location":"Los Angeles"}', '{"by":"bench"}', now(), '1', repeat('ab', 32)
FROM generate_series(1, $N) g;
SELECT setval('$S.position_seq', $N);
VACUUM ANALYZE $S.events;
SQL
echo "schema 9 store with $N events: $(psql "$U" -X -A -t -c "SELECT pg_size_pretty(pg_total_relation_size('$S.events'))")"
start=$(date +%s.%N)
psql "$U" -X -q -v ON_ERROR_STOP=1 -f /tmp/$S-10.sql > /dev/null
end=$(date +%s.%N)
echo "migration 9 -> 10 of $N events: $(echo "$end - $start" | bc) s (load $(cut -d' ' -f1-3 /proc/loadavg))"
psql "$U" -X -A -t -c "SELECT string_agg(name || ':' || end_position, ' ') FROM $S.event_partitions()" -c "SELECT count(*) FROM $S.event_ids"
psql "$U" -X -q -c "DROP SCHEMA $S CASCADE" 2>/dev/null
