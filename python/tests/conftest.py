"""Shared fixtures: the repository root and the crowd command to compare with.

tools/test.sh runs these tests with PYTHONPATH=<build>/python and CROWD_BIN=<build>/crowd."""

import os
import pathlib
import shutil

# Teams of more threads than this machine has cores: idle OpenMP workers sleep instead of spinning
# (read when the runtime loads, so before crowdstep is imported). No result depends on it.
os.environ.setdefault("OMP_WAIT_POLICY", "passive")

import pytest  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def root() -> pathlib.Path:
    return ROOT


@pytest.fixture(scope="session")
def crowd_bin() -> str:
    path = os.environ.get("CROWD_BIN") or shutil.which("crowd")
    if not path:
        pytest.skip("CROWD_BIN (the crowd command) not set")
    return path
