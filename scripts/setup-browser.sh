#!/usr/bin/env bash
# A real headless browser for the dashboard's test: Debian's chromium and chromium-driver
# (installed with apt-get where missing, which needs root) and Python's selenium (PyPI, in
# a virtualenv in the cache). Prints the venv's python; fails saying why it cannot.
set -euo pipefail
version=4.38.0
if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
  if [ "$(id -u)" != 0 ]; then
    echo "chromium and chromium-driver are not installed, and installing them needs root" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -q chromium chromium-driver >&2 || { apt-get update -q >&2 && apt-get install -y -q chromium chromium-driver >&2; }
fi
venv=${DOJO_CACHE:-$HOME/.cache/dojo}/selenium-$version
if [ ! -f "$venv/.complete" ]; then
  rm -rf "$venv"
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install --quiet --disable-pip-version-check "selenium==$version" >&2
  touch "$venv/.complete"
fi
echo "$venv/bin/python"
