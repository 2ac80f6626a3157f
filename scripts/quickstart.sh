#!/usr/bin/env bash
# quickstart.sh: from a fresh Debian 12 machine to a first heap profile.
# Installs the dependencies, builds heapprof in build/, profiles the bundled
# example (examples/trees.c, depth 16) in build/example-profile/ with the
# heapprof launcher, renders the graph with hp2ps and as an HTML report, and
# ends by printing where the report is.
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
echo "\$ scripts/heapprof -hc -i0.1 build/examples/trees 16"
HEAPPROF_BUILD="$root/build" "$root/scripts/heapprof" -hc -i0.1 \
    "$root/build/examples/trees" 16 >/dev/null
hp2ps -c trees.hp

echo
echo "first lines of the text report ($root/$out/trees.prof):"
sed -n '1,18p' trees.prof
echo
echo "profile written:"
echo "  heap profile (hp2ps input):  $root/$out/trees.hp"
echo "  text report:                 $root/$out/trees.prof"
echo "  allocation table (CSV):      $root/$out/trees.alloc.csv"
echo "  graph (PostScript):          $root/$out/trees.ps"
HEAPPROF_BUILD="$root/build" "$root/scripts/heapprof" report trees.hp -o "$root/$out/trees.html" >/dev/null
echo "  report (open in a browser):  $root/$out/trees.html"
