#!/usr/bin/env bash
# Starts and stops a throwaway PostgreSQL cluster for the tests and benchmarks.
#
#   scripts/postgres.sh start DIR   initdb into DIR (if needed), start the server on a Unix
#                                   socket in DIR and a free TCP port on 127.0.0.1, create the
#                                   database evtool_test, and print its URL on stdout (one line).
#   scripts/postgres.sh stop DIR    stop it (fast shutdown); safe to call twice.
#   scripts/postgres.sh crash DIR   stop it the way a crash would (immediate shutdown: no
#                                   checkpoint, recovery at the next start); for tests.
#   scripts/postgres.sh standby PRIMARY_DIR DIR [sync]
#                                   make DIR a hot standby of the server running in PRIMARY_DIR
#                                   (pg_basebackup -R: streaming replication, its own port),
#                                   start it and print its URL. With `sync`, the primary is
#                                   configured to wait for it (synchronous_standby_names, and
#                                   synchronous_commit = remote_apply), so a commit is
#                                   acknowledged only once the standby has applied it.
#   scripts/postgres.sh promote DIR make the standby in DIR the primary (pg_ctl promote); waits
#                                   until it accepts writes.
#
# A cluster started again in the same DIR reuses its previous port when it is free, so a
# test can crash and restart the server under a live client.
#
# Everything but the URL goes to stderr. fsync is off (a throwaway cluster for tests); set
# EVTOOL_PG_DURABLE=1 to keep PostgreSQL's durable defaults (fsync, full_page_writes), as
# the benchmarks need. The cluster trusts local connections (it is a
# throwaway) except for one role, evtool_password_test, which must log in with the password
# "evtool-test-password" over TCP, so that tests can check how a wrong password is reported.
# Run as root, the cluster belongs to the `postgres` OS user (initdb refuses root) and a
# missing server is installed with apt-get.
set -euo pipefail

readonly DATABASE=evtool_test
readonly PASSWORD_ROLE=evtool_password_test
readonly PASSWORD=evtool-test-password

say() { printf 'postgres.sh: %s\n' "$*" >&2; }
fail() { say "error: $*"; exit 1; }

usage() {
    echo "usage: scripts/postgres.sh start DIR | stop DIR | crash DIR | standby PRIMARY_DIR DIR [sync] | promote DIR" >&2
    exit 64
}

# Finds the directory holding initdb/pg_ctl/postgres, preferring PostgreSQL 15.
find_bindir() {
    local candidate
    for candidate in /usr/lib/postgresql/15/bin /usr/lib/postgresql/*/bin; do
        if [[ -x "$candidate/initdb" && -x "$candidate/pg_ctl" ]]; then
            echo "$candidate"; return 0
        fi
    done
    if command -v pg_config >/dev/null 2>&1; then
        candidate=$(pg_config --bindir 2>/dev/null || true)
        if [[ -n "$candidate" && -x "$candidate/initdb" ]]; then echo "$candidate"; return 0; fi
    fi
    if command -v initdb >/dev/null 2>&1; then dirname "$(command -v initdb)"; return 0; fi
    return 1
}

ensure_server_installed() {
    if find_bindir >/dev/null; then return 0; fi
    if [[ $(id -u) -ne 0 ]]; then
        fail "the PostgreSQL server (initdb, pg_ctl) is not installed; install it (e.g. 'sudo apt-get install -y postgresql') or run this script as root"
    fi
    say "PostgreSQL server not found; installing it with apt-get"
    DEBIAN_FRONTEND=noninteractive apt-get update >&2 || fail "apt-get update failed"
    DEBIAN_FRONTEND=noninteractive apt-get install -y postgresql >&2 || fail "apt-get install postgresql failed"
    find_bindir >/dev/null || fail "PostgreSQL was installed but initdb cannot be found"
}

# Runs a command as the cluster's owner: `postgres` when we are root, else ourselves.
as_owner() {
    if [[ $(id -u) -eq 0 ]]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

# Picks a TCP port on 127.0.0.1 that nothing listens on.
free_port() {
    local port attempt
    for attempt in $(seq 1 50); do
        port=$(( 20000 + (RANDOM * 32768 + RANDOM) % 40000 ))
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
            echo "$port"; return 0
        fi
    done
    return 1
}

server_log_tail() {
    local dir=$1
    if [[ -f "$dir/server.log" ]]; then
        say "last lines of $dir/server.log:"
        tail -n 30 "$dir/server.log" >&2 || true
    fi
}

start() {
    local dir=$1
    ensure_server_installed
    local bin
    bin=$(find_bindir)
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    local data="$dir/data"
    if [[ $(id -u) -eq 0 ]]; then
        id postgres >/dev/null 2>&1 || fail "there is no 'postgres' OS user to own the cluster"
        chown postgres: "$dir"
    fi

    # Already running (the script was called twice without a stop): print its URL again.
    if [[ -f "$dir/url" ]] && as_owner "$bin/pg_ctl" status -D "$data" >/dev/null 2>&1; then
        say "server in $dir is already running"
        cat "$dir/url"
        return 0
    fi

    if [[ ! -f "$data/PG_VERSION" ]]; then
        say "initdb into $data"
        if ! as_owner "$bin/initdb" -D "$data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1; then
            # Older images may lack the C.UTF-8 locale; plain C works everywhere.
            rm -rf "$data"
            as_owner "$bin/initdb" -D "$data" -U postgres -A trust -E UTF8 --locale=C >"$dir/initdb.log" 2>&1 \
                || { tail -n 30 "$dir/initdb.log" >&2; fail "initdb failed"; }
        fi
        # First match wins in pg_hba.conf: the password role must use a password over TCP.
        as_owner bash -c "{ echo 'host all $PASSWORD_ROLE 127.0.0.1/32 scram-sha-256'; cat '$data/pg_hba.conf'; } > '$data/pg_hba.conf.new' && mv '$data/pg_hba.conf.new' '$data/pg_hba.conf'"
    fi

    local durability="-c fsync=off -c full_page_writes=off"
    if [[ "${EVTOOL_PG_DURABLE:-0}" == "1" ]]; then durability=""; fi
    start_server "$dir" "$bin" "$durability"
    local port=$PORT

    local psql=("$bin/psql" -X -q -v ON_ERROR_STOP=1 -h "$dir" -p "$port" -U postgres)
    if ! as_owner "${psql[@]}" -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = '$DATABASE'" | grep -q 1; then
        as_owner "${psql[@]}" -d postgres -c "CREATE DATABASE $DATABASE" >&2 \
            || { server_log_tail "$dir"; fail "could not create the database $DATABASE"; }
    fi
    as_owner "${psql[@]}" -d postgres -c "DO \$\$ BEGIN
        IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '$PASSWORD_ROLE') THEN
            CREATE ROLE $PASSWORD_ROLE LOGIN PASSWORD '$PASSWORD';
        END IF; END \$\$" >&2 || fail "could not create the role $PASSWORD_ROLE"

    local url="postgresql://postgres@127.0.0.1:$port/$DATABASE"
    echo "$url" >"$dir/url"
    echo "$url"
}

stop() {
    local dir=$1 mode=${2:-fast}
    if [[ ! -d "$dir/data" ]]; then
        say "no cluster in $dir; nothing to stop"
        return 0
    fi
    local bin
    bin=$(find_bindir) || fail "pg_ctl not found"
    if as_owner "$bin/pg_ctl" status -D "$dir/data" >/dev/null 2>&1; then
        as_owner "$bin/pg_ctl" stop -D "$dir/data" -m "$mode" -w -t 60 >&2 || { server_log_tail "$dir"; fail "the server in $dir did not stop"; }
    else
        say "the server in $dir is not running"
    fi
    rm -f "$dir/url"
}

# Starts (or restarts) the server whose data directory is DIR/data on a free port, or on the
# port it had before; prints nothing. Sets PORT.
start_server() {
    local dir=$1 bin=$2 durability=$3
    local port attempt
    for attempt in 1 2 3 4 5; do
        port=""
        if [[ $attempt -eq 1 && -f "$dir/port" ]]; then
            port=$(cat "$dir/port")
            if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then port=""; fi
        fi
        if [[ -z "$port" ]]; then port=$(free_port) || fail "no free TCP port found on 127.0.0.1"; fi
        say "starting the server on 127.0.0.1:$port and a socket in $dir"
        if as_owner "$bin/pg_ctl" start -D "$dir/data" -w -t 60 -l "$dir/server.log" \
            -o "-c listen_addresses=127.0.0.1 -p $port -c unix_socket_directories='$dir' $durability -c max_connections=200 -c password_encryption=scram-sha-256" >&2; then
            PORT=$port
            echo "$port" >"$dir/port"
            return 0
        fi
        if grep -q "could not bind\|Address already in use" "$dir/server.log" 2>/dev/null; then continue; fi
        break
    done
    server_log_tail "$dir"
    fail "the PostgreSQL server in $dir could not be started"
}

standby() {
    local primary=$1 dir=$2 mode=${3:-async}
    [[ "$mode" == "async" || "$mode" == "sync" ]] || usage
    local bin
    bin=$(find_bindir) || fail "pg_basebackup not found"
    primary=$(cd "$primary" && pwd)
    [[ -f "$primary/port" ]] && as_owner "$bin/pg_ctl" status -D "$primary/data" >/dev/null 2>&1 \
        || fail "no server is running in $primary"
    local primary_port
    primary_port=$(cat "$primary/port")
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    if [[ $(id -u) -eq 0 ]]; then chown postgres: "$dir"; fi
    if [[ -f "$dir/url" ]] && as_owner "$bin/pg_ctl" status -D "$dir/data" >/dev/null 2>&1; then
        say "standby in $dir is already running"
        cat "$dir/url"
        return 0
    fi
    local name
    name="standby_$(basename "$dir" | tr -c 'a-zA-Z0-9_\n' '_' | tr 'A-Z' 'a-z')"
    if [[ ! -f "$dir/data/PG_VERSION" ]]; then
        say "pg_basebackup from 127.0.0.1:$primary_port into $dir/data"
        as_owner "$bin/pg_basebackup" -h 127.0.0.1 -p "$primary_port" -U postgres -D "$dir/data" \
            -R -X stream -c fast -d "application_name=$name" >"$dir/basebackup.log" 2>&1 \
            || { tail -n 30 "$dir/basebackup.log" >&2; fail "pg_basebackup failed"; }
        # The copy keeps the primary's port file and settings; the standby takes its own port.
        rm -f "$dir/data/postmaster.pid"
    fi
    local durability="-c fsync=off -c full_page_writes=off"
    if [[ "${EVTOOL_PG_DURABLE:-0}" == "1" ]]; then durability=""; fi
    start_server "$dir" "$bin" "-c hot_standby=on -c hot_standby_feedback=on $durability"
    local port=$PORT
    if [[ "$mode" == "sync" ]]; then
        local psql=("$bin/psql" -X -q -v ON_ERROR_STOP=1 -h "$primary" -p "$primary_port" -U postgres -d postgres)
        as_owner "${psql[@]}" -c "ALTER SYSTEM SET synchronous_standby_names = '$name'" >&2
        as_owner "${psql[@]}" -c "ALTER SYSTEM SET synchronous_commit = 'remote_apply'" >&2
        as_owner "${psql[@]}" -c "SELECT pg_reload_conf()" >&2
        # Wait until the primary counts the standby as synchronous.
        local attempt
        for attempt in $(seq 1 100); do
            if as_owner "${psql[@]}" -tAc "SELECT 1 FROM pg_stat_replication WHERE application_name = '$name' AND sync_state = 'sync'" | grep -q 1; then
                break
            fi
            sleep 0.1
        done
        as_owner "${psql[@]}" -tAc "SELECT 1 FROM pg_stat_replication WHERE application_name = '$name' AND sync_state = 'sync'" | grep -q 1 \
            || fail "the standby in $dir did not become synchronous"
    fi
    # Wait until the standby accepts connections and replays.
    local attempt
    for attempt in $(seq 1 100); do
        if as_owner "$bin/psql" -X -h "$dir" -p "$port" -U postgres -d postgres -tAc "SELECT pg_is_in_recovery()" 2>/dev/null | grep -q t; then
            break
        fi
        sleep 0.1
    done
    local url="postgresql://postgres@127.0.0.1:$port/$DATABASE"
    echo "$url" >"$dir/url"
    echo "$url"
}

promote() {
    local dir=$1
    local bin
    bin=$(find_bindir) || fail "pg_ctl not found"
    as_owner "$bin/pg_ctl" promote -D "$dir/data" -w -t 60 >&2 || { server_log_tail "$dir"; fail "the standby in $dir could not be promoted"; }
}

case "${1:-}" in
    start) [[ $# -eq 2 ]] || usage; start "$2" ;;
    stop) [[ $# -eq 2 ]] || usage; stop "$2" ;;
    crash) [[ $# -eq 2 ]] || usage; stop "$2" immediate ;;
    standby) [[ $# -eq 3 || $# -eq 4 ]] || usage; standby "$2" "$3" "${4:-async}" ;;
    promote) [[ $# -eq 2 ]] || usage; promote "$2" ;;
    *) usage ;;
esac
