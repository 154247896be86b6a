"""The commands under test: no proxy, the bare forwarder, mcpspy, and the peers.

The peers (mcphawk, mcp-debugger) live in their own venv, benchmarks/.peers-venv,
never in mcpspy's: they are only measured, never depended on.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import venv
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
PEERS_VENV = HERE / ".peers-venv"
PEER_PACKAGES = ("mcphawk==1.0.0", "mcp-debugger")


def mcpspy_python() -> str:
    """The interpreter that has mcpspy installed: the repo's venv, else this one."""
    candidate = REPO / ".venv" / "bin" / "python"
    return str(candidate) if candidate.exists() else sys.executable


@dataclass(frozen=True)
class Shim:
    """A way to put something between the client and a server command."""

    name: str
    wrap: Callable[[list[str], Path], list[str]]  # (server command, scratch dir) -> command to run
    peer: bool = False
    note: str = ""


def _direct(server: list[str], scratch: Path) -> list[str]:
    return server


def _bare(server: list[str], scratch: Path) -> list[str]:
    return [sys.executable, str(HERE / "bare_forwarder.py"), *server]


def _mcpspy(server: list[str], scratch: Path) -> list[str]:
    capture = scratch / f"mcpspy-{len(list(scratch.glob('mcpspy-*')))}.jsonl"
    return [mcpspy_python(), "-m", "mcpspy", "--capture", str(capture), "--", *server]


def _mcphawk(server: list[str], scratch: Path) -> list[str]:
    return [str(PEERS_VENV / "bin" / "mcphawk"), "wrap", "--", *server]


def _mcp_debugger(server: list[str], scratch: Path) -> list[str]:
    return [str(PEERS_VENV / "bin" / "mcp-debugger"), "proxy", "--server", shlex.join(server)]


DIRECT = Shim("direct", _direct, note="the client talks to the server itself")
BARE = Shim("bare", _bare, note="benchmarks/bare_forwarder.py: two threads, os.read/os.write")
MCPSPY = Shim("mcpspy", _mcpspy, note="mcpspy --capture FILE -- CMD (capture on)")
PEERS = (
    Shim("mcphawk", _mcphawk, peer=True, note="mcphawk wrap -- CMD (PyPI mcphawk 1.0)"),
    Shim("mcp-debugger", _mcp_debugger, peer=True, note='mcp-debugger proxy --server "CMD"'),
)


def ensure_peers(install: bool) -> dict[str, str]:
    """Make the peers' venv if asked; return a skip note for each peer that is missing."""
    notes: dict[str, str] = {}
    if install and not (PEERS_VENV / "bin" / "python").exists():
        try:
            venv.EnvBuilder(with_pip=True).create(PEERS_VENV)
        except Exception as error:
            return {p.name: f"could not create {PEERS_VENV}: {error}" for p in PEERS}
    if install:
        pip = [str(PEERS_VENV / "bin" / "python"), "-m", "pip", "install", "--quiet"]
        for package, shim in zip(PEER_PACKAGES, PEERS, strict=True):
            if (PEERS_VENV / "bin" / shim.name).exists():
                continue
            done = subprocess.run([*pip, package], capture_output=True, text=True, check=False)
            if done.returncode != 0:
                notes[shim.name] = f"pip install {package} failed: {done.stderr.strip()[-200:]}"
    for shim in PEERS:
        if shim.name not in notes and not (PEERS_VENV / "bin" / shim.name).exists():
            notes[shim.name] = (
                f"not installed (run benchmarks/run.py --install-peers, into {PEERS_VENV.name})"
            )
    return notes


def peer_env(scratch: Path) -> dict[str, str]:
    """The environment every command runs in; HOME points at scratch so peers' databases land there."""
    env = dict(os.environ)
    home = scratch / "home"
    home.mkdir(exist_ok=True)
    env.update(
        HOME=str(home),
        XDG_STATE_HOME=str(home / "state"),
        XDG_DATA_HOME=str(home / "data"),
        XDG_CONFIG_HOME=str(home / "config"),
        XDG_CACHE_HOME=str(home / "cache"),
        MCPSPY_HOME=str(home / "mcpspy"),
    )
    return env
