"""The examples run and write their pictures (short runs)."""

import pathlib
import subprocess
import sys

import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parents[1] / "examples"

pytest.importorskip("matplotlib")


@pytest.mark.parametrize(
    "script, args, png",
    [
        ("evacuation.py", ["--ticks", "150", "--threads", "2"], "evacuation.png"),
        ("fundamental_diagram.py", ["--quick", "--threads", "2"], "fundamental_diagram.png"),
    ],
)
def test_example_writes_png(tmp_path, script, args, png):
    out = subprocess.run(
        [sys.executable, str(EXAMPLES / script), "--out", str(tmp_path), *args],
        capture_output=True, text=True, timeout=120,
    )
    assert out.returncode == 0, out.stderr
    data = (tmp_path / png).read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10000
