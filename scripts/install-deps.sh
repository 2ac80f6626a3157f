#!/usr/bin/env bash
# install-deps.sh: install the Debian 12 packages heapprof needs to build,
# test and view profiles. Idempotent: when everything is present it only
# asks dpkg-query and returns (no apt-get update). Uses sudo when not root.
#
#   scripts/install-deps.sh          build + view: compiler, meson, libgc, ghc (hp2ps)
#   scripts/install-deps.sh --test   also what the tests need: headless
#                                    Chromium (the report page test), Guile
#                                    and ECL (real runtimes on libgc), the C
#                                    library's debug file (libc6-dbg: its
#                                    frames must get no source line), and the
#                                    libgc source for bdwgc's gctest, fetched
#                                    with apt-get source into the test cache
#                                    ($HEAPPROF_TEST_CACHE, default
#                                    /var/cache/heapprof-test); adds a deb-src
#                                    entry first if apt has none.
#   scripts/install-deps.sh --all    also the slow suite's programs
#                                    (scripts/test.sh --all): Inkscape, nix,
#                                    GNU poke and Asymptote, large or seldom
#                                    used.
set -euo pipefail

PACKAGES=(build-essential gcc meson ninja-build pkg-config libgc-dev libunwind-dev
          libcriterion-dev python3 ghc w3m dpkg-dev binutils libiberty-dev libdw-dev)
# Only for --test: tests/tools/test_browser.py drives headless Chromium;
# tests/external/test_runtimes.py runs Guile and ECL (language runtimes
# built on libgc) under heapprof; tests/external/test_crystal.py builds a
# Crystal program with Debian's compiler (which uses libgc) under ldv;
# tests/integration/test_pprof.py reads the pprof export with `go tool
# pprof` (golang-go); tests/integration/test_ldv.py runs a program under
# strace, whose stop at every signal makes each fault dearer (the budget's
# floor in faults).
TEST_PACKAGES=(chromium chromium-driver guile-3.0 ecl crystal golang-go libc6-dbg strace)
# Only for --all: more real programs on libgc for the slow suite
# (tests/external/test_programs.py: retainer coverage on each; Asymptote
# also under ldv), and guile-3.0-dev for guild, which
# bench/bench_ldv_programs.py runs.
ALL_PACKAGES=(inkscape nix-bin poke asymptote guile-3.0-dev)
CACHE=${HEAPPROF_TEST_CACHE:-/var/cache/heapprof-test}
DEBSRC_FILE=/etc/apt/sources.list.d/heapprof-deb-src.sources

want_test=0
want_all=0
for arg in "$@"; do
    case $arg in
        --test) want_test=1 ;;
        --all) want_test=1; want_all=1 ;;
        -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "install-deps.sh: unknown argument '$arg' (valid: --test, --all, --help)" >&2; exit 2 ;;
    esac
done

SUDO=()
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null; then
        SUDO=(sudo)
    fi
fi
as_root() {
    if [ "$(id -u)" -ne 0 ] && [ ${#SUDO[@]} -eq 0 ]; then
        echo "install-deps.sh: need root for: $*; run as root or install sudo" >&2
        exit 1
    fi
    "${SUDO[@]}" "$@"
}

installed() {
    [ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null)" = installed ]
}

updated=0
apt_update() {
    if [ $updated -eq 0 ]; then
        echo "install-deps.sh: apt-get update" >&2
        as_root apt-get -q update >/dev/null
        updated=1
    fi
}

# --- which packages are missing --------------------------------------------
missing=()
for p in "${PACKAGES[@]}"; do
    installed "$p" || missing+=("$p")
done
if [ $want_test -eq 1 ]; then
    for p in "${TEST_PACKAGES[@]}"; do
        installed "$p" || missing+=("$p")
    done
fi
if [ $want_all -eq 1 ]; then
    for p in "${ALL_PACKAGES[@]}"; do
        installed "$p" || missing+=("$p")
    done
fi

# --- the gctest source: does it need fetching, and can apt find it? ----------
has_source() {
    compgen -G "$CACHE/libgc-*/tests/test.c" >/dev/null
}
has_deb_src_entry() {
    grep -qsE '^[[:space:]]*Types:.*\bdeb-src\b' /etc/apt/sources.list.d/*.sources ||
        grep -qsE '^[[:space:]]*deb-src[[:space:]]' /etc/apt/sources.list /etc/apt/sources.list.d/*.list
}
# A deb822 deb-src stanza with the URIs/Suites/Components/Signed-By of the
# first stanza of debian.sources (or of the first "deb" line of sources.list).
write_deb_src_entry() {
    local stanza
    if [ -r /etc/apt/sources.list.d/debian.sources ]; then
        stanza=$(awk '
            /^[[:space:]]*$/ { if (seen) exit; next }
            /^[[:space:]]*#/ { next }
            { seen = 1 }
            /^(URIs|Suites|Components|Signed-By):/ { print }
        ' /etc/apt/sources.list.d/debian.sources)
    elif [ -r /etc/apt/sources.list ]; then
        stanza=$(awk '
            $1 == "deb" {
                i = 2; signed = ""
                if ($2 ~ /^\[/) {
                    for (; i <= NF && $(i) !~ /\]$/; i++)
                        if ($(i) ~ /signed-by=/) signed = $(i)
                    if ($(i) ~ /signed-by=/) signed = $(i)
                    i++
                }
                gsub(/[][]/, "", signed); sub(/^signed-by=/, "", signed)
                printf "URIs: %s\nSuites: %s\nComponents:", $(i), $(i + 1)
                for (j = i + 2; j <= NF; j++) printf " %s", $(j)
                printf "\n"
                if (signed != "") printf "Signed-By: %s\n", signed
                exit
            }' /etc/apt/sources.list)
    fi
    if ! grep -q '^URIs:' <<<"$stanza"; then
        echo "install-deps.sh: no Debian apt source found to mirror as deb-src;" \
             "add a deb-src entry by hand" >&2
        exit 1
    fi
    echo "install-deps.sh: adding $DEBSRC_FILE (deb-src, for apt-get source libgc)" >&2
    printf '# Added by heapprof scripts/install-deps.sh: lets the tests fetch the\n# libgc source (bdwgc gctest) with apt-get source.\nTypes: deb-src\n%s\n' \
        "$stanza" | as_root tee "$DEBSRC_FILE" >/dev/null
}

need_source=0
if [ $want_test -eq 1 ] && ! has_source; then
    need_source=1
    if ! has_deb_src_entry; then
        write_deb_src_entry
        apt_update
    fi
fi

# --- install -----------------------------------------------------------------
if [ ${#missing[@]} -gt 0 ]; then
    apt_update
    echo "install-deps.sh: installing ${missing[*]}" >&2
    as_root env DEBIAN_FRONTEND=noninteractive \
        apt-get -q install -y --no-install-recommends "${missing[@]}" >/dev/null
fi

# --- fetch the libgc source into the test cache ------------------------------
fetch_source() {
    local version spec run=()
    version=$(dpkg-query -W -f='${Version}' libgc-dev)
    if ! mkdir -p "$CACHE" 2>/dev/null || [ ! -w "$CACHE" ]; then
        run=("${SUDO[@]}")
        as_root mkdir -p "$CACHE"
    fi
    for spec in "libgc=$version" libgc; do
        if (cd "$CACHE" && "${run[@]}" apt-get -q source "$spec") >&2; then
            return 0
        fi
    done
    return 1
}
if [ $need_source -eq 1 ]; then
    echo "install-deps.sh: fetching the libgc source into $CACHE" >&2
    if ! fetch_source; then
        if [ $updated -eq 0 ]; then
            apt_update
            fetch_source || { echo "install-deps.sh: apt-get source libgc failed" >&2; exit 1; }
        else
            echo "install-deps.sh: apt-get source libgc failed" >&2
            exit 1
        fi
    fi
    has_source || { echo "install-deps.sh: no libgc-*/tests/test.c in $CACHE" >&2; exit 1; }
fi

command -v hp2ps >/dev/null || { echo "install-deps.sh: hp2ps not found (package ghc)" >&2; exit 1; }
if [ $want_test -eq 1 ]; then
    command -v chromium >/dev/null || { echo "install-deps.sh: chromium not found (package chromium)" >&2; exit 1; }
fi
echo "install-deps.sh: all dependencies present" >&2
