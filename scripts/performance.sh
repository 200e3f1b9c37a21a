#!/usr/bin/env bash
# Runs the benchmarks and rewrites docs/PERFORMANCE.md from their output: for each benchmark
# the command, the machine, its load before and after, the output verbatim, and what it means.
# A benchmark that is not run keeps its section as it was (its latest run); nothing older is kept.
#
#   scripts/performance.sh                      every benchmark (about 1.5 hours; scale is most of it)
#   scripts/performance.sh sqlite serve         only those (the others' sections stay as they are)
#   scripts/performance.sh --list               the benchmarks' names
#
# Options:
#   --postgres URL   a durable PostgreSQL server for the postgres, audit, serve and scale suites;
#                    without it one is started (EVTOOL_PG_DURABLE=1 scripts/postgres.sh) and stopped
#   --quick          the shortest options each suite takes (to try this script, not for figures)
#   --out FILE       write FILE instead of docs/PERFORMANCE.md
#
# crud runs ../shared/bench/serve-vs-crud.sh (EVTOOL_PEERS=DIR elsewhere): the peers' own
# PostgreSQL (port 55432), stopped when it ends, so --postgres must name another server; then
# the same again with evtool on SQLite (scripts/evtool-on-sqlite.sh), the Python service still
# on PostgreSQL as it is built; then scripts/serve-vs-crud-cpu.sh, each PUT's processor time.
#
# EVTOOL_BENCH=PATH runs that evtool-bench binary instead of building a release one
# (`swift build -c release`); scripts/bench-import.sh and scripts/bench-report.sh build their own.
# Run it on a machine with nothing else running: the load before and after each run is printed
# beside its figures.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf 'performance: %s\n' "$*" >&2; }

all=(sqlite commands projections audit follower postgres serve crud scale import report)
postgres_url=""; quick=0; out=docs/PERFORMANCE.md; chosen=()
while [[ $# -gt 0 ]]; do
    case $1 in
        --postgres) postgres_url=$2; shift 2 ;;
        --quick) quick=1; shift ;;
        --out) out=$2; shift 2 ;;
        --list) printf '%s\n' "${all[@]}"; exit 0 ;;
        -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) say "unknown option '$1'"; exit 64 ;;
        *) [[ " ${all[*]} " == *" $1 "* ]] || { say "no benchmark '$1'; benchmarks: ${all[*]}"; exit 64; }
           chosen+=("$1"); shift ;;
    esac
done
[[ ${#chosen[@]} -gt 0 ]] || chosen=("${all[@]}")

# The command of each benchmark, as the document shows it (URL stands for the PostgreSQL server).
args() {
    if [[ $quick == 1 ]]; then
        case $1 in
            sqlite) echo "sqlite --events 2000 --single 200 --runs 1" ;;
            commands) echo "commands --runs 1" ;;
            projections) echo "projections --events 2000 --users 100 --runs 1" ;;
            audit) echo "audit --events 2000 --single 100 --runs 1 --postgres URL" ;;
            follower) echo "follower --events 2000 --runs 1" ;;
            postgres) echo "postgres --postgres URL --events 2000 --single 100 --runs 1" ;;
            serve) echo "serve --quick --users 1000 --duration 1 --postgres URL" ;;
            scale) echo "scale --events 2000,4000 --users 100 --samples 20 --long-stream 0 --postgres URL" ;;
            crud) echo "1" ;;
            import) echo "1 2000" ;;
            report) echo "" ;;
        esac
    else
        case $1 in
            sqlite) echo "sqlite" ;;
            commands) echo "commands" ;;
            projections) echo "projections" ;;
            audit) echo "audit --postgres URL" ;;
            follower) echo "follower --events 200000 --runs 3" ;;
            postgres) echo "postgres --postgres URL --events 20000 --single 1000 --runs 5" ;;
            serve) echo "serve --duration 10 --postgres URL" ;;
            scale) echo "scale --events 1000000,10000000 --postgres URL" ;;
            crud) echo "3" ;;
            import) echo "3 48000" ;;
            report) echo "" ;;
        esac
    fi
}

# The peer benchmarks (the crud suite): outside the project, beside it in the workplace.
peers=${EVTOOL_PEERS:-../shared/bench}
for name in "${chosen[@]}"; do
    if [[ $name == crud && ! -x $peers/serve-vs-crud.sh ]]; then say "crud needs the peer benchmarks at $peers (EVTOOL_PEERS=DIR)"; exit 69; fi
done

work=$(mktemp -d /tmp/evtool-performance.XXXXXX)
pg_dir=""
cleanup() {
    if [[ -n $pg_dir ]]; then scripts/postgres.sh stop "$pg_dir" >/dev/null 2>&1 || true; rm -rf "$pg_dir"; fi
    rm -rf "$work"
}
trap cleanup EXIT

needs_postgres=0
for name in "${chosen[@]}"; do [[ $(args "$name") == *URL* ]] && needs_postgres=1; done
if [[ $needs_postgres == 1 && -z $postgres_url ]]; then
    pg_dir=$(mktemp -d /tmp/evtool-performance-pg.XXXXXX)
    chmod 755 "$pg_dir"
    postgres_url=$(EVTOOL_PG_DURABLE=1 scripts/postgres.sh start "$pg_dir")
    say "PostgreSQL (durable) for the benchmarks: $postgres_url"
fi

bench=${EVTOOL_BENCH:-}
if [[ -z $bench ]]; then
    say "building evtool-bench and evtool (release)"
    swift build -c release --product evtool-bench >&2
    swift build -c release --product evtool >&2
    bench=$PWD/.build/release/evtool-bench
fi

# The machine, once: what the document's header says.
cpu=$(sed -n 's/^model name\s*:\s*//p' /proc/cpuinfo | head -1)
memory=$(awk '/^MemTotal:/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)
system=$( (. /etc/os-release && echo "$PRETTY_NAME") 2>/dev/null || uname -sr)
{
    echo "cores=$(nproc)"
    echo "cpu=$cpu"
    echo "memory=$memory"
    echo "system=$system"
    echo "kernel=$(uname -r)"
    echo "sqlite=$(sqlite3 --version 2>/dev/null | cut -d' ' -f1)"
    echo "postgres=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sed -E 's#.*/postgresql/([0-9]+)/bin#\1#' | sort -n | tail -1)"
    # The document itself changes as each run writes it: not a change to what is measured.
    echo "commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD -- . ':(exclude)docs/PERFORMANCE.md' 2>/dev/null || echo ' (with uncommitted changes)')"
} > "$work/machine"

load() { cut -d' ' -f1-3 /proc/loadavg; }

for name in "${chosen[@]}"; do
    shown=$(args "$name")
    case $name in
        import) command="scripts/bench-import.sh $shown" ;;
        report) command="scripts/bench-report.sh" ;;
        crud) command="$peers/serve-vs-crud.sh $shown .build/release/evtool; then the same with scripts/evtool-on-sqlite.sh; then scripts/serve-vs-crud-cpu.sh $shown" ;;
        *) command="swift run -c release evtool-bench $shown" ;;
    esac
    command=${command% }
    say "$name: $command"
    {
        echo "command=$command"
        echo "started=$(date -u '+%Y-%m-%d %H:%M UTC')"
        echo "load_before=$(load)"
    } > "$work/$name.meta"
    status=0
    case $name in
        import) scripts/bench-import.sh $shown > "$work/$name.out" 2>"$work/$name.err" || status=$? ;;
        report) scripts/bench-report.sh > "$work/$name.out" 2>"$work/$name.err" || status=$? ;;
        # Its own PostgreSQL (../shared/bench/pg_cluster.sh) and the Python service's venv;
        # then the same rounds with evtool on a fresh SQLite file (the harness names its
        # evtool rounds "(PG)" either way: the second run's are renamed).
        crud) { "$peers/serve-vs-crud.sh" $shown .build/release/evtool > "$work/$name.out" 2>"$work/$name.err" \
                && rm -f "$work/on.sqlite"* \
                && EVTOOL_SQLITE_STORE="$work/on.sqlite" "$peers/serve-vs-crud.sh" $shown scripts/evtool-on-sqlite.sh 2>>"$work/$name.err" \
                   | sed 's/^# serve vs crud,/# serve (on SQLite) vs crud,/; s/evtool serve (PG)/evtool serve (SQLite)/' >> "$work/$name.out" \
                && scripts/serve-vs-crud-cpu.sh $shown .build/release/evtool >> "$work/$name.out" 2>>"$work/$name.err"; } || status=$? ;;
        *) # The words of the command, with the server's URL put in word for word (a URL's
           # `&` or `#` must not reach sed's replacement or the shell's splitting).
           read -r -a words <<< "$shown"
           for i in "${!words[@]}"; do [[ ${words[$i]} == URL ]] && words[$i]=$postgres_url; done
           "$bench" "${words[@]}" > "$work/$name.out" 2>"$work/$name.err" || status=$? ;;
    esac
    {
        echo "finished=$(date -u '+%H:%M UTC')"
        echo "load_after=$(load)"
        echo "status=$status"
    } >> "$work/$name.meta"
    if [[ $status != 0 ]]; then
        say "$name failed (exit $status); its section is not rewritten:"; tail -5 "$work/$name.err" >&2
        rm -f "$work/$name.meta"
    fi
    # The server's address is the run's, not the benchmark's: the document names it URL.
    if [[ -n $postgres_url ]]; then
        server=${postgres_url#*://}; server=${server#*@}; server=${server%%\?*}
        for text in "$postgres_url" "$server"; do
            sed -i "s#$(printf '%s' "$text" | sed 's/[#.*[\^$]/\\&/g')#URL#g" "$work/$name.out"
        done
    fi
done

python3 scripts/performance-document.py "$work" "$out" "${all[@]}"
say "wrote $out"
