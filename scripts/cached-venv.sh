#!/usr/bin/env bash
# Usage: cached-venv.sh NAME REQUIREMENT. A virtualenv in the cache
# (${DOJO_CACHE:-~/.cache/dojo}/NAME) with one PyPI package installed, made once; prints
# its python. For the tests' helpers (TensorBoard's reader, selenium).
set -euo pipefail
venv=${DOJO_CACHE:-$HOME/.cache/dojo}/$1
if [ ! -f "$venv/.complete" ]; then
  rm -rf "$venv"
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install --quiet --disable-pip-version-check "$2" >&2
  touch "$venv/.complete"
fi
echo "$venv/bin/python"
