#!/usr/bin/env bash
# What the Windows Gomocup brain's test needs (cli/tests/exports/gomocup.rs): Debian's
# mingw-w64 C++ compiler, to build `pbrain-dojo.exe` as `dojo export gomocup` does, and
# wine64 to run it (installed with apt-get where missing, which needs root), then a wine
# prefix made once in the cache. Prints wine64's path; fails saying why it cannot.
#
# Run the brain as the tests do: WINEPREFIX=~/.cache/dojo/wine-prefix WINEDEBUG=-all
# "$(scripts/setup-wine.sh)" pbrain-dojo.exe
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/usage.sh"
case "${1:-}" in -h|--help) usage ;; '') ;; *) usage 2 ;; esac
packages=()
command -v x86_64-w64-mingw32-g++-win32 >/dev/null || packages+=(g++-mingw-w64-x86-64-win32)
[ -x /usr/lib/wine/wine64 ] || command -v wine64 >/dev/null || packages+=(wine64)
if [ ${#packages[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "${packages[*]} not installed, and installing them needs root" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -q --no-install-recommends "${packages[@]}" >&2 ||
    { apt-get update -q >&2 && apt-get install -y -q --no-install-recommends "${packages[@]}" >&2; }
fi
wine=$(command -v wine64 || echo /usr/lib/wine/wine64)
# A prefix of its own, made once (about 10 s), so no test pays for it.
export WINEPREFIX=${DOJO_CACHE:-$HOME/.cache/dojo}/wine-prefix WINEDEBUG=-all
if [ ! -f "$WINEPREFIX/system.reg" ]; then
  "$wine" wineboot --init >&2 2>/dev/null || true
  # wineboot returns before the wine server has written the registry out: wait for the
  # server to end (on a busy machine the check below otherwise runs first).
  server=$(dirname "$wine")/wineserver
  [ -x "$server" ] || server=$(command -v wineserver || echo /usr/lib/wine/wineserver)
  "$server" -w 2>/dev/null || true
  [ -f "$WINEPREFIX/system.reg" ] || { echo "wine could not make its prefix in $WINEPREFIX" >&2; exit 1; }
fi
echo "$wine"
