#!/bin/sh
# A pairing program (tests) whose pairing repeats a game already played.
QK_STANDIN_MODE=rematch exec "$(dirname "$0")/dutch.sh" "$@"
