#!/usr/bin/env bash
# Compares flowserve with two hand-written peers serving the same flow
# (flows/book_meeting.yaml: three questions, four rounds per run) under the
# same load: bench/peer-gosdk (a go-sdk v1.8.0 tool on its stateless HTTP
# handler) and bench/peer-bare (bare net/http + encoding/json + the same
# ChaCha20-Poly1305 sealing). Servers run one at a time, alternately,
# PASSES times, each under flowbench for DURATION after a warm-up; the
# ratios of the medians are printed. Results are written to $OUT (JSON).
#
#   scripts/bench-compare.sh            # 3 passes of 10s, 16 clients
#   PASSES=5 DURATION=20s CLIENTS=32 scripts/bench-compare.sh
set -euo pipefail
cd "$(dirname "$0")/.."
PASSES=${PASSES:-3}
DURATION=${DURATION:-10s}
WARMUP=${WARMUP:-2s}
CLIENTS=${CLIENTS:-16}
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT"

bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/flowserve" ./cmd/flowserve
go build -o "$bin/flowbench" ./cmd/flowbench
go build -o "$bin/peer-gosdk" ./bench/peer-gosdk
go build -o "$bin/peer-bare" ./bench/peer-bare

declare -A cmd=(
  [flowserve]="$bin/flowserve serve --log-level error --http 127.0.0.1:0 flows/book_meeting.yaml"
  [gosdk]="$bin/peer-gosdk --http 127.0.0.1:0"
  [bare]="$bin/peer-bare --http 127.0.0.1:0"
)

measure() { # name pass
  local name=$1 pass=$2 log="$OUT/$1.$2.server" url=""
  ${cmd[$name]} >"$log" 2>&1 &
  local pid=$!
  for _ in $(seq 1 100); do
    url=$(grep -o 'http://[^ ]*/mcp' "$log" || true)
    [ -n "$url" ] && break
    sleep 0.1
  done
  if [ -z "$url" ]; then echo "$name did not start:"; cat "$log"; kill $pid; exit 1; fi
  "$bin/flowbench" --url "$url" --tool book_meeting -c "$CLIENTS" --duration "$DURATION" --warmup "$WARMUP" --format json >"$OUT/$name.$pass.json"
  kill $pid; wait $pid 2>/dev/null || true
  python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(f\"pass {sys.argv[3]} {sys.argv[2]:9s} {r['rounds_per_sec']:9.0f} rounds/s  p50 {r['p50_ns']/1e6:6.2f} ms  p99 {r['p99_ns']/1e6:6.2f} ms  errors {r['errors']}\")" "$OUT/$name.$pass.json" "$name" "$pass"
}

echo "machine: $(nproc) cores, $(uname -sr); go: $(go version | cut -d' ' -f3); load: $CLIENTS clients, $DURATION per run after $WARMUP warm-up, $PASSES passes"
for pass in $(seq 1 "$PASSES"); do
  for name in flowserve gosdk bare; do
    measure "$name" "$pass"
  done
done

python3 - "$OUT" "$PASSES" <<'PY'
import json, statistics, sys
out, passes = sys.argv[1], int(sys.argv[2])
med = {}
for name in ("flowserve", "gosdk", "bare"):
    rs = [json.load(open(f"{out}/{name}.{p}.json")) for p in range(1, passes + 1)]
    if any(r["errors"] for r in rs):
        sys.exit(f"{name}: errors during the run")
    med[name] = {k: statistics.median(r[k] for r in rs) for k in ("rounds_per_sec", "p50_ns", "p99_ns")}
f, g, b = med["flowserve"], med["gosdk"], med["bare"]
print()
print("median of passes      rounds/s     p50 ms     p99 ms")
for name, m in med.items():
    print(f"  {name:12s} {m['rounds_per_sec']:12.0f} {m['p50_ns']/1e6:10.2f} {m['p99_ns']/1e6:10.2f}")
print()
print(f"flowserve / bare  throughput {f['rounds_per_sec']/b['rounds_per_sec']:.2f}x (target >= 0.80x)   p99 {f['p99_ns']/b['p99_ns']:.2f}x (target <= 1.50x)")
print(f"flowserve / gosdk throughput {f['rounds_per_sec']/g['rounds_per_sec']:.2f}x (target >= 4x)       p99 {f['p99_ns']/g['p99_ns']:.2f}x")
json.dump(med, open(f"{out}/summary.json", "w"), indent=2)
print(f"results: {out}")
PY
