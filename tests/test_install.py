"""The README's install, from the files of this repository: an sdist and a wheel, the wheel in a fresh venv.

`python -m build` makes the wheel from the sdist, so a file missing from either (a schema, a client
profile, a TUI style) shows up here as a command that fails outside the checkout.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import orjson

from mcpspy import __version__
from tests.conftest import REPO

FAULTY_SERVER = REPO / "tests" / "check" / "servers" / "faulty_server.py"


def tracked_files() -> list[str]:
    done = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True)
    return [name for name in done.stdout.decode().split("\0") if name]


def clean_copy(into: Path) -> Path:
    """The tracked files only: what a clone holds, without .venv, caches or build leftovers."""
    for name in tracked_files():
        source = REPO / name
        if source.is_file() and not source.is_symlink():
            (into / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, into / name)
    return into


def test_the_built_wheel_installs_in_a_fresh_venv_and_runs(tmp_path: Path) -> None:
    clone = clean_copy(tmp_path / "clone")
    dist = tmp_path / "dist"
    built = subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(dist), str(clone)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert built.returncode == 0, built.stderr[-3000:]
    wheels = list(dist.glob("mcpspy-*.whl"))
    assert len(wheels) == 1 and list(dist.glob("mcpspy-*.tar.gz")), sorted(p.name for p in dist.iterdir())
    packaged = set(zipfile.ZipFile(wheels[0]).namelist())
    data_files = {  # schemas, client profiles, styles, py.typed: whatever the package reads besides code
        path.relative_to(clone).as_posix()
        for path in (clone / "mcpspy").rglob("*")
        if path.is_file() and path.suffix != ".py"
    }
    assert data_files and data_files <= packaged, sorted(data_files - packaged)

    venv = tmp_path / "venv"
    subprocess.run(
        [sys.executable, "-m", "venv", str(venv)], check=True, timeout=600
    )  # slow on a loaded host
    install = subprocess.run(
        [str(venv / "bin" / "pip"), "install", "--quiet", str(wheels[0])],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert install.returncode == 0, install.stderr[-3000:]
    mcpspy = str(venv / "bin" / "mcpspy")
    elsewhere = tmp_path / "elsewhere"  # not the checkout: nothing can be imported from it by accident
    elsewhere.mkdir()

    version = subprocess.run([mcpspy, "--version"], capture_output=True, text=True, timeout=60, cwd=elsewhere)
    assert version.stdout.strip() == f"mcpspy {__version__}", version

    demo = subprocess.run(
        [mcpspy, "demo", "--no-tui", "--home", str(tmp_path / "home")],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=elsewhere,
    )
    assert demo.returncode == 0, demo.stderr
    assert "stdout.glued-prefix" in demo.stdout

    server = elsewhere / "server.py"
    shutil.copy(FAULTY_SERVER, server)
    check = subprocess.run(
        [
            mcpspy,
            "check",
            "--home",
            str(tmp_path / "home"),
            "--format",
            "json",
            "--",
            sys.executable,
            str(server),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=elsewhere,
    )
    assert check.returncode == 0, check.stderr + check.stdout[-2000:]
    assert orjson.loads(check.stdout)  # a report, not an error sentence
