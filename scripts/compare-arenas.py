#!/usr/bin/python3
"""Arena of serenity-pipeline (default options, exact allocator) for each
network, by two serenity-opt builds: prints a markdown table and exits 1 when
the second build needs more arena bytes than the first on any network.

  scripts/compare-arenas.py OLD/bin/serenity-opt build/bin/serenity-opt NET.mlir...

Networks: e.g. `python3 -m serenity bench --suite SUITE --keep DIR` keeps
every generated network of a suite in DIR. Bytes are the arena alone
(io=caller in both, the default of both builds: inputs and outputs are held
by the caller and are the same for both).
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python"))
from serenity.driver import SerenityOpt, ToolError  # noqa: E402


def arena(tool: str, path: str) -> int:
    try:
        reports, _ = SerenityOpt(tool).pipeline_alloc_reports(path)
    except ToolError as e:
        raise SystemExit(str(e))
    return sum(fn["arena_bytes"] for fn in reports)


def main(argv) -> int:
    if len(argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    old, new, nets = argv[0], argv[1], argv[2:]
    print("| network | arena, first build | arena, second build | change |")
    print("|---|---:|---:|---:|")
    larger = 0
    for net in nets:
        a, b = arena(old, net), arena(new, net)
        larger += b > a
        change = f"{(b - a) / a * 100:+.1f} %" if a else "-"
        print(f"| {os.path.basename(net)} | {a} | {b} | {change} |", flush=True)
    print(f"\n{len(nets)} networks: {larger} larger, "
          f"{sum(1 for _ in nets) - larger} not larger with the second build")
    return 1 if larger else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
