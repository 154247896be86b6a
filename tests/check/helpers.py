"""Run the real `mcpspy check` executable against real servers, and read what it said."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
FAULTY = [sys.executable, str(HERE / "servers" / "faulty_server.py")]
PY_SDK_SERVER = [sys.executable, str(REPO / "tests" / "clients" / "servers" / "py_server.py")]
# Installed by .ci/clients/install.sh; a worktree may link tests/clients/node_modules to another's.
NODE_MODULES = next(
    (
        d
        for d in (REPO / ".ci" / "clients" / "node_modules", REPO / "tests" / "clients" / "node_modules")
        if d.is_dir()
    ),
    REPO / ".ci" / "clients" / "node_modules",
)
EVERYTHING = [str(NODE_MODULES / ".bin" / "mcp-server-everything")]
DEMO = [sys.executable, "-m", "mcpspy.demo.server"]
SARIF_SCHEMA = HERE / "sarif-schema-2.1.0.json"


@dataclass
class CheckResult:
    returncode: int
    stdout: str
    stderr: str

    @property
    def report(self) -> dict[str, Any]:
        parsed: dict[str, Any] = json.loads(self.stdout)
        return parsed

    def status(self, check_id: str, era: str) -> str:
        [found] = [c for c in self.report["checks"] if c["id"] == check_id and c["era"] == era]
        return str(found["status"])

    def check(self, check_id: str, era: str) -> dict[str, Any]:
        [found] = [c for c in self.report["checks"] if c["id"] == check_id and c["era"] == era]
        return found

    def not_passed(self) -> dict[tuple[str, str], str]:
        """(check id, era) -> status, for every check that did not pass or skip."""
        return {
            (c["id"], c["era"]): c["status"] for c in self.report["checks"] if c["status"] in ("fail", "warn")
        }


def check_command(home: Path, server: Sequence[str], *options: str, fmt: str = "json") -> list[str]:
    """The real `mcpspy check` command line, with its own sessions directory."""
    return [
        sys.executable,
        "-m",
        "mcpspy",
        "check",
        "--home",
        str(home),
        "--format",
        fmt,
        *options,
        "--",
        *server,
    ]


def run_check(
    home: Path, server: Sequence[str], *options: str, timeout: float = 120, fmt: str = "json"
) -> CheckResult:
    argv = check_command(home, server, *options, fmt=fmt)
    done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False)
    return CheckResult(done.returncode, done.stdout, done.stderr)


def faulty(*faults: str) -> list[str]:
    return [*FAULTY, *(arg for fault in faults for arg in ("--fault", fault))]
