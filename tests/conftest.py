"""Shared helpers: run the real mcpspy executable as a subprocess with real pipes."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from mcpspy.capture.reader import Capture, read_capture
from mcpspy.capture.records import LineRecord, Stream

# Timing belongs in benchmarks: a property test asserts behaviour, however loaded the machine is.
settings.register_profile("mcpspy", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("mcpspy")

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "fixtures"
MCPSPY = [sys.executable, "-m", "mcpspy"]


@dataclass
class ProxyRun:
    returncode: int
    stdout: bytes
    stderr: bytes
    capture_path: Path

    @property
    def capture(self) -> Capture:
        return read_capture(self.capture_path)


def replay(capture: Capture, stream: Stream) -> bytes:
    """The bytes a stream carried, rebuilt from the capture's line records."""
    return b"".join(r.wire for r in capture.records if isinstance(r, LineRecord) and r.stream is stream)


def run_proxy(
    tmp_path: Path,
    command: Sequence[str],
    stdin: bytes = b"",
    options: Sequence[str] = (),
    timeout: float = 60,
    env: dict[str, str] | None = None,
) -> ProxyRun:
    capture = tmp_path / f"capture-{len(list(tmp_path.glob('capture-*')))}.jsonl"
    proc = subprocess.run(
        [*MCPSPY, "--capture", str(capture), *options, "--", *command],
        input=stdin,
        capture_output=True,
        timeout=timeout,
        env=env,
    )
    return ProxyRun(proc.returncode, proc.stdout, proc.stderr, capture)


def python_server(script: str) -> list[str]:
    """A server command: an inline Python script."""
    return [sys.executable, "-c", script]


@pytest.fixture
def servers() -> Path:
    return REPO / "tests" / "proxy" / "servers"


@pytest.fixture(autouse=True)
def _own_sessions_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Never write sessions into the real user's state directory."""
    monkeypatch.setenv("MCPSPY_HOME", str(tmp_path_factory.mktemp("sessions")))
    monkeypatch.setenv("PYTHONUNBUFFERED", "1")
    os.environ.pop("XDG_STATE_HOME", None)


def mcpspy_on_path(directory: Path) -> dict[str, str]:
    """An environment whose PATH finds this checkout's mcpspy as `mcpspy` (scripts call it by name)."""
    directory.mkdir(parents=True, exist_ok=True)
    launcher = directory / "mcpspy"
    launcher.write_text(f'#!/bin/sh\nexec {sys.executable} -m mcpspy "$@"\n')
    launcher.chmod(0o755)
    return {**os.environ, "PATH": f"{directory}:{os.environ['PATH']}", "PYTHONPATH": str(REPO)}
