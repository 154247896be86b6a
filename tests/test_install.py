"""The README's install, from the files of this repository: a fresh venv, `pip install .`, the demo."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO


def tracked_files() -> list[str]:
    done = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True)
    return [name for name in done.stdout.decode().split("\0") if name]


def test_a_fresh_venv_installs_mcpspy_and_runs_the_demo(tmp_path: Path) -> None:
    clone = tmp_path / "clone"
    for name in tracked_files():
        source = REPO / name
        if source.is_file() and not source.is_symlink():
            (clone / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, clone / name)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    install = subprocess.run(
        [str(venv / "bin" / "pip"), "install", "--quiet", "."],
        cwd=clone,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert install.returncode == 0, install.stderr[-3000:]
    demo = subprocess.run(
        [str(venv / "bin" / "mcpspy"), "demo", "--no-tui", "--home", str(tmp_path / "home")],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert demo.returncode == 0, demo.stderr
    assert "stdout.glued-prefix" in demo.stdout
