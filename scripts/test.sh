#!/usr/bin/env bash
# Runs every test in the workspace, then the deployment's checks (the README's test
# command; CI runs it too).
#
#   scripts/test.sh [CARGO_TEST_ARGS...]
#
# Arguments go to cargo test (e.g. `scripts/test.sh -p dojo --test repo`) and skip the
# deployment checks.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$root/scripts/usage.sh"
case "${1:-}" in -h|--help) usage ;; esac
# Each step's time, printed as it ends and again together at the end (where CI's time goes).
timings=()
step_start=$SECONDS
took() {
  local secs=$((SECONDS - step_start))
  timings+=("$(printf '%5ds  %s' "$secs" "$1")")
  echo "test.sh: $1 took ${secs}s" >&2
  step_start=$SECONDS
}
summary() {
  [ -z "$base_pid" ] || kill "$base_pid" 2>/dev/null || true
  [ ${#timings[@]} -gt 0 ] || return 0
  echo "test.sh: time by step (total $((SECONDS))s):" >&2
  printf '  %s\n' "${timings[@]}" >&2
}
base_pid=
trap summary EXIT
. "$root/scripts/env.sh"
cd "$root"
took "libtorch (scripts/env.sh)"
# TensorBoard's own reader checks dojo's event files (cli/tests/runs/tensorboard.rs).
DOJO_TENSORBOARD_PYTHON=$("$root/scripts/setup-tensorboard.sh")
# Prometheus's promtool checks the learner's /metrics page (cli/tests/runs/metrics.rs).
DOJO_PROMTOOL=$("$root/scripts/setup-promtool.sh")
export DOJO_TENSORBOARD_PYTHON DOJO_PROMTOOL
took "tensorboard and promtool"
# A headless chromium with selenium drives the dashboard (cli/tests/runs/dashboard.rs).
if DOJO_BROWSER_PYTHON=$("$root/scripts/setup-browser.sh"); then
  export DOJO_BROWSER_PYTHON
else
  echo "test.sh: SKIPPING the dashboard's browser test: no headless chromium here (see above)" >&2
fi
took "chromium"
# mingw-w64 and wine64 build and run the Windows Gomocup brain (cli/tests/exports/gomocup.rs)
# as Gomocup's manager would.
if DOJO_WINE=$("$root/scripts/setup-wine.sh"); then
  export DOJO_WINE WINEPREFIX=${DOJO_CACHE}/wine-prefix WINEDEBUG=-all
else
  echo "test.sh: SKIPPING the Windows Gomocup brain's test: no mingw-w64 and wine64 here (see above)" >&2
fi
took "mingw-w64 and wine"
# Rapfi, a Gomocup engine, plays the Gomoku ladder (cli/tests/players/gomoku_ladder.rs). It is never
# in this repository, nor built by it: scripts/find-rapfi finds the one this machine's user
# built (DOJO_RAPFI, or on PATH), or says how to get one.
if DOJO_RAPFI_ENGINE=$("$root/scripts/find-rapfi"); then
  export DOJO_RAPFI_ENGINE
else
  echo "test.sh: SKIPPING the Gomoku ladder's tests against Rapfi: this machine has no Rapfi engine (see above)" >&2
fi
took "rapfi"
# Seed 001's Connect Four engine (Lionjump0723/connect4) is the reference on saiblo's boards
# (cli/tests/repo/seed_engine.rs, cli/tests/players/saiblo_ladder.rs). It is never in this
# repository, nor built by it: scripts/find-seed-engine checks the one this machine's user
# built (DOJO_SEED_ENGINE), or says how to get one; a wrong name is unset, so its tests skip
# rather than fail.
if ! "$root/scripts/find-seed-engine" >/dev/null; then
  unset DOJO_SEED_ENGINE
  echo "test.sh: SKIPPING the tests against seed 001's engine: this machine has no built engine (see above)" >&2
fi
# The compose tests' base image (scripts/image-base: a debootstrap, minutes spent waiting
# on Debian's mirror on a new machine) is made while the tests build, where that wait
# costs nothing. Best effort: cluster-test makes it itself if this did not.
if [ $# -eq 0 ] && docker info >/dev/null 2>&1 && ! docker image inspect dojo-base:bookworm >/dev/null 2>&1; then
  base_log=$(mktemp "${TMPDIR:-/tmp}/dojo-image-base.XXXXXX")
  echo "test.sh: making the compose tests' base image in the background (log: $base_log)" >&2
  nice -n 10 "$root/scripts/image-base" >"$base_log" 2>&1 &
  base_pid=$!
fi
# Tests that touch libtorch set it to one thread each; the harness runs two at a time on
# this 2-core machine by default, which is the most that does not oversubscribe it.
cargo test --workspace --no-run "$@"
took "cargo test: build"
if [ -n "$base_pid" ]; then
  # Not during the tests: they have both cores to themselves.
  if ! wait "$base_pid"; then
    echo "test.sh: the base image could not be made in the background; cluster-test tries again. Its log:" >&2
    tail -5 "$base_log" >&2
  fi
  base_pid=
  took "base image (what the build did not hide)"
fi
cargo test --workspace "$@"
took "cargo test: run"
if [ $# -gt 0 ]; then
  echo "test.sh: not running the deployment checks (arguments were given to cargo test)" >&2
  exit 0
fi
# The deployment: every Kubernetes overlay renders and validates; the compose stack runs on
# the Docker engine (these say SKIPPED where no engine answers). Its image takes the dojo
# binary from the dev profile the tests just built (opt-level 2: only the binary is linked
# again without CUDA) rather than a release build of every crate (11 minutes cold).
export DOJO_IMAGE_PROFILE=dev
"$root/scripts/k8s-validate"
took "k8s-validate"
# The compose stack's Prometheus config and alert rules, with their unit tests (promtool).
"$root/scripts/prometheus-check"
took "prometheus-check"
"$root/scripts/cluster-test"
took "cluster-test"
# Network faults on that stack: a worker cut off, the learner killed and paused past the
# workers' deadlines; every game must arrive exactly once.
"$root/scripts/network-faults" --cut 10 --pause 65
took "network-faults"
# Every decoder against hostile input, briefly, in a build quicker to compile than the
# release one real runs use (scripts/fuzz --seconds 600).
"$root/scripts/fuzz" --dev --seconds 10
took "fuzz"
# The GPU machine's kit and check (docs/gpu.md), on the CPU on a tiny configuration, so
# neither can rot between the rare runs on a GPU: the kit's binary (built against the GPU
# image's libtorch 2.11, cached: a warm rebuild is what changed) must run every step and
# every format must agree.
# (Built with the dev profile: whether it builds and runs is the question here, not its speed.)
DOJO_GPU_KIT_PROFILE=dev "$root/scripts/gpu-kit"
took "gpu-kit"
"$root/scripts/gpu-check" --device cpu --dojo "$root/gpu-kit/dojo" --out "$(mktemp -d)"
took "gpu-check"
