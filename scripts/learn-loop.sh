#!/usr/bin/env bash
# The offline AlphaZero loop: selfplay -> learn, generation after generation, on this
# machine. Usage:
#   scripts/learn-loop.sh RUN_DIR [GENERATIONS (60: about an hour on 2 cores)]
# Knobs (environment): GAME (connect4), BLOCKS (3), CHANNELS (32), GAMES (games per
# generation, 2000), SIMS (200), STEPS (training steps per generation, 500), WINDOW
# (generations of games to train on, 4), WORKERS (self-play processes, = cores), LR (1e-3),
# ANNEAL (0.3) and ANNEAL_FACTOR (0.1): over the last ANNEAL of the GENERATIONS the learning
# rate falls linearly to ANNEAL_FACTOR x LR, as `dojo train` does in a bounded run,
# DOJO_BIN (a dojo binary to use instead of building one: keeps a long run independent of
# later edits to the checkout).
# Each generation's checkpoint is RUN_DIR/genN.safetensors (+ .json); games are
# RUN_DIR/games-N.rec. Rerunning continues from the last finished generation.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$root/scripts/usage.sh"
case "${1:-}" in -h|--help) usage ;; -*) echo "learn-loop.sh: unknown option $1 (see --help)" >&2; exit 2 ;; esac
run=${1:?usage: scripts/learn-loop.sh RUN_DIR [GENERATIONS]}
generations=${2:-60}
game=${GAME:-connect4}
blocks=${BLOCKS:-3}
channels=${CHANNELS:-32}
games=${GAMES:-2000}
sims=${SIMS:-200}
steps=${STEPS:-500}
window=${WINDOW:-4}
workers=${WORKERS:-$(nproc)}
lr=${LR:-1e-3}
anneal=${ANNEAL:-0.3}
anneal_factor=${ANNEAL_FACTOR:-0.1}
if [ -n "${DOJO_BIN:-}" ]; then
  dojo() { "$DOJO_BIN" "$@"; }
else
  dojo() { "$root/scripts/dojo" "$@"; }
fi

mkdir -p "$run"
if [ ! -f "$run/gen0.json" ]; then
  dojo init --game "$game" --blocks "$blocks" --channels "$channels" --out "$run/gen0" --seed 1
fi
last=0
while [ -f "$run/gen$((last + 1)).json" ]; do last=$((last + 1)); done

for ((g = last + 1; g <= generations; g++)); do
  prev="$run/gen$((g - 1))"
  echo "== generation $g: self-play with $prev ($games games, $workers workers, $sims sims)"
  per=$(( (games + workers - 1) / workers ))
  pids=()
  for ((w = 0; w < workers; w++)); do
    dojo selfplay --model "$prev" --games "$per" --playouts "$sims" --out "$run/games-$g.part$w.rec" \
      --seed "$((g * 1000 + w))" --threads 1 > "$run/selfplay-$g.$w.log" 2>&1 &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p"; done
  tail -n 3 "$run/selfplay-$g.0.log"
  files=()
  for ((k = g - window + 1; k <= g; k++)); do
    [ "$k" -ge 1 ] && files+=("$run"/games-"$k".part*.rec)
  done
  # The generation's learning rate: LR until the last ANNEAL of the generations, then
  # linearly down to ANNEAL_FACTOR x LR at the last one.
  lr_g=$(awk -v g="$g" -v n="$generations" -v lr="$lr" -v f="$anneal" -v e="$anneal_factor" 'BEGIN {
    into = (f > 0) ? (g / n - (1 - f)) / f : 0; if (into < 0) into = 0; if (into > 1) into = 1
    printf "%.6g", lr * (1 - (1 - e) * into) }')
  echo "== generation $g: learn $steps steps on ${#files[@]} files, learning rate $lr_g"
  dojo learn --model "$prev" --records "${files[@]}" --steps "$steps" --lr "$lr_g" \
    --out "$run/gen$g" --threads "$workers" --seed "$g" 2>&1 | grep -v '^\s*$' | tail -n 2
done
