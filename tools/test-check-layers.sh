#!/bin/sh
# Proves tools/check-layers.sh can fail: on small trees with one planted
# violation each it must exit 1 and name it, and on a clean tree exit 0.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

tree() { # name: a fresh minimal tree
    rm -rf "$tmp/$1"
    mkdir -p "$tmp/$1/server/api" "$tmp/$1/server/game" "$tmp/$1/server/store" \
        "$tmp/$1/server/net" "$tmp/$1/server/util" "$tmp/$1/common"
    echo '#include "qk_rules.h"' >"$tmp/$1/server/store/store.h"
    : >"$tmp/$1/common/qk_rules.h"
    echo '#include "store/store.h"' >"$tmp/$1/server/game/games.h"
    printf '#include "game/games.h"\n#include "net/conn.h"\n' >"$tmp/$1/server/api/ops.h"
    : >"$tmp/$1/server/net/conn.h"
    echo "$tmp/$1"
}

expect() { # want-status pattern root
    set +e
    out=$(sh "$here/check-layers.sh" "$3" 2>&1)
    got=$?
    set -e
    if [ "$got" -ne "$1" ] || ! printf '%s\n' "$out" | grep -q "$2"; then
        echo "test-check-layers: expected exit $1 and '$2', got exit $got:"
        printf '%s\n' "$out"
        exit 1
    fi
}

expect 0 "check-layers: ok" "$(tree clean)"

t=$(tree up)
echo '#include "api/ops.h"' >>"$t/server/game/games.h"
expect 1 "server/game/games.h (game) includes api/ops.h (api)" "$t"

t=$(tree sideways)
echo '#include "game/games.h"' >"$t/server/net/conn.h"
expect 1 "server/net/conn.h (net) includes game/games.h (game)" "$t"

t=$(tree cycle)
echo '#include "game/notify.h"' >>"$t/server/game/games.h"
echo '#include "game/games.h"' >"$t/server/game/notify.c"
: >"$t/server/game/notify.h"
printf '#include "game/notify.h"\n' >"$t/server/game/games.c"
echo '#include "game/games.h"' >>"$t/server/game/notify.h"
expect 1 "include cycle" "$t"

t=$(tree bare)
echo '#include "games.h"' >"$t/server/api/hint.c"
expect 1 'name a header of another folder' "$t"

t=$(tree backend)
mkdir -p "$t/server/store/sqlite"
printf '#include "store/store.h"\n#include "util/log.h"\n' >"$t/server/store/sqlite/sq.c"
: >"$t/server/util/log.h"
expect 0 "check-layers: ok" "$t"

t=$(tree backend-up)
mkdir -p "$t/server/store/sqlite"
echo '#include "game/games.h"' >"$t/server/store/sqlite/sq.c"
expect 1 "server/store/sqlite/sq.c (store) includes game/games.h (game)" "$t"

t=$(tree backend-cycle)
mkdir -p "$t/server/store/sqlite"
echo '#include "store/sqlite/b.h"' >"$t/server/store/sqlite/a.c"
: >"$t/server/store/sqlite/a.h"
echo '#include "store/sqlite/a.h"' >"$t/server/store/sqlite/b.c"
: >"$t/server/store/sqlite/b.h"
expect 1 "include cycle" "$t"

t=$(tree subfolder)
mkdir -p "$t/server/game/x"
: >"$t/server/game/x/y.c"
expect 1 "folder 'game/x' is not a layer" "$t"

echo "test-check-layers: ok (9 trees)"
