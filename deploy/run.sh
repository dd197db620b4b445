#!/usr/bin/env bash
# Start qirkatd for `make run`: BUILD_DIR LISTEN DB [HTTP]. HTTP (default
# 127.0.0.1:7421) serves the web page at / and the protocol at /ws (qirkatd
# --http); an empty HTTP starts the TCP port alone. With it come the
# computer opponents computer-1, computer-2, computer-3: three `qirkat bot`
# processes at levels 1, 2, 3 (README.md, "Computer opponents and bots").
# Their accounts are registered on first run with generated passwords kept
# (mode 0600) next to their sessions in DIR_OF_DB/.qirkat-bots/computer-N/.
# QIRKAT_BOTS=0 starts the server alone.
#
# Ctrl-C (SIGINT) or SIGTERM stops the server cleanly and the bots with it;
# when the server exits for any reason the bots are stopped too (trap).
set -euo pipefail
build=${1:-build}
listen=${2:-127.0.0.1:7420}
db=${3:-./qirkat.db}
http=${4-127.0.0.1:7421}
bots=${QIRKAT_BOTS:-1}

# A PostgreSQL URL (docs/scale.md) has no directory: the bots' sessions
# then live beside the working directory.
case "$db" in
postgresql://* | postgres://*) dbdir=$(pwd) ;;
*) dbdir=$(cd "$(dirname "$db")" && pwd) ;;
esac
botroot="$dbdir/.qirkat-bots"
tmp=$(mktemp -d)
srv=
botpids=()

cleanup() {
    trap - EXIT INT TERM
    for p in "${botpids[@]}"; do kill "$p" 2>/dev/null || true; done
    if [ -n "$srv" ] && kill -0 "$srv" 2>/dev/null; then kill -TERM "$srv" 2>/dev/null || true; fi
    wait 2>/dev/null || true
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The server reports its port (then the HTTP port) on a FIFO once it
# listens: no sleeps.
mkfifo "$tmp/ready"
httpargs=()
[ -n "$http" ] && httpargs=(--http "$http")
"$build/qirkatd" --listen "$listen" --db "$db" "${httpargs[@]}" --ready-fd 3 3>"$tmp/ready" &
srv=$!
port=
hport=
{ read -r port; read -r hport; } <"$tmp/ready" || true
if [ -z "$port" ]; then
    wait "$srv" || exit $?
    exit 1
fi
addr="${listen%:*}:$port"
echo "qirkatd listening on $addr, database $db (Ctrl-C stops it)"
[ -n "$hport" ] && echo "web page: http://${http%:*}:$hport/ (WebSocket at /ws)"

# Make sure computer-N has a working session in its directory: the stored
# token, else a login with the stored password, else a new bot account.
setup_bot() {
    local name=$1 dir=$2
    local q=("$build/qirkat" --server "$addr")
    mkdir -p "$dir"
    chmod 700 "$dir"
    if [ ! -s "$dir/password" ]; then
        (umask 077 && head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$dir/password")
        echo >>"$dir/password"
    fi
    export XDG_CONFIG_HOME="$dir" HOME="$dir"
    if [ -f "$dir/qirkat/session.json" ] && "${q[@]}" challenges >/dev/null 2>&1; then
        return 0
    fi
    "${q[@]}" login "$name" --password-stdin <"$dir/password" >/dev/null 2>&1 ||
        "${q[@]}" register "$name" --bot --password-stdin <"$dir/password" >/dev/null
}

if [ "$bots" != 0 ]; then
    for level in 1 2 3; do
        name="computer-$level"
        dir="$botroot/$name"
        if ! (setup_bot "$name" "$dir"); then
            echo "warning: $name could not log in or register; it will not play" >&2
            continue
        fi
        XDG_CONFIG_HOME="$dir" HOME="$dir" "$build/qirkat" --server "$addr" bot \
            --level "$level" --move-ms 1000 >>"$dir/bot.log" 2>&1 &
        botpids+=($!)
    done
    echo "computer opponents: computer-1, computer-2, computer-3 (logs in $botroot/)"
fi

status=0
wait "$srv" || status=$?
exit "$status"
