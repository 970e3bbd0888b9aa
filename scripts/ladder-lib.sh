# shellcheck shell=bash
# Sourced (not run) by the ladders, scripts/gomoku-ladder and scripts/saiblo-ladder: what
# they share about which networks play and where a ladder is kept. Each sets `ladder` to
# its own name first, for its messages.
#
# A ladder plays a run's networks (its newest version, or every K-th and the newest) and
# any checkpoint files named with --model, through `dojo tournament`'s gauntlet kept in
# RUN/tournaments/NAME/; networks without a run are kept in a folder dojo takes for a run
# (--dir, a config of the game and nothing else).
# The sourcing script sets `ladder`, `run`, `dir`, `every` and `models`, and reads `game`
# and `from`:
# shellcheck disable=SC2154,SC2034

die() {
  echo "$ladder: $*" >&2
  exit 2
}
# An old spelling ($1) of an option renamed to $2 (one meaning per flag, as in dojo's own).
deprecated() {
  echo "$ladder: warning: $1 is deprecated: use $2 (the old spelling goes in the next release)" >&2
}
# Whether $1 is a time as dojo's specs write one: 1s, 1.5s, 250ms.
is_time() {
  [[ $1 =~ ^[0-9]+ms$ || $1 =~ ^[0-9]+(\.[0-9]+)?s$ ]]
}
# The game a checkpoint was trained for (gomoku:15, gomoku:9-15, connect4:saiblo), from the
# sidecar beside it.
model_game() {
  local sidecar=${1%.*}.json
  [ -f "$sidecar" ] || die "$1: no sidecar $sidecar beside it (a dojo checkpoint is FILE.safetensors with FILE.json)"
  sed -n 's/^ *"game": *"\([^"]*\)".*/\1/p' "$sidecar" | head -n 1
}
# An absolute path, so the tournament plays from anywhere.
absolute() {
  echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
}
# The game of the run config $1 (a run's config.toml, or a ladder folder's).
config_game() {
  sed -n 's/^game *= *"\(.*\)".*/\1/p' "$1" | head -n 1
}

# What plays, from the options parsed into `run`, `dir`, `every` and `models`: sets `game`
# (the run's, else the networks', which must agree) and `from` (what it was read from).
ladder_networks() {
  local model other
  for model in "${models[@]}"; do
    [ -f "$model" ] || die "--model $model: no such file"
  done
  if [ -n "$run" ]; then
    [ -f "$run/config.toml" ] || die "$run is not a run directory (no config.toml)"
    [ -z "$dir" ] || die "--dir is for a ladder without a run: the run's ladder is kept in $run/tournaments/"
    game=$(config_game "$run/config.toml")
    from=$run
  else
    [ ${#models[@]} -gt 0 ] || die "name a run, or networks with --model FILE (see --help)"
    [ -z "$every" ] || die "--every-nth-version needs a run"
    game=$(model_game "${models[0]}")
    for model in "${models[@]:1}"; do
      other=$(model_game "$model")
      [ "$other" = "$game" ] || die "--model ${models[0]} is for $game and --model $model for $other: ladder them apart"
    done
    from=${models[0]}
  fi
}

# A ladder without a run is kept in `dir`, a folder dojo takes for a run: a config of the
# board $1 and nothing else. Refuses a folder that holds another board's ladder, or
# anything else.
ladder_check_dir() {
  local board=$1 kept
  if [ -f "$dir/config.toml" ]; then
    kept=$(config_game "$dir/config.toml")
    [ "$kept" = "$board" ] || die "--dir $dir holds a ladder of $kept, not $board: name another --dir"
  elif [ -e "$dir" ] && [ -n "$(ls -A "$dir")" ]; then
    die "--dir $dir is not empty and holds no ladder (no config.toml): name another --dir"
  fi
}

# Makes the folder `dir` checked above, once there is an engine to play: the default
# configuration of the board $1, written whole or not at all, by the dojo binary $2.
ladder_make_dir() {
  local board=$1 dojo=$2
  if [ ! -f "$dir/config.toml" ]; then
    mkdir -p "$dir"
    "$dojo" config --game "$board" >"$dir/config.toml.tmp"
    mv "$dir/config.toml.tmp" "$dir/config.toml"
  fi
}
