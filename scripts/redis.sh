#!/usr/bin/env bash
# Starts a throwaway redis-server for tests and demos: a free loopback
# port, a temporary working directory, no persistence. It is gone when the
# script ends.
#
#   scripts/redis.sh                 print the URL, serve until Ctrl-C
#   scripts/redis.sh CMD [ARGS...]   run CMD with FLOWSERVE_REDIS_URL set to
#                                    the server's URL, then stop the server;
#                                    exit with CMD's status
#
# e.g. scripts/redis.sh sh -c 'flowserve serve --replies "$FLOWSERVE_REDIS_URL" flows/'
#
# The Go tests do not need it: they start their own redis-server
# (replies/redis/redistest). Install redis-server with
# `apt-get install -y redis-server` (Debian, Ubuntu) or `brew install redis`.
set -euo pipefail

bin=${REDIS_SERVER:-redis-server}
if ! command -v "$bin" >/dev/null 2>&1; then
  echo "redis.sh: redis-server is not installed: apt-get install -y redis-server (as root), or brew install redis" >&2
  exit 2
fi

dir=$(mktemp -d "${TMPDIR:-/tmp}/flowserve-redis.XXXXXX")
pid=
stop() {
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  fi
  rm -rf "$dir"
}
trap stop EXIT
trap 'exit 130' INT TERM

# ping PORT: true when the server on PORT answers PING with PONG.
ping() (
  exec 2>/dev/null
  exec 3<>"/dev/tcp/127.0.0.1/$1" || exit 1
  printf 'PING\r\n' >&3
  line=
  read -r -t 1 line <&3 || true
  [ "${line%$'\r'}" = "+PONG" ]
)

port=
for _ in 1 2 3 4 5 6 7 8 9 10; do
  try=$((20000 + RANDOM % 40000))
  ping "$try" && continue # something already answers there
  "$bin" --port "$try" --bind 127.0.0.1 --save '' --appendonly no --dir "$dir" \
    --logfile "$dir/redis.log" --daemonize no &
  pid=$!
  for _ in $(seq 100); do
    if ping "$try"; then port=$try; break; fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.05
  done
  [ -n "$port" ] && break
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  pid=
done
if [ -z "$port" ]; then
  echo "redis.sh: redis-server did not start; its log:" >&2
  cat "$dir/redis.log" >&2 2>/dev/null || true
  exit 1
fi

export FLOWSERVE_REDIS_URL="redis://127.0.0.1:$port/0"
if [ $# -eq 0 ]; then
  echo "$FLOWSERVE_REDIS_URL"
  echo "redis.sh: serving until interrupted (Ctrl-C)" >&2
  wait "$pid"
else
  status=0
  "$@" || status=$?
  exit "$status"
fi
