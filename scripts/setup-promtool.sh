#!/usr/bin/env bash
# Fetches Prometheus's promtool (Debian's `prometheus` package, unpacked into the cache; no
# root needed), for the test that checks the learner's /metrics page. Prints its path.
set -euo pipefail
cache=${DOJO_CACHE:-$HOME/.cache/dojo}/promtool-deb12
if [ ! -x "$cache/usr/bin/promtool" ]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  (cd "$tmp" && apt-get download prometheus >&2)
  mkdir -p "$cache"
  dpkg-deb -x "$tmp"/prometheus_*.deb "$cache"
fi
echo "$cache/usr/bin/promtool"
