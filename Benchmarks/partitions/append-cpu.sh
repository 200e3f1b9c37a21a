#!/bin/bash
# Server CPU per append (the backend's own utime+stime from /proc/self/stat, read with
# pg_read_file as the superuser), schema 9 (b9) against schema 10 (b10), alternating rounds.
# Each one-event call is append_one to one of 1,000 streams; each batch call is append of 100
# events to one stream. The schemas b9 and b10 are made afresh (and left for a look afterwards).
# usage: Benchmarks/partitions/append-cpu.sh URL [ROUNDS] [ONE_EVENT_CALLS] [BATCH_CALLS]
U=$1; R=${2:-5}; N=${3:-3000}; B=${4:-200}
for v in 9 10; do
  psql "$U" -X -q -c "DROP SCHEMA IF EXISTS b$v CASCADE" 2>/dev/null
  python3 "$(dirname "$0")/render.py" b$v $v | psql "$U" -X -q -v ON_ERROR_STOP=1 > /dev/null 2>&1 || { echo "cannot install b$v" >&2; exit 1; }
done
ticks() { echo "SELECT (string_to_array(split_part(pg_read_file('/proc/self/stat'), ') ', 2), ' '))[12]::bigint + (string_to_array(split_part(pg_read_file('/proc/self/stat'), ') ', 2), ' '))[13]::bigint AS ticks \\gset"; }
for r in $(seq 1 $R); do
  for kind in one batch; do
    for v in 9 10; do
      f=/tmp/evtool-append-cpu-$kind-$v.sql
      {
        ticks; echo "\\set t0 :ticks"
        echo "SELECT clock_timestamp() AS w0 \\gset"
        if [ $kind = one ]; then
          for i in $(seq 1 $N); do echo "SELECT status FROM b$v.append_one('user-' || (random() * 1000)::int, 0, 0, gen_random_uuid(), 'Searched', '{\"keyword\":\"jazz\",\"location\":\"Los Angeles\"}', '{\"by\":\"bench\"}', NULL) \\g /dev/null"; done
        else
          for i in $(seq 1 $B); do echo "SELECT status FROM b$v.append(ARRAY['user-' || (random() * 1000)::int], ARRAY[0], ARRAY[0::bigint], ARRAY[100], ARRAY(SELECT gen_random_uuid() FROM generate_series(1,100)), array_fill('Searched'::text, ARRAY[100]), array_fill('{\"keyword\":\"jazz\",\"location\":\"Los Angeles\"}'::json, ARRAY[100]), array_fill('{\"by\":\"bench\"}'::json, ARRAY[100]), array_fill(NULL::timestamptz, ARRAY[100])) \\g /dev/null"; done
        fi
        ticks
        echo "SELECT (:ticks - :t0) * 10.0 AS cpu_ms, extract(epoch FROM clock_timestamp() - :'w0') * 1000 AS wall_ms \\gset"
        echo "\\echo :cpu_ms :wall_ms"
      } > $f
      calls=$([ $kind = one ] && echo $N || echo $B)
      read cpu wall < <(psql "$U" -X -q -v ON_ERROR_STOP=1 -f $f | tail -1)
      echo "round $r $kind v$v calls $calls server_cpu_us_per_call $(echo "scale=1; $cpu * 1000 / $calls" | bc) wall_us_per_call $(echo "scale=1; $wall * 1000 / $calls" | bc) load $(cut -d' ' -f1-3 /proc/loadavg)"
    done
  done
done
