"""The commands under test: no proxy, the bare forwarder, mcpspy, and the peers.

The peers (mcphawk, mcp-debugger) live in their own venv, benchmarks/.peers-venv,
never in mcpspy's: they are only measured, never depended on. socat, the C
forwarder a user compares with, comes from the system's package (Debian's,
installed by the run when missing and it may).
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
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


def _socat(server: list[str], scratch: Path) -> list[str]:
    """socat with its defaults (8 KiB blocks), the server on pipes as a stdio client starts it."""
    return [shutil.which("socat") or "socat", "-", "EXEC:" + " ".join(server) + ",pipes"]


def _mcphawk(server: list[str], scratch: Path) -> list[str]:
    return [str(PEERS_VENV / "bin" / "mcphawk"), "wrap", "--", *server]


def _mcp_debugger(server: list[str], scratch: Path) -> list[str]:
    return [str(PEERS_VENV / "bin" / "mcp-debugger"), "proxy", "--server", shlex.join(server)]


DIRECT = Shim("direct", _direct, note="the client talks to the server itself")
BARE = Shim("bare", _bare, note="benchmarks/bare_forwarder.py: two threads, os.read/os.write")
SOCAT = Shim("socat", _socat, note="socat - EXEC:'CMD',pipes (Debian's socat, default 8 KiB blocks)")
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


#: What socat's EXEC address would read as its own syntax (options, address chains, quoting).
SOCAT_SPECIAL = re.compile(r"""[\s,:!"'\\]""")


def ensure_socat(install: bool, server_words: list[str]) -> str | None:
    """Install socat from the system's packages if missing and asked (as root); a skip note, or None."""
    if shutil.which("socat") is None and install and os.geteuid() == 0 and shutil.which("apt-get"):
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        try:
            subprocess.run(
                ["apt-get", "install", "-y", "-q", "socat"],
                capture_output=True, env=env, timeout=600, check=False,
            )  # fmt: skip
        except (OSError, subprocess.TimeoutExpired) as error:
            return f"apt-get install socat failed: {error}"
    if shutil.which("socat") is None:
        how = "apt-get install socat, or run benchmarks/run.py --install-peers as root"
        return f"not installed ({how})"
    if any(SOCAT_SPECIAL.search(word) for word in server_words):
        return "the server's command has characters socat's EXEC address would parse: not measured"
    return None


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
