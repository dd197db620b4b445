#!/bin/sh
# check-layers: the server's include rule (docs/design.md "Server layers").
#
# Every file under server/ belongs to the layer named by its folder
# (util, store, game, net, api) or to the top (server/*.c, *.h: the wiring).
# A store backend's folder (server/store/sqlite/, server/store/pg/) is part
# of the store layer; no other layer has subfolders.
# An include may only go down:
#   top   -> api game net store util
#   api   -> api game net store util
#   game  -> game store util
#   net   -> net util
#   store -> store util
#   util  -> util
# common/ headers (qk_*.h) are below every layer. A server header is named
# by its path from server/ ("game/games.h"), or bare from its own folder.
# Any include cycle among server modules fails too (tsort finds it); a
# module is x.c with x.h and its private x_int.h.
# Exit 0 when clean, 1 with one line per violation. Usage:
#   tools/check-layers.sh [ROOT]   (ROOT holds server/ and common/; default: this project)
set -eu
cd "${1:-$(dirname "$0")/..}"

allowed() { # layer-of-includer layer-of-included -> 0 when allowed
    case "$1:$2" in
    top:*) return 0 ;;
    api:api | api:game | api:net | api:store | api:util) return 0 ;;
    game:game | game:store | game:util) return 0 ;;
    net:net | net:util) return 0 ;;
    store:store | store:util) return 0 ;;
    util:util) return 0 ;;
    esac
    return 1
}

layer_of() { # server-relative path -> layer
    case "$1" in
    store/*/*/*) echo "${1%/*}" ;; # deeper than a backend: not a layer
    store/*) echo store ;;         # store/x.c and a backend's store/BACKEND/x.c
    */*/*) echo "${1%/*}" ;;       # a subfolder of another layer: not a layer
    */*) echo "${1%%/*}" ;;
    *) echo top ;;
    esac
}

module() { # a file -> its module: x.c, x.h and the private x_int.h are one
    m=${1%.[ch]}
    echo "${m%_int}"
}

bad=0
edges=$(mktemp)
trap 'rm -f "$edges"' EXIT
for f in $(find server -name '*.[ch]' | sort); do
    rel=${f#server/}
    dir=$(dirname "$rel")
    from=$(layer_of "$rel")
    case "$from" in top | api | game | net | store | util) ;;
    *) echo "check-layers: $f: folder '$from' is not a layer"; bad=1; continue ;;
    esac
    for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f"); do
        if [ "$dir" != . ] && [ -f "server/$dir/$inc" ]; then
            target=$dir/$inc
        elif [ -f "server/$inc" ]; then
            target=$inc
        elif [ -f "common/$inc" ]; then
            continue
        elif [ -n "$(find server -name "$(basename "$inc")")" ]; then
            echo "check-layers: $f includes \"$inc\": name a header of another folder by its path from server/"
            bad=1
            continue
        else
            continue # a system header
        fi
        to=$(layer_of "$target")
        if ! allowed "$from" "$to"; then
            echo "check-layers: $f ($from) includes $target ($to): includes only go down"
            bad=1
        fi
        echo "$(module "$rel") $(module "$target")" >>"$edges"
    done
done
# The graph is between modules (x.c, x.h, x_int.h): "a.h -> b.h" and
# "b.c -> a.h" is the cycle a <-> b that linking makes real.
awk '$1 != $2' "$edges" >"$edges.h"
if ! tsort "$edges.h" >/dev/null 2>"$edges.err"; then
    echo "check-layers: include cycle among server modules:"
    grep -v 'input contains a loop:$' "$edges.err" | sed 's/^tsort: /  /'
    bad=1
fi
rm -f "$edges.h" "$edges.err"
if [ "$bad" -eq 0 ]; then
    echo "check-layers: ok ($(sort -u "$edges" | awk '$1 != $2' | wc -l) module dependencies, no cycle)"
fi
exit "$bad"
