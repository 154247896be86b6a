"""Where sessions live, what they are called, and which are still live."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from mcpspy.capture.format import CaptureFormatError, decode_header
from mcpspy.capture.private import ensure_private_dir
from mcpspy.capture.records import Header

__all__ = ["ensure_private_dir"]  # re-exported: where callers have always found it

#: Launchers whose first real argument names the server better than they do.
LAUNCHERS = frozenset(
    {
        "node",
        "nodejs",
        "bun",
        "deno",
        "npx",
        "pnpx",
        "bunx",
        "uv",
        "uvx",
        "pipx",
        "python",
        "python3",
        "py",
        "ruby",
        "php",
        "java",
        "sh",
        "bash",
        "zsh",
        "env",
        "docker",
        "podman",
        "npm",
        "pnpm",
        "yarn",
        "tsx",
        "ts-node",
        "poetry",
        "run",
        "exec",
        "tool",
    }
)


def default_sessions_dir(env: Mapping[str, str] | None = None) -> Path:
    """$MCPSPY_HOME, else $XDG_STATE_HOME/mcpspy/sessions, else ~/.local/state/mcpspy/sessions."""
    env = os.environ if env is None else env
    if env.get("MCPSPY_HOME"):
        return Path(env["MCPSPY_HOME"]).expanduser()
    state = env.get("XDG_STATE_HOME") or ""
    if state and os.path.isabs(state):
        return Path(state) / "mcpspy" / "sessions"
    return home_sessions_dir(env)


def home_sessions_dir(env: Mapping[str, str] | None = None) -> Path:
    """The default under HOME, where a client with a filtered environment writes."""
    env = os.environ if env is None else env
    home = env.get("HOME") or os.path.expanduser("~")
    return Path(home) / ".local" / "state" / "mcpspy" / "sessions"


def search_dirs(explicit: str | None = None, env: Mapping[str, str] | None = None) -> list[Path]:
    """Directories to look in for sessions: the named one, or the default and HOME's."""
    if explicit:
        return [Path(explicit).expanduser()]
    dirs = [default_sessions_dir(env), home_sessions_dir(env)]
    unique: list[Path] = []
    for d in dirs:
        if d not in unique:
            unique.append(d)
    return unique


#: Directories a build lands in: ``dist/index.js`` is named by the project above them.
BUILD_DIRS = frozenset({"build", "dist", "out", "src", "bin", "lib", "."})
GENERIC_NAMES = frozenset({"index", "main", "server", "__main__", "cli", "app", "mcp"})


def server_name(command: Sequence[str], cwd: str | None = None) -> str:
    """A short name for the server: ``node /srv/helpdesk/dist/index.js`` -> ``helpdesk``.

    Launchers (``node``, ``env``, ``uv run``), their options and ``NAME=VALUE`` settings are skipped;
    a generic file name (``index.js``) is named by its project: the directory above the build
    directories, or ``cwd`` for a relative path that has none.
    """
    for i, arg in enumerate(command):
        if arg in ("-c", "-e", "--eval") and i > 0:  # an inline script: name it by its launcher
            return os.path.basename(command[0]) + "-inline"
        base = os.path.basename(arg.rstrip("/"))
        if not base or arg.startswith("-") or re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", arg, re.DOTALL):
            continue
        if base.split("@")[0] in LAUNCHERS or re.fullmatch(r"python[\d.]*", base):
            continue
        base = re.sub(r"@[\w.^~<>=-]*$", "", base)  # npm version pins: pkg@1.2.3
        base = re.sub(r"\.(m?[jt]s|cjs|py|rb|sh|exe)$", "", base)
        if base in GENERIC_NAMES and len(command) > 1:
            base = project_name(arg, cwd) or base
        name = re.sub(r"[^A-Za-z0-9._-]+", "-", base).strip("-.")
        if name:
            return name[:40]
    return "server"


def project_name(script: str, cwd: str | None) -> str | None:
    """The directory that names a generic script: its parent, past any build directories."""
    parts = [p for p in os.path.dirname(script.rstrip("/")).split("/") if p]
    while parts and parts[-1] in BUILD_DIRS:
        parts.pop()
    if parts and parts[-1] != "..":
        return parts[-1]
    if not script.startswith("/") and cwd:
        return os.path.basename(os.path.normpath(os.path.join(cwd, *parts))) or None
    return None


def safe_name(name: str) -> str:
    """``--name`` as a file name part: a name, never a path (no separator, no ``..``)."""
    name = re.sub(r"[^\w.-]+", "-", name)  # separators, spaces, controls
    name = re.sub(r"\.{2,}", ".", name).strip(".-")
    return name[:64].rstrip(".-") or "server"


def session_id(started: datetime, name: str, pid: int) -> str:
    """A session's one id, wherever its capture goes: 20261202T193000.123Z-helpdesk-4242."""
    stamp = started.strftime("%Y%m%dT%H%M%S.") + f"{started.microsecond // 1000:03d}Z"
    return f"{stamp}-{safe_name(name)}-{pid}"


def session_file_name(started: datetime, name: str, pid: int) -> str:
    """Its id, so a listing sorts by time and shows the server: 20261202T193000.123Z-helpdesk-4242.jsonl."""
    return session_id(started, name, pid) + ".jsonl"


@dataclass(frozen=True)
class SessionInfo:
    path: Path
    header: Header
    live: bool  # the proxy that writes it is still running

    @property
    def session(self) -> str:
        return self.header.session


def _pid_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError):
        return False
    except PermissionError:
        return True
    return True


STOPPED = b'"event":"proxy-stopped"'
_TAIL = 512  # a proxy-stopped record is under 100 bytes: a longer last line is not one


def _ended(fd: int) -> bool:
    """Whether the capture open on ``fd`` ends with its proxy-stopped record."""
    size = os.fstat(fd).st_size
    tail = os.pread(fd, _TAIL, max(0, size - _TAIL))
    return STOPPED in tail.rstrip(b"\n").rsplit(b"\n", 1)[-1]


def read_header_and_state(fd: int) -> tuple[Header, bool]:
    """The header of the capture open on ``fd``, and whether it is live.

    Live: the proxy that writes it has not written proxy-stopped, and its pid
    is alive (a killed proxy's capture is over, though it never says so).
    """
    first = os.pread(fd, 1 << 20, 0).split(b"\n", 1)[0]
    header = decode_header(first)
    return header, not _ended(fd) and _pid_alive(header.pid)


def capture_is_live(path: Path) -> bool:
    """Whether a proxy is still writing the capture at ``path`` (as ``read_header_and_state`` says);
    False for what cannot be read (reading it will say why)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        return read_header_and_state(fd)[1]
    except (OSError, CaptureFormatError):
        return False
    finally:
        os.close(fd)


def read_session_checked(path: Path) -> SessionInfo | str:
    """Header and liveness of one capture, or why it is not one (a single line)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        return f"{path}: {exc.strerror or exc}"
    try:
        header, live = read_header_and_state(fd)
    except OSError as exc:
        return f"{path}: {exc.strerror or exc}"
    except CaptureFormatError as exc:
        return f"{path}: {exc}"
    finally:
        os.close(fd)
    return SessionInfo(path, header, live)


def read_session(path: Path) -> SessionInfo | None:
    """Header and liveness of one capture; None when it is not a capture."""
    found = read_session_checked(path)
    return found if isinstance(found, SessionInfo) else None


def list_sessions(dirs: Iterable[Path], problems: list[str] | None = None) -> list[SessionInfo]:
    """Every capture in ``dirs``, oldest first; each file that is not one is noted in ``problems``."""
    found: dict[Path, SessionInfo] = {}
    for d in dirs:
        try:
            entries = sorted(d.glob("*.jsonl"))
        except OSError:
            continue
        for path in entries:
            key = path.resolve()
            if key in found:
                continue
            info = read_session_checked(path)
            if isinstance(info, SessionInfo):
                found[key] = info
            elif problems is not None:
                problems.append(info)
    return sorted(found.values(), key=lambda s: (s.header.started, s.path.name))


def find_session(ref: str, dirs: Iterable[Path]) -> SessionInfo | None:
    """A session by path, id, file name or server name (the newest of that name)."""
    candidate = Path(ref).expanduser()
    if candidate.is_file():
        return read_session(candidate)
    sessions = list_sessions(dirs)
    for s in reversed(sessions):
        if ref in (s.session, s.path.name, s.path.stem):
            return s
    for s in reversed(sessions):
        if s.header.name == ref or s.session.startswith(ref):
            return s
    return None
