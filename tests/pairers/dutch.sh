#!/bin/sh
# A stand-in for bbpPairings (`PROGRAM --dutch IN -p OUT`) in the server's
# tests: it reads the TRF-16 file the server writes (server/game/pairing.h,
# "TRF-16 and the optional external pairer") and writes a pairing in
# bbpPairings' output format: the number of pairs, then one "WHITE BLACK"
# line per board and "N 0" for a bye. Not a Dutch pairer: players are
# ranked by points, then pairing number, and paired top down with the
# first player not met before (forfeits count as met) and not forbidden
# (XXP lines), backtracking when that leaves someone unpaired; an odd
# field gives the bye to the lowest-ranked player without a bye (U) or a
# forfeit win (+). Colours: fewer Whites gets White, then whoever was
# Black last, then the higher rank.
#
# QK_STANDIN_MODE (from the environment the server passes on):
#   rematch  pair the top-ranked player with an opponent met before
#            (the server must refuse the pairing)
# QK_STANDIN_GATE: wait until that file exists before answering (a test
#   holds the pairing back while it checks that the server answers others).
# Exit status as bbpPairings: 0 ok, 1 no valid pairing, 3 bad arguments.
[ "$1" = --dutch ] && [ -r "$2" ] && [ "$3" = -p ] && [ -n "$4" ] || exit 3
if [ -n "${QK_STANDIN_GATE:-}" ]; then
    while [ ! -e "$QK_STANDIN_GATE" ]; do
        sleep 0.05 2>/dev/null || sleep 1
    done
fi
exec awk -v mode="${QK_STANDIN_MODE:-}" -v out="$4" '
/^001/ {
    n++
    num[n] = substr($0, 5, 4) + 0
    pts[n] = substr($0, 81, 4) + 0
    len = length($0)
    k = len >= 99 ? int((len - 89) / 10) : 0
    cnt[n] = k
    for (r = 1; r <= k; r++) {
        c = 92 + 10 * (r - 1)
        opp[n, r] = substr($0, c, 4) + 0
        col[n, r] = substr($0, c + 5, 1)
        res[n, r] = substr($0, c + 7, 1)
    }
    next
}
/^XXP / { forb[$2 " " $3] = 1; forb[$3 " " $2] = 1 }
function met(i, j,   r) {
    for (r = 1; r <= rounds; r++)
        if (opp[i, r] == num[j])
            return 1
    return 0
}
function ok(i, j) {
    if (mode == "rematch")
        return 1
    return !met(i, j) && !((num[i] " " num[j]) in forb)
}
# Pair the active players from position p of the ranking (rk[1..na]).
function solve(p,   i, q, j) {
    while (p <= na && used[rk[p]])
        p++
    if (p > na)
        return 1
    i = rk[p]
    used[i] = 1
    for (q = p + 1; q <= na; q++) {
        j = rk[q]
        if (used[j] || !ok(i, j))
            continue
        used[j] = 1
        mate[i] = j
        mate[j] = i
        if (solve(p + 1))
            return 1
        used[j] = 0
    }
    used[i] = 0
    return 0
}
function whites(i,   r, w) {
    w = 0
    for (r = 1; r <= rounds; r++)
        w += col[i, r] == "w"
    return w
}
function last(i,   r) {
    for (r = rounds; r >= 1; r--)
        if (col[i, r] == "w" || col[i, r] == "b")
            return col[i, r]
    return ""
}
END {
    # The round to pair follows the fewest entries; a withdrawn player
    # has one more ("0000 - Z" for that round).
    rounds = -1
    for (i = 1; i <= n; i++)
        if (rounds < 0 || cnt[i] < rounds)
            rounds = cnt[i]
    na = 0
    for (i = 1; i <= n; i++)
        if (cnt[i] == rounds)
            rk[++na] = i
    for (a = 2; a <= na; a++)           # insertion sort: points desc, number asc
        for (b = a; b > 1; b--) {
            x = rk[b - 1]; y = rk[b]
            if (pts[x] > pts[y] || (pts[x] == pts[y] && num[x] < num[y]))
                break
            rk[b - 1] = y; rk[b] = x
        }
    if (mode == "rematch" && rounds > 0) {
        # the top player and their first opponent again, the rest in order
        i = rk[1]
        for (q = 2; q <= na; q++)
            if (met(i, rk[q]))
                break
        if (q <= na) {
            j = rk[q]
            for (k = q; k > 2; k--)
                rk[k] = rk[k - 1]
            rk[2] = j
        }
    }
    bye = 0
    if (na % 2) {
        for (q = na; q >= 1 && !bye; q--) {
            i = rk[q]
            had = 0
            for (r = 1; r <= rounds; r++)
                if (res[i, r] == "U" || res[i, r] == "+")
                    had = 1
            if (had)
                continue
            used[i] = 1
            if (solve(1))
                bye = i
            else
                used[i] = 0
        }
        if (!bye)
            exit 1
    } else if (!solve(1)) {
        exit 1
    }
    np = 0
    for (q = 1; q <= na; q++) {
        i = rk[q]
        if (i == bye || done[i])
            continue
        j = mate[i]
        done[i] = done[j] = 1
        wi = whites(i); wj = whites(j)
        if (wi < wj || (wi == wj && (last(i) == "b" && last(j) != "b" || last(i) == last(j))))
            line[++np] = num[i] " " num[j]
        else
            line[++np] = num[j] " " num[i]
    }
    if (bye)
        line[++np] = num[bye] " 0"
    print np > out
    for (k = 1; k <= np; k++)
        print line[k] > out
}' "$2"
