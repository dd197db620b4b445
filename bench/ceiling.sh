#!/bin/sh
# bench/ceiling.sh: how near the minimal servers qirkatd could come if
# storing a move cost nothing (docs/perf.md "ninth session"; make
# bench-ceiling).
#
#   sh bench/ceiling.sh [runs]
#
# Builds an experiment copy of the committed tree (git archive HEAD, with the
# working tree's bench/ceiling.patch applied, in a temporary directory) and
# runs bench-ratios' move loads against three servers, one after the other,
# `runs` times (default 2):
#   stock    $QK_BIN/qirkatd, as shipped;
#   moves    the copy with QK_CEILING=moves: store_move_played() and
#            store_game_claim() return at once, so a move that does not
#            end its game writes no row and reads none (the game's stored
#            ply is left behind: the copy is only good for this one-node
#            load). A game's last move, start and end are stored as usual;
#   nosync   the same, and the SQLite writer thread skips its fdatasync
#            (SQLite still syncs around its checkpoints).
# The baseline is the same minimal server for all three. Everything else a
# move costs (the line, the request, the rules' check, the game's state,
# the answer and the opponent's event, the games' lifecycle and its writes)
# is still there, so the `nosync` ratio bounds what any change to how or
# where qirkatd stores a move (another thread, another schema, another
# commit) could reach on this load and this machine. With PostgreSQL
# (tests/pg/cluster.sh finds it, or BENCH_PG_URL names a cluster), `stock`
# and `moves` also run the PostgreSQL load (BENCH_ONLY=pgratio).
#
# Both arms should be the same tree but for the patch, so uncommitted
# changes to the sources are refused (the stock build would hold them and
# the copy would not). Never use the copy for anything else: it
# acknowledges moves it has not stored. Run from anywhere inside the
# repository. Environment: QK_BIN (the stock build with its bench-ratios,
# default build; make bench-ceiling builds it), BENCH_PG_URL. Prints each
# arm's ratio lines. Exit status 0; 1 on a bad argument, a missing build,
# uncommitted sources, a patch that no longer applies (bring
# bench/ceiling.patch up to date with the five functions it edits), a copy
# that does not build, or any bench-ratios run that failed.
set -eu

runs=${1:-2}
case $runs in '' | *[!0-9]*)
    echo "usage: sh bench/ceiling.sh [runs]" >&2
    exit 1
    ;;
esac
root=$(git rev-parse --show-toplevel 2>/dev/null) || {
    echo "bench/ceiling.sh: not inside the qirkat repository" >&2
    exit 1
}
bin=${QK_BIN:-build}
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
cd "$root"
[ -x "$bin/qirkatd" ] && [ -x "$bin/bench-ratios" ] || {
    echo "bench/ceiling.sh: no $bin/qirkatd or $bin/bench-ratios (make all $bin/bench-ratios)" >&2
    exit 1
}
if [ -n "$(git status --porcelain -- common server)" ]; then
    echo "bench/ceiling.sh: common/ or server/ has uncommitted changes; commit them first" >&2
    exit 1
fi
tmp=$(mktemp -d /tmp/qk-ceiling.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

git archive -o "$tmp/src.tar" HEAD
tar -x -C "$tmp" -f "$tmp/src.tar"
if ! (cd "$tmp" && git apply "$root/bench/ceiling.patch"); then
    echo "bench/ceiling.sh: bench/ceiling.patch does not apply to HEAD" >&2
    exit 1
fi
jobs=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
echo "== building the experiment copy in $tmp/build"
if ! make -C "$tmp" -j"$jobs" BUILD=build build/qirkatd >"$tmp/make.log" 2>&1; then
    tail -20 "$tmp/make.log" >&2
    exit 1
fi

failed=0
# arm NAME ONLY [QK_CEILING]: one bench-ratios run, its ratio lines.
arm() {
    rc=0
    if [ -n "${3:-}" ]; then
        QK_CEILING=$3 QK_BIN=$tmp/build BENCH_ONLY=$2 "$bin/bench-ratios" >"$tmp/out" 2>&1 || rc=$?
    else
        (
            unset QK_CEILING
            export QK_BIN="$bin" BENCH_ONLY="$2"
            exec "$bin/bench-ratios"
        ) >"$tmp/out" 2>&1 || rc=$?
    fi
    grep '^ratio ' "$tmp/out" | sed "s/^/$1 /" || true
    if [ "$rc" -ne 0 ]; then
        echo "$1: bench-ratios exited $rc; its last lines:"
        tail -5 "$tmp/out"
        failed=1
    fi
}

i=1
while [ "$i" -le "$runs" ]; do
    echo "== run $i of $runs, SQLite (BENCH_ONLY=moves)"
    arm stock moves
    arm moves moves moves
    arm nosync moves nosync
    i=$((i + 1))
done
if [ -n "${BENCH_PG_URL:-}" ] || sh tests/pg/cluster.sh bindir >/dev/null 2>&1; then
    i=1
    while [ "$i" -le "$runs" ]; do
        echo "== run $i of $runs, PostgreSQL (BENCH_ONLY=pgratio)"
        arm stock pgratio
        arm moves pgratio moves
        i=$((i + 1))
    done
fi
exit "$failed"
