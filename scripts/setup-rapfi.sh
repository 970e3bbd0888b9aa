#!/usr/bin/env bash
# Builds Rapfi (the Gomocup engine the Gomoku ladder plays against; GPL-3.0, used only as an
# opponent) once into ${DOJO_CACHE:-$HOME/.cache/dojo}/rapfi-<version>-<hash>, and prints the
# path of its capped brain, `pbrain-rapfi-capped` (N nodes a move, one thread, deterministic).
#
# Where from, first that exists:
#   $DOJO_RAPFI      a built engine (the pbrain-rapfi-capped file, or the folder holding it),
#                    used as it is; or a Rapfi source folder holding build.sh, built here
#   ../shared/engines/rapfi   beside the checkout (build.sh, the tarball and its patch)
# Exits 3 with a message naming both places where there is neither, and 4 where the build
# fails (no cmake/g++ and no apt-get to install them, say): callers (scripts/test.sh) skip.
#
# Idempotent: reuses a complete build (a marker is written last), redoes an interrupted one,
# and one build at a time (flock): a second caller waits for the first, then finds it done.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cache=${DOJO_CACHE:-$HOME/.cache/dojo}

src=""
if [ -n "${DOJO_RAPFI:-}" ]; then
  if [ -f "$DOJO_RAPFI" ] && [ -x "$DOJO_RAPFI" ]; then
    echo "$DOJO_RAPFI"
    exit 0
  elif [ -x "$DOJO_RAPFI/pbrain-rapfi-capped" ] && [ -d "$DOJO_RAPFI/bin" ]; then
    echo "$DOJO_RAPFI/pbrain-rapfi-capped"
    exit 0
  elif [ -f "$DOJO_RAPFI/build.sh" ]; then
    src=$(cd "$DOJO_RAPFI" && pwd)
  else
    echo "setup-rapfi: DOJO_RAPFI=$DOJO_RAPFI is neither a built pbrain-rapfi-capped (or a folder" \
      "holding one) nor a Rapfi source folder with build.sh" >&2
    exit 3
  fi
elif [ -f "$root/../shared/engines/rapfi/build.sh" ]; then
  src=$(cd "$root/../shared/engines/rapfi" && pwd)
else
  echo "setup-rapfi: no Rapfi to build: $root/../shared/engines/rapfi/build.sh does not exist" \
    "and DOJO_RAPFI is not set (point it at a Rapfi source folder with build.sh, or at a built" \
    "pbrain-rapfi-capped)" >&2
  exit 3
fi

# The cache key: the tarball's version (its name) and a hash of everything the build reads,
# so a new tarball, patch or wrapper builds afresh instead of reusing a stale engine.
tarball=$(cd "$src" && ls rapfi-*.tar.gz 2>/dev/null | head -n 1)
version=${tarball%.tar.gz}
version=${version:-rapfi}
hash=$(cd "$src" && cat build.sh ${tarball:+"$tarball"} ./*.patch pbrain-rapfi-capped 2>/dev/null \
  | sha256sum | cut -c1-8)
out=$cache/$version-$hash

if [ -f "$out/.complete" ]; then
  echo "$out/pbrain-rapfi-capped"
  exit 0
fi
mkdir -p "$cache"
exec 9>"$out.lock"
flock 9
if [ -f "$out/.complete" ]; then
  echo "$out/pbrain-rapfi-capped"
  exit 0
fi

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

echo "setup-rapfi: building $version from $src into $out (cmake + g++, minutes; this happens once)" >&2
rm -rf "$out"
if ! nice -n 10 "$src/build.sh" "$out" >&2; then
  echo "setup-rapfi: the build failed (see above)" >&2
  exit 4
fi
# The sources and objects are not needed to play: keep only the engine and its wrappers.
rm -rf "$out/src" "$out/build"
touch "$out/.complete"
echo "$out/pbrain-rapfi-capped"
