"""scripts/compare-arenas.py: the table of two builds' arenas and its exit
status (1 when the second build needs more on any network)."""

import os
import stat
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "scripts", "compare-arenas.py")


def generate(tmp_path, name, *args):
    path = str(tmp_path / (name + ".mlir"))
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    subprocess.run([sys.executable, "-m", "serenity", "gen", name, *args, "-o", path],
                   check=True, env=env)
    return path


def test_same_build_is_not_larger(tmp_path, serenity_opt):
    net = generate(tmp_path, "resnet8", "--dtype", "i8")
    run = subprocess.run([sys.executable, SCRIPT, serenity_opt, serenity_opt, net],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    # Default pipeline: fused tiling on (docs/Tiling.md).
    assert "| resnet8.mlir | 29184 | 29184 | +0.0 % |" in run.stdout
    assert "1 networks: 0 larger" in run.stdout


def test_larger_arena_fails(tmp_path, serenity_opt):
    """A 'second build' that lowers without fused requantization needs more."""
    net = generate(tmp_path, "resnet8", "--dtype", "i8")
    # The wrapper passes fuse-requantization=0 in the pipeline option.
    wrapper = tmp_path / "unfused-serenity-opt"
    wrapper.write_text("#!/usr/bin/python3\nimport subprocess, sys\n"
                       "args = [a.replace('--serenity-pipeline=', '--serenity-pipeline=fuse-requantization=0 ')"
                       " for a in sys.argv[1:]]\n"
                       "sys.exit(subprocess.run([%r] + args).returncode)\n" % serenity_opt)
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IEXEC)
    run = subprocess.run([sys.executable, SCRIPT, serenity_opt, str(wrapper), net],
                         capture_output=True, text=True)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "| resnet8.mlir | 29184 | 86144 |" in run.stdout
    assert "1 larger" in run.stdout


def test_usage():
    run = subprocess.run([sys.executable, SCRIPT], capture_output=True, text=True)
    assert run.returncode == 2 and "compare-arenas.py OLD" in run.stderr
