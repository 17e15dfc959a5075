"""scripts/pytest_shards.py: every test file in exactly one shard, balanced by the
recorded seconds, the same split on every run."""

import importlib.util
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _module():
    spec = importlib.util.spec_from_file_location(
        "pytest_shards", os.path.join(ROOT, "scripts", "pytest_shards.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_file_in_one_shard_and_balanced():
    m = _module()
    files = sorted(f for f in os.listdir(os.path.join(ROOT, "python", "tests"))
                   if f.startswith("test_") and f.endswith(".py"))
    split = m.shards(files, 2)
    assert sorted(split[0] + split[1]) == files
    loads = [sum(m.SECONDS.get(f, 10) for f in s) for s in split]
    # Greedy: no shard exceeds the other by more than its heaviest file.
    assert abs(loads[0] - loads[1]) <= max(m.SECONDS.values())
    assert m.shards(list(reversed(files)), 2) == split
    assert m.shards(["a.py"], 3) == [["a.py"], [], []]
