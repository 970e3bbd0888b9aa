#!/usr/bin/env bash
# Installs TensorBoard (the PyPI package) into a virtualenv in the cache, for the test that
# reads dojo's event files back with TensorBoard's own reader. Prints the venv's python.
set -euo pipefail
version=2.21.0
exec "$(dirname "${BASH_SOURCE[0]}")/cached-venv.sh" "tensorboard-$version" "tensorboard==$version"
