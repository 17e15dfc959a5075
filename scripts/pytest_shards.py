#!/usr/bin/env python3
"""Splits python/tests into N shards of about equal run time, for scripts/test.sh
to run as N pytest processes side by side (pytest itself runs one test at a time,
and most tests wait on one single-threaded subprocess: on 2 cores, 2 shards take
about half the time).

Usage: pytest_shards.py N K   prints the test files of shard K (0-based), one per line.
The split is greedy, heaviest first, by the seconds in SECONDS (a clean run's
junit times, rounded; a file not listed counts 10 s), so it is the same on every
machine. Re-measure with the junit XML of scripts/test.sh when files change a lot.
"""
import os
import sys

SECONDS = {
    "test_tflite_examples.py": 600, "test_tflite_ops.py": 330, "test_reproducible.py": 250,
    "test_zoo_models.py": 100, "test_tflite_sequence.py": 80, "test_tflite_models.py": 65,
    "test_tflite_tflm.py": 65, "test_profile_pareto.py": 40, "test_frontier.py": 35,
    "test_code_size.py": 35, "test_generators.py": 25, "test_select_enumeration.py": 20,
    "test_fuzz.py": 20, "test_in_place_convs.py": 15, "test_plot_bench.py": 12,
    "test_bench_suites.py": 10,
}


def shards(files, n):
    """Greedy: each file, heaviest first (ties by name), to the lightest shard."""
    bins = [[0, k, []] for k in range(n)]
    for f in sorted(files, key=lambda f: (-SECONDS.get(f, 10), f)):
        lightest = min(bins, key=lambda b: (b[0], b[1]))
        lightest[0] += SECONDS.get(f, 10)
        lightest[2].append(f)
    return [sorted(b[2]) for b in bins]


def main(argv):
    if len(argv) != 3 or not argv[1].isdigit() or not argv[2].isdigit() or int(argv[2]) >= int(argv[1]):
        sys.exit("usage: pytest_shards.py N K (0 <= K < N)")
    tests = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python", "tests")
    files = [f for f in os.listdir(tests) if f.startswith("test_") and f.endswith(".py")]
    for f in shards(files, int(argv[1]))[int(argv[2])]:
        print(os.path.join("python", "tests", f))


if __name__ == "__main__":
    main(sys.argv)
