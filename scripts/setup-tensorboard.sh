#!/usr/bin/env bash
# Installs TensorBoard (the PyPI package) into a virtualenv in the cache, for the tests that
# read dojo's event files back with TensorBoard's own reader. Prints the venv's python.
set -euo pipefail
version=2.21.0
venv=${DOJO_CACHE:-$HOME/.cache/dojo}/tensorboard-$version
if [ ! -f "$venv/.complete" ]; then
  rm -rf "$venv"
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install --quiet --disable-pip-version-check "tensorboard==$version" >&2
  touch "$venv/.complete"
fi
echo "$venv/bin/python"
