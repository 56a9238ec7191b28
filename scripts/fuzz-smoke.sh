#!/usr/bin/env bash
# Runs every fuzz target in the module for a short time each (10 s by
# default; FUZZTIME=1m scripts/fuzz-smoke.sh for longer), one worker at a
# time. Targets are found with grep, so a new `func FuzzX(f *testing.F)`
# in any *_test.go is picked up without editing this script. A failure
# leaves the crashing input in <package>/testdata/fuzz/<FuzzX>/: commit it
# with the fix, and it becomes a seed that `go test` runs every time.
# Minimizing an input is capped at 2 s (Go's default is a minute, which
# outlasts a short run and ends it with "context deadline exceeded").
set -euo pipefail
cd "$(dirname "$0")/.."

fuzztime=${FUZZTIME:-10s}
targets=$(grep -r --include='*_test.go' -o '^func Fuzz[A-Za-z0-9_]*' . \
  | grep -v '/\.' | sed -e 's#^\./##' -e 's#:func # #' | sort)
if [ -z "$targets" ]; then
  echo "fuzz-smoke: no fuzz targets found" >&2
  exit 1
fi

n=0
while read -r file name; do
  pkg=./$(dirname "$file")
  echo "fuzz-smoke: $name in $pkg for $fuzztime"
  log=$(mktemp)
  if ! go test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" -fuzzminimizetime 2s -parallel 1 "$pkg" 2>&1 | tee "$log"; then
    # A real finding (a crash, a failed check) writes its input to
    # testdata/fuzz. Go's fuzzer can also fail with "context deadline
    # exceeded" when -fuzztime ends while a worker is busy (minimizing, or
    # on a slow machine); that is no finding, so it is retried once.
    if grep -q 'Failing input written to' "$log" || ! grep -q 'context deadline exceeded' "$log"; then
      rm -f "$log"
      exit 1
    fi
    echo "fuzz-smoke: $name stopped at its deadline without a finding; trying again"
    go test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" -fuzzminimizetime 2s -parallel 1 "$pkg" 2>&1 | tee "$log" || {
      if grep -q 'Failing input written to' "$log" || ! grep -q 'context deadline exceeded' "$log"; then
        rm -f "$log"
        exit 1
      fi
      echo "fuzz-smoke: warning: $name stopped at its deadline twice without a finding"
    }
  fi
  rm -f "$log"
  n=$((n + 1))
done <<<"$targets"
echo "fuzz-smoke: $n targets passed"
