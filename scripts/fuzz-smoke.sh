#!/usr/bin/env bash
# Runs every fuzz target in the module for a short time each (10 s by
# default; FUZZTIME=1m scripts/fuzz-smoke.sh for longer), one worker at a
# time. Targets are found with grep, so a new `func FuzzX(f *testing.F)`
# in any *_test.go is picked up without editing this script. A failure
# leaves the crashing input in <package>/testdata/fuzz/<FuzzX>/: commit it
# with the fix, and it becomes a seed that `go test` runs every time.
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
  go test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" -parallel 1 "$pkg"
  n=$((n + 1))
done <<<"$targets"
echo "fuzz-smoke: $n targets passed"
