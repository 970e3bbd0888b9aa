# Sourced (not run) by scripts that document themselves in their opening comment.
# `usage` prints that comment (every line after the `#!` up to the first that is not a
# comment, without its leading "# ") on stdout and exits 0: what --help asks for.
# `usage 2` prints it on stderr and exits 2: the script was called wrongly.
usage() {
  local status=${1:-0}
  if [ "$status" = 0 ]; then
    sed -n '2,${/^#/!q;s/^# \{0,1\}//;p}' "$0"
  else
    sed -n '2,${/^#/!q;s/^# \{0,1\}//;p}' "$0" >&2
  fi
  exit "$status"
}
