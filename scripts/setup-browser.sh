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
exec "$(dirname "${BASH_SOURCE[0]}")/cached-venv.sh" "selenium-$version" "selenium==$version"
