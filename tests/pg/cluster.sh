#!/bin/sh
# cluster: a throwaway PostgreSQL cluster for the tests (make test-pg).
#
#   tests/pg/cluster.sh start DIR   initdb into DIR/data, start it on a free
#                                   loopback port, create the database
#                                   "qirkat"; print its libpq URL on stdout
#   tests/pg/cluster.sh stop DIR    stop that server and remove DIR
#   tests/pg/cluster.sh restart DIR restart that server (fast: sessions are
#                                   cut, as an operator's restart does), on
#                                   the same port, and wait until it
#                                   accepts connections again
#   tests/pg/cluster.sh standby PRIMARY DIR
#                                   a streaming standby of the cluster in
#                                   PRIMARY (pg_basebackup -R) into DIR/data,
#                                   started on a free loopback port, made
#                                   the primary's synchronous standby (a
#                                   commit returns once it is flushed on
#                                   both); print its libpq URL
#   tests/pg/cluster.sh crash DIR   stop that server at once, as a crash
#                                   does (pg_ctl stop -m immediate)
#   tests/pg/cluster.sh promote DIR make that standby the primary and wait
#                                   until it accepts writes
#   tests/pg/cluster.sh bindir      print the directory of initdb and pg_ctl
#                                   (exit 1 when PostgreSQL is not installed)
#
# DIR must exist or be creatable, and be reachable by the `postgres` user
# when run as root (a `mktemp -d` under /tmp is): PostgreSQL refuses to run
# as root, so initdb and pg_ctl then run as `postgres` (runuser) and DIR is
# chowned to it. The cluster trusts every local connection (tests only)
# as the superuser "postgres": postgresql://postgres@127.0.0.1:PORT/qirkat.
# Its unix socket is in DIR, never in /run/postgresql, so it cannot meet
# the machine's own cluster. fsync and synchronous_commit are on, as in
# production: the durability tests must measure real commits.
# Text is UTF8 with locale C: byte order and ASCII-only lower(), what
# SQLite's BINARY and NOCASE do (schema-pg.sql, "Text").
# Debian: postgresql (initdb, pg_ctl, createdb); pg_config is libpq-dev's.
set -eu

MARK=.qk-pg-cluster # written first by start: stop removes only such a DIR

die() {
    echo "cluster.sh: $*" >&2
    exit 1
}

# pg_config names the bindir of the server it was built with; a libpq-dev
# of another major version than the installed server names one without
# initdb, hence the fallback to the newest /usr/lib/postgresql/*/bin.
bindir() {
    if command -v pg_config >/dev/null 2>&1; then
        d=$(pg_config --bindir 2>/dev/null || true)
        if [ -n "$d" ] && [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ]; then
            echo "$d"
            return 0
        fi
    fi
    for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
        if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ]; then
            echo "$d"
            return 0
        fi
    done
    return 1
}

# Run a server program as the cluster's owner. From / because the
# postgres user may not be allowed into the caller's directory, and
# initdb and pg_ctl fail when they cannot read their working directory.
as_owner() {
    if [ "$(id -u)" -eq 0 ]; then
        (cd / && runuser -u postgres -- "$@")
    else
        (cd / && "$@")
    fi
}

# A port from 20000-59999; start() retries when it was taken.
random_port() {
    n=$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')
    echo $((20000 + n % 40000))
}

# Start the server of DIR/data on a free loopback port (retried when the
# port was taken); the port into $port.
serve() {
    dir=$1
    tries=0
    while :; do
        port=$(random_port)
        rm -f "$dir/server.log"
        if as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
            -o "-k $dir -p $port -c listen_addresses=127.0.0.1 -c fsync=on -c synchronous_commit=on" \
            start >"$dir/pg_ctl.log" 2>&1; then
            return 0
        fi
        tries=$((tries + 1))
        if [ "$tries" -lt 20 ] && grep -q 'Address already in use' "$dir/server.log" 2>/dev/null; then
            continue
        fi
        cat "$dir/pg_ctl.log" "$dir/server.log" >&2 2>/dev/null || true
        die "pg_ctl start failed"
    done
}

start() {
    dir=$1
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    case "$dir" in *[[:space:]]*) die "DIR must not contain white space: $dir" ;; esac
    [ ! -e "$dir/data" ] || die "$dir/data exists: a cluster is already there"
    bin=$(bindir) || die "PostgreSQL not found (pg_config --bindir, /usr/lib/postgresql/*/bin): make deps"
    : >"$dir/$MARK"
    if [ "$(id -u)" -eq 0 ]; then
        id postgres >/dev/null 2>&1 || die "no user 'postgres' (Debian's postgresql package makes it)"
        chown postgres: "$dir"
        chmod 700 "$dir"
        runuser -u postgres -- test -w "$dir" ||
            die "$dir: not writable by postgres (is a parent directory closed to it?)"
    fi
    # --no-sync: only initdb's own final fsync of the new files is skipped
    # (the cluster is thrown away); the server runs with fsync=on.
    if ! as_owner "$bin/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --locale=C \
        --no-sync >"$dir/initdb.log" 2>&1; then
        cat "$dir/initdb.log" >&2
        die "initdb failed"
    fi
    serve "$dir"
    if ! "$bin/createdb" -h 127.0.0.1 -p "$port" -U postgres qirkat >"$dir/createdb.log" 2>&1; then
        cat "$dir/createdb.log" >&2
        as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
        die "createdb failed"
    fi
    url="postgresql://postgres@127.0.0.1:$port/qirkat"
    echo "$url" >"$dir/url"
    echo "$url"
}

stop() {
    dir=$1
    [ -d "$dir" ] || return 0
    if [ ! -e "$dir/$MARK" ]; then
        # Made by the caller (mktemp) but start never got to it: only an
        # empty directory goes, never one this script did not fill.
        rmdir "$dir" 2>/dev/null || die "$dir holds no cluster of this script: not removed"
        return 0
    fi
    if [ -f "$dir/data/postmaster.pid" ]; then
        bin=$(bindir) || die "PostgreSQL not found: cannot stop the server in $dir"
        # fast: running sessions are cut, which is what a test run's end
        # wants; immediate when fast does not end it in time.
        as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w -t 30 stop >/dev/null 2>&1 ||
            as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate -w -t 30 stop >/dev/null 2>&1 ||
            echo "cluster.sh: the server in $dir did not stop" >&2
    fi
    rm -rf "$dir"
}

restart() {
    dir=$1
    [ -e "$dir/$MARK" ] || die "$dir holds no cluster of this script"
    bin=$(bindir) || die "PostgreSQL not found: cannot restart the server in $dir"
    # pg_ctl restart starts it again with the options of the last start
    # (postmaster.opts): the same port and socket directory.
    if ! as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -m fast -w -t 60 \
        restart >"$dir/pg_ctl.log" 2>&1; then
        cat "$dir/pg_ctl.log" >&2
        die "pg_ctl restart failed"
    fi
}

standby() {
    primary=$1
    dir=$2
    [ -e "$primary/$MARK" ] || die "$primary holds no cluster of this script"
    purl=$(cat "$primary/url")
    pport=${purl##*:}
    pport=${pport%%/*}
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    [ ! -e "$dir/data" ] || die "$dir/data exists: a cluster is already there"
    bin=$(bindir) || die "PostgreSQL not found: make deps"
    : >"$dir/$MARK"
    if [ "$(id -u)" -eq 0 ]; then
        chown postgres: "$dir"
        chmod 700 "$dir"
    fi
    # -R writes primary_conninfo and standby.signal: it streams from the
    # primary as soon as it starts; -c fast: the backup's checkpoint at once
    # (a spread one waits minutes). initdb's trust rules let local
    # replication connections in.
    if ! as_owner "$bin/pg_basebackup" -h 127.0.0.1 -p "$pport" -U postgres -D "$dir/data" -R \
        -X stream -c fast --no-sync >"$dir/basebackup.log" 2>&1; then
        cat "$dir/basebackup.log" >&2
        die "pg_basebackup failed"
    fi
    serve "$dir"
    # Synchronous: the primary's COMMIT waits until the standby has
    # flushed it, so a failover loses no commit a client was told of.
    "$bin/psql" -qAt -h 127.0.0.1 -p "$pport" -U postgres -d qirkat \
        -c "ALTER SYSTEM SET synchronous_standby_names = '*'" -c "SELECT pg_reload_conf()" \
        >/dev/null || die "cannot make the standby synchronous"
    n=0
    until [ "$("$bin/psql" -qAt -h 127.0.0.1 -p "$pport" -U postgres -d qirkat \
        -c "SELECT count(*) FROM pg_stat_replication WHERE sync_state = 'sync' AND state = 'streaming'")" = 1 ]; do
        n=$((n + 1))
        [ "$n" -lt 300 ] || die "the standby in $dir never streamed synchronously"
        sleep 0.1
    done
    url="postgresql://postgres@127.0.0.1:$port/qirkat"
    echo "$url" >"$dir/url"
    echo "$url"
}

crash() {
    dir=$1
    [ -e "$dir/$MARK" ] || die "$dir holds no cluster of this script"
    bin=$(bindir) || die "PostgreSQL not found"
    as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate -w -t 30 stop >/dev/null 2>&1 ||
        die "pg_ctl stop -m immediate failed in $dir"
}

promote() {
    dir=$1
    [ -e "$dir/$MARK" ] || die "$dir holds no cluster of this script"
    bin=$(bindir) || die "PostgreSQL not found"
    # -w: returns once the promotion is done and it accepts writes.
    if ! as_owner "$bin/pg_ctl" -D "$dir/data" -w -t 60 promote >"$dir/pg_ctl.log" 2>&1; then
        cat "$dir/pg_ctl.log" >&2
        die "pg_ctl promote failed"
    fi
}

usage="usage: cluster.sh start DIR | stop DIR | restart DIR | standby PRIMARY DIR | crash DIR | promote DIR | bindir"
[ $# -ge 1 ] || die "$usage"
case "$1" in
start)
    [ $# -eq 2 ] || die "usage: cluster.sh start DIR"
    start "$2"
    ;;
stop)
    [ $# -eq 2 ] || die "usage: cluster.sh stop DIR"
    stop "$2"
    ;;
restart)
    [ $# -eq 2 ] || die "usage: cluster.sh restart DIR"
    restart "$2"
    ;;
standby)
    [ $# -eq 3 ] || die "usage: cluster.sh standby PRIMARY DIR"
    standby "$2" "$3"
    ;;
crash)
    [ $# -eq 2 ] || die "usage: cluster.sh crash DIR"
    crash "$2"
    ;;
promote)
    [ $# -eq 2 ] || die "usage: cluster.sh promote DIR"
    promote "$2"
    ;;
bindir)
    bindir || exit 1
    ;;
*) die "$usage" ;;
esac
