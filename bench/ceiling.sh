#!/bin/sh
# bench/ceiling.sh: how near the minimal servers qirkatd could come if its
# storage cost nothing (docs/perf.md "ninth session"; make bench-ceiling).
#
#   sh bench/ceiling.sh [runs]
#
# Builds an experiment copy of the committed tree (git archive HEAD, with
# bench/ceiling.patch applied, in a temporary directory) and runs
# bench-ratios' move loads against three servers, one after the other,
# `runs` times (default 2):
#   stock    $QK_BIN/qirkatd, as shipped;
#   moves    the copy with QK_CEILING=moves: store_move_played() and
#            store_game_claim() return at once, so a move writes no row
#            and reads none (the game's stored ply is left behind: the
#            experiment is only good for this one-node load);
#   nosync   the same, and the SQLite writer thread skips its fdatasync:
#            nothing a move does reaches the disk.
# The baseline is the same minimal server for all three. Everything a move
# costs beyond storage (the line, the request, the rules' check, the game's
# state, the answer and the opponent's event, the loop) is still there, so
# the `nosync` ratio bounds what any change to how or where qirkatd stores a
# move (another thread, another schema, another commit) could reach on this
# load and this machine. With PostgreSQL installed, `stock` and `moves`
# also run the PostgreSQL load (BENCH_ONLY=pgratio, its own cluster).
#
# Never use the copy for anything else: it acknowledges moves it has not
# stored. Environment: QK_BIN (the stock build, default build; make
# bench-ceiling builds it). Prints each arm's ratio lines; exit status 0,
# 1 when the copy does not build or the patch no longer applies (then
# bring bench/ceiling.patch up to date with the four functions it edits).
set -eu

runs=${1:-2}
bin=${QK_BIN:-build}
case $runs in '' | *[!0-9]*)
    echo "usage: sh bench/ceiling.sh [runs]" >&2
    exit 1
    ;;
esac
[ -x "$bin/qirkatd" ] && [ -x "$bin/bench-ratios" ] || {
    echo "bench/ceiling.sh: no $bin/qirkatd or $bin/bench-ratios (make all $bin/bench-ratios)" >&2
    exit 1
}
tmp=$(mktemp -d /tmp/qk-ceiling.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM

git archive HEAD | tar -x -C "$tmp"
if ! (cd "$tmp" && git apply bench/ceiling.patch); then
    echo "bench/ceiling.sh: bench/ceiling.patch does not apply to HEAD" >&2
    exit 1
fi
echo "== building the experiment copy in $tmp/build"
if ! make -C "$tmp" -j"$(nproc)" BUILD=build build/qirkatd >"$tmp/make.log" 2>&1; then
    tail -20 "$tmp/make.log" >&2
    exit 1
fi

# arm NAME ONLY [QK_CEILING]: one bench-ratios run, its ratio lines.
arm() {
    if [ -n "${3:-}" ]; then
        QK_CEILING=$3 QK_BIN=$tmp/build BENCH_ONLY=$2 "$bin/bench-ratios" >"$tmp/out" 2>&1 || true
    else
        env -u QK_CEILING QK_BIN="$bin" BENCH_ONLY=$2 "$bin/bench-ratios" >"$tmp/out" 2>&1 || true
    fi
    if grep -q '^ratio ' "$tmp/out"; then
        grep '^ratio ' "$tmp/out" | sed "s/^/$1 /"
    else
        echo "$1: no ratio; the run ended with:"
        tail -5 "$tmp/out"
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
if command -v pg_ctl >/dev/null 2>&1 || ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1; then
    i=1
    while [ "$i" -le "$runs" ]; do
        echo "== run $i of $runs, PostgreSQL (BENCH_ONLY=pgratio)"
        arm stock pgratio
        arm moves pgratio moves
        i=$((i + 1))
    done
fi
