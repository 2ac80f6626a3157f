#!/usr/bin/env bash
# quickstart.sh: from a fresh Debian 12 machine to a first heap profile.
# Installs the dependencies, builds heapprof in build/, profiles the bundled
# example (examples/trees.c, depth 16) in build/example-profile/, renders the
# graph with hp2ps, and prints where the files are.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$(pwd)

scripts/install-deps.sh

if [ -f build/build.ninja ]; then
    meson setup --reconfigure build >/dev/null
else
    meson setup build >/dev/null
fi
meson compile -C build >/dev/null

out=build/example-profile
rm -rf "$out"
mkdir -p "$out"
cd "$out"
echo "\$ LD_PRELOAD=build/libheapprof.so HEAPPROF=cc,interval=0.1 build/examples/trees 16"
LD_PRELOAD="$root/build/libheapprof.so" HEAPPROF=cc,interval=0.1 \
    "$root/build/examples/trees" 16 >/dev/null
hp2ps -c trees.hp

echo
echo "profile written:"
echo "  heap profile (hp2ps input):  $root/$out/trees.hp"
echo "  text report:                 $root/$out/trees.prof"
echo "  graph (PostScript):          $root/$out/trees.ps"
echo
echo "first lines of the report:"
sed -n '1,16p' trees.prof
