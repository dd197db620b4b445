#!/bin/sh
# bench/profile.sh: where a server's time goes, in microseconds a move, under
# one of bench-ratios' move loads (docs/perf.md "eighth session").
#
#   sh bench/profile.sh [qk|base|pgqk|pgbase] [games]      (make bench-profile)
#
# Runs `bench-ratios` with BENCH_ONLY=<server><games> (one round), waits
# until the server is busy, attaches `perf record -F 2000 -g` to it for
# BENCH_PROFILE_SECONDS (default 8) and prints, per move: the samples of
# each thread, and per thread of each shared object and of the kernel's
# parts that matter here (socket sends and reads, the log's writes and flushes,
# scheduling). For pgqk and pgbase the PostgreSQL backend of the server's
# database is profiled too. A move's time = samples / 2000 / the moves of
# the window (the round's rate times the window), so the figures of two
# servers measured one after the other compare: that is what they are for.
# Why perf and not callgrind (make bench-count): the count's load commits
# every move alone and cannot show the kernel's share, which at 50 games
# in flight is more than half of the loop's time.
#
# Needs perf (Debian: linux-perf; not in make deps, as no test uses it) and
# the rights to attach to the bench's children (root, or
# kernel.perf_event_paranoid <= 1). Environment: QK_BIN (default build),
# BENCH_PROFILE_SECONDS, BENCH_PG_URL (pg*: a cluster to use, else the
# bench starts its own). Exit status 0, 1 when the load or perf failed, 2
# when perf is missing.
set -eu

server=${1:-qk}
games=${2:-50}
secs=${BENCH_PROFILE_SECONDS:-8}
bin=${QK_BIN:-build}
case $server in qk | base | pgqk | pgbase) ;; *)
    echo "usage: sh bench/profile.sh [qk|base|pgqk|pgbase] [games]" >&2
    exit 1
    ;;
esac
command -v perf >/dev/null 2>&1 || {
    echo "bench/profile.sh: needs perf (Debian package linux-perf)" >&2
    exit 2
}
tmp=$(mktemp -d /tmp/qk-profile.XXXXXX)
bench=
cleanup() {
    [ -n "$bench" ] && kill "$bench" 2>/dev/null || true
    rm -rf "$tmp"
}
trap cleanup EXIT
# A signal ends the script (the EXIT trap then cleans up) instead of
# returning into it with its files gone.
trap 'exit 130' INT
trap 'exit 143' TERM HUP

# The round lasts the window and as long again on each side of it.
BENCH_ONLY=$server$games BENCH_ROUNDS=1 BENCH_SECONDS=$((secs * 3)) QK_BIN=$bin \
    "$bin/bench-ratios" >"$tmp/out" 2>&1 &
bench=$!

# CPU ticks (user + system) of a process, 0 when it is gone.
ticks() {
    awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0
}

# The processes that serve the load: qirkatd, or the baseline (the bench's
# own child), and for PostgreSQL the backends of the bench's databases.
candidates() {
    case $server in
    qk | pgqk) pgrep -x qirkatd || true ;;
    base | pgbase) pgrep -P "$bench" -x bench-ratios || true ;;
    esac
    case $server in pg*) pgrep -f '^postgres: .* qkb_' || true ;; esac
}

# Wait (at most 120 s: set-up, and the bench's own cluster) until one of
# them uses more than a third of a core; then take every candidate that
# ran at all in that half second (a node on PostgreSQL is less busy than
# its backend).
hz=$(getconf CLK_TCK)
pids=
for _ in $(seq 1 240); do
    kill -0 "$bench" 2>/dev/null || break
    before=
    for p in $(candidates); do before="$before $p:$(ticks "$p")"; done
    sleep 0.5
    busy=false
    ran=
    for pt in $before; do
        p=${pt%%:*}
        d=$(($(ticks "$p") - ${pt#*:}))
        [ "$d" -gt $((hz / 6)) ] && busy=true
        [ "$d" -gt 1 ] && ran="$ran,$p"
    done
    if $busy; then
        pids=$ran
        break
    fi
done
pids=${pids#,}
if [ -z "$pids" ]; then
    echo "bench/profile.sh: the load never made a server busy; bench-ratios said:" >&2
    cat "$tmp/out" >&2
    exit 1
fi
perf record -q -F 2000 -g -p "$pids" -o "$tmp/perf.data" -- sleep "$secs" >/dev/null 2>&1 || {
    echo "bench/profile.sh: perf record failed (perf_event_paranoid?)" >&2
    exit 1
}
wait "$bench" || true
bench=
rate=$(sed -n 's/.* games: \([0-9]*\) moves\/s.*/\1/p' "$tmp/out" | head -1)
if [ -z "$rate" ]; then
    echo "bench/profile.sh: no rate in bench-ratios' output:" >&2
    cat "$tmp/out" >&2
    exit 1
fi
grep 'moves/s' "$tmp/out"
moves=$((rate * secs))
echo "window: ${secs} s, about $moves moves; processes $pids; us a move:"

perf script -i "$tmp/perf.data" -F comm,tid 2>/dev/null |
    awk -v m="$moves" '{ n[$1 " thread " $2]++ } END {
        for (k in n) printf "  %-40s %7.2f\n", k, n[k] / 2000 / m * 1e6 }' | sort -k4 -rn
total=$(perf script -i "$tmp/perf.data" -F tid 2>/dev/null | wc -l)
echo "by thread (tid:name) and shared object:"
perf report -i "$tmp/perf.data" --no-children --sort pid,dso -g none 2>/dev/null |
    awk -v t="$total" -v m="$moves" '/^ *[0-9.]+%/ { p = $1; sub("%", "", p);
        if (p >= 0.5) printf "  %-40s %7.2f\n", $2 " " $3, p / 100 * t / 2000 / m * 1e6 }'
echo "kernel parts by thread (inclusive):"
perf report -i "$tmp/perf.data" --children --sort pid,sym -g none 2>/dev/null |
    awk -v t="$total" -v m="$moves" '/^ *[0-9.]+%/ {
        p = $1; sub("%", "", p); s = $NF
        if (s ~ /^(tcp_sendmsg|sock_read_iter|__x64_sys_pwrite64|__x64_sys_fdatasync|__x64_sys_futex|__x64_sys_epoll_wait|__x64_sys_epoll_ctl|schedule|asm_common_interrupt|do_syscall_64)$/)
            printf "  %-40s %7.2f\n", $3 " " s, p / 100 * t / 2000 / m * 1e6 }'
