#!/usr/bin/env bash
# Install the Debian packages Qirkat needs to build and test, only those
# missing. Runs apt-get as root (through sudo when not root). Then the npm
# packages of the web client's browser tests (tests/web, from its lock file).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
# chromium: Debian's browser for the web tests (tests/web/run.mjs); the tests
# never download a browser of their own. libedit-dev: the client's prompt.
# clang and libclang-rt-14-dev (libFuzzer, ASan and UBSan runtimes): `make fuzz`.
# qirkatd --http (server/net/ws.c, http.c): libhttp-parser-dev (HTTP/1.1
# requests), libwslay-dev (WebSocket frames), nettle-dev (SHA-1 of the
# handshake's Sec-WebSocket-Accept).
# libmimalloc-dev: qirkatd's allocator (Makefile ALLOC_LIBS). libsystemd-dev:
# sd_notify for Type=notify and the watchdog (deploy/qirkatd.service); systemd:
# systemd-analyze, which verifies the unit in tests/server/test_ops.c;
# python3-prometheus-client: its parser reads GET /metrics in test_ops.c.
# gettext: msgfmt compiles the client's catalogues (po/) at build time;
# xgettext, msgcmp and msgattrib check them (make check-po). No locale to
# generate: the French tests run LANGUAGE=fr over C.UTF-8, built into glibc.
# fontconfig, fonts-dejavu-core: the fonts the web page is drawn in on a plain
# Debian; tests/web/glyphs.test.mjs checks every character of web/ has a glyph
# in them (fc-query).
# postgresql, libpq-dev: the PostgreSQL store (server/store/pg/, libpq's
# asynchronous API) and make test-pg, which starts a throwaway cluster with
# Debian's initdb and pg_ctl; haproxy: the one address in front of several
# nodes (deploy/haproxy.cfg, checked with haproxy -c in make test-pg).
# valgrind, strace: make cost-guard (in make test) counts qirkatd's
# instructions per move with cachegrind; bench-count adds syscalls.
pkgs=(build-essential pkg-config libuv1-dev libcjson-dev libsqlite3-dev libsodium-dev libcriterion-dev libedit-dev sqlite3 chromium
      libmimalloc-dev libsystemd-dev systemd python3-prometheus-client gettext
      clang libclang-rt-14-dev libhttp-parser-dev libwslay-dev nettle-dev
      postgresql libpq-dev haproxy valgrind strace fontconfig fonts-dejavu-core)
missing=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node.js and npm by command, not by package: a machine may carry its own
# Node.js with npm bundled, which Debian's npm package conflicts with.
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)
if [ ${#missing[@]} -eq 0 ]; then
    echo "deps: all packages present"
else
    echo "deps: installing ${missing[*]}"
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
# playwright-core and ws, exactly as locked; again only when the lock changed
# since the last install (npm ci starts from an empty node_modules).
web="$root/tests/web"
if [ ! -f "$web/node_modules/.package-lock.json" ] || [ "$web/package-lock.json" -nt "$web/node_modules/.package-lock.json" ]; then
    echo "deps: npm ci in tests/web"
    (cd "$web" && npm ci --no-audit --no-fund --loglevel=error)
else
    echo "deps: tests/web npm packages present"
fi
