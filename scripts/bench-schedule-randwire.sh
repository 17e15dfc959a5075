#!/usr/bin/env bash
# Schedules RandWire stages from the Python generator (WS(32,4,0.75), C=78,
# 56x56 input) with serenity-opt --serenity-schedule (dp, default limits) and
# prints one line per seed plus a summary: how many are proven optimal, and
# the dp times. Usage: scripts/bench-schedule-randwire.sh [first-seed] [last-seed]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${SERENITY_BUILD_DIR:-$root/build}"
first="${1:-0}"
last="${2:-29}"
export PYTHONPATH="$root/python"
for seed in $(seq "$first" "$last"); do
  attr="$(/usr/bin/python3 -m serenity gen randwire-stage --seed "$seed" |
    "$build/bin/serenity-opt" --serenity-schedule 2>/dev/null |
    grep -o 'serenity.schedule = {[^}]*}')"
  echo "seed $seed: $attr"
done | /usr/bin/python3 -c '
import re, statistics, sys
lines = sys.stdin.read().splitlines()
times, proven, fast = [], 0, 0
for line in lines:
    print(line)
    ms = int(re.search(r"time_ms = (\d+)", line).group(1))
    ok = "optimal = true" in line
    times.append(ms)
    proven += ok
    fast += ok and ms < 1000
print("%d stages: proven optimal %d, proven in under 1 s %d, dp time median %d ms, max %d ms"
      % (len(lines), proven, fast, statistics.median(times), max(times)))
'
