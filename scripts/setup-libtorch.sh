#!/usr/bin/env bash
# Installs libtorch (the torch==2.13.0 wheel tch 0.26 expects) into a virtualenv in
# ${DOJO_CACHE:-$HOME/.cache/dojo}/torch-2.13.0, once. Idempotent: reuses a complete
# install, and redoes a partial one (killed mid-download) from scratch.
set -euo pipefail
version=2.13.0
cache=${DOJO_CACHE:-$HOME/.cache/dojo}
venv=$cache/torch-$version
python=${PYTHON:-python3}

if [ -f "$venv/.complete" ]; then
  exit 0
fi
mkdir -p "$cache"
# One install at a time: a second caller (two shells, CI beside a user) waits for the first
# instead of deleting the virtualenv under it, then finds it complete.
exec 9>"$cache/torch-$version.lock"
flock 9
if [ -f "$venv/.complete" ]; then
  exit 0
fi
echo "dojo: installing libtorch (torch==$version) into $venv; this happens once" >&2
# No marker means absent or interrupted: start clean.
rm -rf "$venv"
"$python" -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check "torch==$version"
"$venv/bin/python" -c "import torch; assert torch.__version__.startswith('$version'), torch.__version__"
touch "$venv/.complete"
echo "dojo: libtorch ready" >&2
