"""Shared fixtures: tool paths and skips for missing prerequisites."""

import os
import shutil
import subprocess

import pytest

from serenity.driver import ToolNotFoundError, find_serenity_opt
from serenity.networks.darts import default_genotype_file


def _llvm_bindir():
    try:
        return subprocess.run(["llvm-config-22", "--bindir"], capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "/usr/lib/llvm-22/bin"


@pytest.fixture(scope="session")
def mlir_opt():
    path = os.path.join(_llvm_bindir(), "mlir-opt")
    if not os.path.exists(path):
        path = shutil.which("mlir-opt-22") or shutil.which("mlir-opt")
    if not path:
        pytest.skip("mlir-opt (LLVM 22) not found")
    return path


@pytest.fixture(scope="session")
def serenity_opt():
    try:
        return find_serenity_opt()
    except ToolNotFoundError as e:
        pytest.skip("serenity-opt not built: %s" % e)


@pytest.fixture(scope="session")
def have_shared():
    """The DARTS repository's genotype text in ../shared (the package has its
    own copy of the genotypes; only the test comparing the two needs it)."""
    if not os.path.exists(default_genotype_file()):
        pytest.skip("../shared/models/darts is absent (DARTS genotypes); CI has it")
    return True
