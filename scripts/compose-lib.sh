# Shared by scripts/cluster-test and scripts/network-faults (sourced, not run): brings
# deploy/compose.yaml up on the Docker engine with a tiny net, and the checks both make.
# The sourcing script sets `name` (for messages), `workers`, `limit` and `keep` first, and
# may set `services` (the services to start; default: all that `up` starts).

say() { echo "$name: $*" >&2; }
# On a failure with the stack up, the tail of each service's log says why (CI keeps only
# this script's output).
fail() {
  say "FAILED: $*"
  if [ -n "${project:-}" ]; then
    local service
    for service in learner worker gatekeeper tensorboard prometheus; do
      echo "--- the last 30 lines of $service's log" >&2
      compose logs --no-color --tail=30 "$service" >&2 2>&1 || true
    done
  fi
  exit 1
}
skip() { say "SKIPPED: $* (the compose stack was not tested)"; exit 0; }

# Exits 0 with SKIPPED where no Docker engine or compose can run the stack.
compose_preflight() {
  command -v docker >/dev/null || skip "no docker command"
  docker info >/dev/null 2>&1 || skip "no Docker engine answers"
  if command -v docker-compose >/dev/null; then
    compose_cmd=(docker-compose)
  elif docker compose version >/dev/null 2>&1; then
    compose_cmd=(docker compose)
  else
    skip "neither docker-compose nor docker compose is installed"
  fi
}

compose() { "${compose_cmd[@]}" -p "$project" -f "$root/deploy/compose.yaml" "$@"; }

compose_cleanup() {
  if [ "$keep" = 1 ]; then
    say "left up: project $project (${compose_cmd[*]} -p $project -f deploy/compose.yaml down -v)"
  else
    compose down -v --remove-orphans >/dev/null 2>&1 || true
  fi
  rm -rf "$work"
}

# Builds the image and starts the stack (learner, $workers workers, gatekeeper); sets
# `project`, `work`, `began` and `http` (the learner's published HTTP address).
compose_up() {
  local image=dojo:cluster-test
  # DOJO_IMAGE_PROFILE=dev (scripts/test.sh) reuses the tests' build instead of a release one.
  "$root/scripts/image-build" --tag "$image" --profile "${DOJO_IMAGE_PROFILE:-release}" >&2
  work=$(mktemp -d)
  project=dojotest$$
  trap compose_cleanup EXIT
  head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$work/token"
  # A tiny net and quick publishing, so versions and gating decisions come within seconds.
  cat >"$work/run.toml" <<'EOF'
game = "connect4:7x6"
[net]
blocks = 1
channels = 8
[search]
simulations = 8
[selfplay]
parallel_games = 4
[train]
batch_size = 32
[replay]
max_samples_per_position = 100.0
[learner]
min_positions = 60
publish_every = 5
checkpoint_every = 10
[gating]
every_versions = 2
games = 2
simulations = 8
EOF
  fast_prometheus "$work/prometheus"
  chmod 644 "$work/token" "$work/run.toml" "$work"/prometheus/*
  export DOJO_IMAGE=$image DOJO_CONFIG=$work/run.toml DOJO_TOKEN_FILE=$work/token DOJO_DASHBOARD=127.0.0.1:
  export DOJO_TENSORBOARD=127.0.0.1: DOJO_PROMETHEUS=127.0.0.1: DOJO_PROMETHEUS_CONFIG=$work/prometheus
  began=$(date +%s.%N)
  # shellcheck disable=SC2086 # a list of names
  compose up -d --scale worker="$workers" ${services:-} >&2
  learner_address
}

# deploy/prometheus with its clock sped up, into the folder $1: scrapes, rule evaluations
# and worker discovery every second, every alert's `for:` 2 s, its rate windows 15 s and
# DojoWorkerGone's hour 10 minutes, so an alert fires within seconds of its cause. The
# same rules otherwise: what the test sees firing is what a real stack would fire.
fast_prometheus() {
  local dir=$1 src=$root/deploy/prometheus
  mkdir -p "$dir"
  sed -E 's/^(  (scrape|evaluation)_interval): 15s$/\1: 1s/; s/^( *refresh_interval): 30s$/\1: 1s/' \
    "$src/prometheus.yml" >"$dir/prometheus.yml"
  sed -E 's/^( *for): [0-9]+m$/\1: 2s/; s/\[(10|15)m\]/[15s]/g; s/\[1h\]/[10m]/g' "$src/alerts.yml" >"$dir/alerts.yml"
  # A change to the files that these substitutions miss must not slow the test silently.
  if grep -Eq '(_interval): [0-9]+[^0-9s]|_interval: ([2-9]|[0-9]{2,})s' "$dir/prometheus.yml" ||
    grep -Eq '^ *for: [0-9]+[mh]|\[[0-9]+[h]\]|\[(1[1-9]|[2-9][0-9])m\]' "$dir/alerts.yml"; then
    fail "deploy/prometheus has an interval the test's fast copy does not shorten (see fast_prometheus)"
  fi
}

# The learner's published HTTP address (it changes when its container restarts).
learner_address() {
  http=$(compose port learner 9100)
  [ -n "$http" ] || fail "the learner's HTTP port is not published"
}

# get URL: the body, or exit 1 when there is no 2xx answer within 5 s.
get() { python3 - "$@" <<'EOF'
import sys, urllib.request
try:
    with urllib.request.urlopen(sys.argv[1], timeout=5) as r:
        sys.stdout.write(r.read().decode())
except Exception as e:
    sys.exit(1)
EOF
}
# metric NAME_WITH_LABELS: its value on the learner's page (0 when absent).
metric() {
  get "http://$http/metrics" | awk -v m="$1" '$1 == m {print $2; found=1} END {if (!found) print 0}'
}
elapsed() { python3 -c "import time; print(f'{time.time() - $began:.1f}')"; }
# Fails once the script has run `limit` seconds (plus $1).
in_time() { (( $(date +%s) - ${began%.*} < limit + ${1:-0} )) || fail "$2 within $((limit + ${1:-0}))s"; }

wait_ready() { # the learner's /readyz answers 200; sets `ready` to its text
  until ready=$(get "http://$http/readyz"); do
    in_time 0 "the learner was not ready"
    sleep 0.5
  done
}

# Stops the workers with SIGTERM and checks each exited 0 with its spool delivered, never
# restarted; sets `played` to the games they played in all.
stop_workers() {
  local ids id code summary restarts
  ids=$(compose ps -q worker)
  compose stop -t 40 worker >&2
  played=0
  for id in $ids; do
    code=$(docker inspect -f '{{.State.ExitCode}}' "$id")
    restarts=$(docker inspect -f '{{.RestartCount}}' "$id")
    [ "$code" = 0 ] || fail "worker $id exited $code after SIGTERM"
    [ "$restarts" = 0 ] || fail "worker $id was restarted $restarts times (it exited on its own)"
    summary=$(docker logs "$id" 2>&1 | grep '^worker: played' | tail -1)
    [ -n "$summary" ] || fail "worker $id printed no summary"
    say "worker ${id:0:12}: $summary"
    case $summary in *", 0 left in the spool"*) ;; *) fail "worker $id left games in its spool" ;; esac
    local p d
    p=$(echo "$summary" | sed -n 's/^worker: played \([0-9]*\) games, delivered \([0-9]*\),.*/\1/p')
    d=$(echo "$summary" | sed -n 's/^worker: played \([0-9]*\) games, delivered \([0-9]*\),.*/\2/p')
    [ "$p" = "$d" ] || fail "worker $id played $p games but delivered $d"
    played=$((played + p))
  done
}

# Restarts the learner on the volume and checks it holds exactly `$1` games.
check_games_after_restart() {
  compose stop -t 40 learner >&2
  compose start learner >&2
  learner_address
  wait_ready
  say "restarted learner: $ready"
  local games
  games=$(echo "$ready" | sed -n 's/.*, \([0-9]*\) games stored.*/\1/p')
  [ "$games" = "$1" ] || fail "expected $1 games stored, the restarted learner has ${games:-?}"
}
