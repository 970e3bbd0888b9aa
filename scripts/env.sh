# Source this file (`. scripts/env.sh`) to build or run dojo: it installs libtorch on first
# use and exports what the tch build and the binaries need. Safe to source repeatedly.
#
# libtorch comes from the PyPI wheel torch==$DOJO_TORCH_VERSION (what tch 0.26 expects),
# installed into a virtualenv in a cache outside the checkout, so every clone and every CI
# run reuses one install (about 4.7 GB with its CUDA libraries; about a minute to install).

DOJO_TORCH_VERSION=2.13.0
DOJO_CACHE=${DOJO_CACHE:-$HOME/.cache/dojo}
DOJO_TORCH_VENV=$DOJO_CACHE/torch-$DOJO_TORCH_VERSION
export DOJO_CACHE DOJO_TORCH_VENV

_dojo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [ ! -f "$DOJO_TORCH_VENV/.complete" ]; then
  "$_dojo_root/scripts/setup-libtorch.sh" || return 1 2>/dev/null || exit 1
fi

# torch-sys asks `python` (the active virtualenv's) where torch's headers and libraries are.
export VIRTUAL_ENV=$DOJO_TORCH_VENV
export PATH=$DOJO_TORCH_VENV/bin:$PATH
export LIBTORCH_USE_PYTORCH=1
DOJO_TORCH_LIB=$("$DOJO_TORCH_VENV/bin/python" -c 'import os, torch; print(os.path.join(os.path.dirname(torch.__file__), "lib"))' 2>/dev/null)
export DOJO_TORCH_LIB
# Binaries also carry an rpath to this folder (build.rs); tests and tools started by cargo
# find it here.
export LD_LIBRARY_PATH=$DOJO_TORCH_LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# The build cache lives outside the checkout too, keyed by the torch version.
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$DOJO_CACHE/target-torch-$DOJO_TORCH_VERSION}
unset _dojo_root
