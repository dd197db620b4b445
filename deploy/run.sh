#!/usr/bin/env bash
# Start qirkatd in the foreground for `make run`: BUILD_DIR LISTEN DB.
# Ctrl-C (SIGINT) stops the server cleanly.
set -euo pipefail
build=${1:-build}
listen=${2:-127.0.0.1:7420}
db=${3:-./qirkat.db}
echo "qirkatd listening on $listen, database $db (Ctrl-C stops it)"
exec "$build/qirkatd" --listen "$listen" --db "$db"
