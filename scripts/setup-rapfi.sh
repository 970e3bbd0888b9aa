#!/usr/bin/env bash
# Finds Rapfi (the Gomocup engine the Gomoku ladder plays against; GPL-3.0, used only as an
# opponent and never part of dojo: its code, binaries and build files stay out of this
# repository), and prints the path of its Gomocup brain (`pbrain-rapfi`). dojo caps it by
# the protocol itself (`pbrain:nodes=N:...`, `INFO MAX_NODE`), so an unpatched build serves.
#
# Where from, first that exists:
#   $DOJO_RAPFI   a built engine (the pbrain-rapfi file itself), used as it is; or a Rapfi
#                 source folder you fetched (github.com/dhbloo/rapfi: the checkout's root or
#                 its Rapfi/ folder, holding CMakeLists.txt), built here once, into the
#                 cache ${DOJO_CACHE:-~/.cache/dojo}/rapfi-HASH (cmake + g++, a few
#                 minutes), never into this checkout
#   the cache     the engine built last from such a folder (rapfi-current)
#   PATH          a pbrain-rapfi installed on this machine
# Exits 3 with a message saying how to get one where there is none, and 4 where the build
# fails (no cmake/g++ and no apt-get to install them, say): callers (scripts/test.sh) skip.
#
# Idempotent: reuses a complete build (a marker is written last), redoes an interrupted one,
# and one build at a time (flock): a second caller waits for the first, then finds it done.
set -euo pipefail
cache=${DOJO_CACHE:-$HOME/.cache/dojo}
current=$cache/rapfi-current

how_to_get() {
  echo "setup-rapfi: get Rapfi's source yourself (git clone https://github.com/dhbloo/rapfi)" \
    "and point DOJO_RAPFI at that folder to build it into $cache, or at a built pbrain-rapfi" >&2
}

src=""
if [ -n "${DOJO_RAPFI:-}" ]; then
  if [ -f "$DOJO_RAPFI" ] && [ -x "$DOJO_RAPFI" ]; then
    echo "$DOJO_RAPFI"
    exit 0
  elif [ -f "$DOJO_RAPFI/Rapfi/CMakeLists.txt" ]; then
    src=$(cd "$DOJO_RAPFI/Rapfi" && pwd)
  elif [ -f "$DOJO_RAPFI/CMakeLists.txt" ] && grep -q 'project(rapfi)' "$DOJO_RAPFI/CMakeLists.txt"; then
    src=$(cd "$DOJO_RAPFI" && pwd)
  else
    echo "setup-rapfi: DOJO_RAPFI=$DOJO_RAPFI is neither a built pbrain-rapfi nor a Rapfi source" \
      "folder (one holding Rapfi/CMakeLists.txt or CMakeLists.txt)" >&2
    how_to_get
    exit 3
  fi
elif [ -x "$current/pbrain-rapfi" ] && [ -f "$current/.complete" ]; then
  readlink -f "$current/pbrain-rapfi"
  exit 0
elif command -v pbrain-rapfi >/dev/null; then
  command -v pbrain-rapfi
  exit 0
else
  echo "setup-rapfi: no Rapfi here: DOJO_RAPFI is not set, nothing was built into $cache" \
    "before, and no pbrain-rapfi is on PATH" >&2
  how_to_get
  exit 3
fi

# The cache key: a hash of the sources (every file the build reads), so another version of
# Rapfi builds afresh instead of reusing a stale engine.
hash=$(cd "$src" && find . -type f \( -name '*.cpp' -o -name '*.h' -o -name '*.hpp' -o -name '*.c' \
  -o -name 'CMakeLists.txt' \) -not -path './build/*' -print0 | LC_ALL=C sort -z | xargs -0 cat | sha256sum | cut -c1-12)
out=$cache/rapfi-$hash

finish() {
  ln -sfn "$out" "$current.tmp" && mv -T "$current.tmp" "$current"
  echo "$out/pbrain-rapfi"
  exit 0
}
[ -f "$out/.complete" ] && finish
mkdir -p "$cache"
exec 9>"$out.lock"
flock 9
[ -f "$out/.complete" ] && finish

# Debian's cmake and g++ (CI's machine is a fresh Debian with gcc but no cmake).
if ! command -v cmake >/dev/null || ! command -v g++ >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "setup-rapfi: installing cmake and g++ with apt-get" >&2
    if ! { apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq cmake g++ >&2; }; then
      echo "setup-rapfi: apt-get could not install cmake and g++" >&2
      exit 4
    fi
  else
    echo "setup-rapfi: Rapfi needs cmake and g++ (Debian: apt-get install cmake g++), and this" \
      "shell cannot install them (not root, or no apt-get)" >&2
    exit 4
  fi
fi

echo "setup-rapfi: building Rapfi from $src into $out (cmake + g++, minutes; this happens once)" >&2
rm -rf "$out"
build=$out/build
# Release, single-threaded search is what the ladder plays; the instruction set is the
# machine's own (the engine never leaves it).
if ! { nice -n 10 cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release >&2 &&
  nice -n 10 cmake --build "$build" --parallel "$(nproc)" >&2; }; then
  echo "setup-rapfi: the build failed (see above)" >&2
  exit 4
fi
if [ ! -x "$build/pbrain-rapfi" ]; then
  echo "setup-rapfi: the build made no pbrain-rapfi in $build" >&2
  exit 4
fi
# The objects are not needed to play: keep only the engine.
mv "$build/pbrain-rapfi" "$out/pbrain-rapfi"
rm -rf "$build"
touch "$out/.complete"
finish
