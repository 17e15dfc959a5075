"""Small .tflite test models, one or a few operators each, for the importer.

Each group module (``base``, ``shape``, ``elementwise``, ``table``, ``reduce``)
registers builders with :func:`model`. ``python3 -m serenity tflite-test-models
OUTDIR`` writes them as ``OUTDIR/models/NAME.tflite`` and, given TensorFlow
Lite Micro's oracle (``../shared/tools/tflm-oracle``), its outputs for seeded
inputs in the layout of ``../shared/bench/tflm`` (``OUTDIR/reference``). The
committed copy lives in ``test/tflite-ops``; ``opcheck.py`` compares the
import with it.
"""

import importlib
import os
import subprocess
import sys
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional

from ..writer import ModelWriter

GROUPS = ("base", "shape", "elementwise", "table", "reduce", "composite", "svdf", "lstm", "int16")


@dataclass
class TestModel:
    name: str
    group: str
    build: Callable[[], ModelWriter]
    refs_args: List[str] = field(default_factory=list)  # extra make_refs.py options


REGISTRY: Dict[str, TestModel] = {}


def model(group: str, name: str, refs_args=()):
    """Decorator registering a builder (returning a ModelWriter) as test model ``name``."""
    def register(fn):
        if name in REGISTRY:
            raise ValueError(f"test model {name} is registered twice")
        REGISTRY[name] = TestModel(name, group, fn, list(refs_args))
        return fn
    return register


def load(groups=GROUPS) -> Dict[str, TestModel]:
    for g in groups:
        importlib.import_module(f"{__name__}.{g}")
    return {k: v for k, v in REGISTRY.items() if v.group in groups}


def write_models(outdir: str, groups=GROUPS, names: Optional[List[str]] = None,
                 oracle: Optional[str] = None, make_refs: Optional[str] = None) -> List[str]:
    """Writes the models (and, with an oracle, their references); returns the paths."""
    os.makedirs(os.path.join(outdir, "models"), exist_ok=True)
    paths = []
    for name, tm in sorted(load(groups).items()):
        if names and name not in names:
            continue
        path = os.path.join(outdir, "models", name + ".tflite")
        with open(path, "wb") as f:
            f.write(tm.build().finish())
        paths.append(path)
        if oracle:
            cmd = [sys.executable, make_refs, path, outdir, "--oracle", oracle, "--seeds", "0,1",
                   "--near-zp-seeds", "10", "--dump-seeds", ""] + tm.refs_args
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode != 0:
                raise RuntimeError(f"make_refs.py failed on {name}:\n{r.stdout}{r.stderr}")
    return paths


def main(args) -> int:
    groups = tuple(args.group) if args.group else GROUPS
    make_refs = args.make_refs or os.path.join(
        os.path.dirname(__file__), *[".."] * 4, "..", "shared", "tools", "tflm-oracle",
        "make_refs.py")
    paths = write_models(args.outdir, groups, args.name, args.oracle, os.path.normpath(make_refs))
    print(f"{len(paths)} models written to {args.outdir}/models"
          + (" with references" if args.oracle else ""))
    return 0
