#!/bin/sh
# A broken pairing program (tests): exits 0 but writes no pairing.
[ "$1" = --dutch ] && [ "$3" = -p ] || exit 3
echo "this is not a pairing" > "$4"
