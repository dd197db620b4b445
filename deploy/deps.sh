#!/usr/bin/env bash
# Install the Debian packages Qirkat needs to build and test, only those
# missing. Runs apt-get as root (through sudo when not root).
set -euo pipefail
# clang and libclang-rt-14-dev (libFuzzer, ASan and UBSan runtimes): `make fuzz`.
pkgs=(build-essential pkg-config libuv1-dev libcjson-dev libsqlite3-dev libsodium-dev libcriterion-dev sqlite3
      clang libclang-rt-14-dev)
missing=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
    echo "deps: all packages present"
    exit 0
fi
echo "deps: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
