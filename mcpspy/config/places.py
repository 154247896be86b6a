"""Where clients keep their MCP servers, and reading each place on its own.

A place that cannot be read (not JSONC, unreadable, a broken symlink, a
directory) is a ``ConfigError`` naming the file: the caller notes it and goes
on with the others.

Claude Code has three scopes: ``local`` (``~/.claude.json``, under
``projects[<this directory>].mcpServers``), ``project`` (``./.mcp.json``) and
``user`` (``~/.claude.json``, top-level ``mcpServers``).
"""

from __future__ import annotations

import os
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcpspy.config.safefile import Snapshot, read_snapshot
from mcpspy.config.wrap import ConfigError, parse, servers

SCOPES = ("local", "project", "user")


@dataclass(frozen=True, slots=True)
class ConfigFile:
    """One place a client keeps its servers: a file and the keys down to the servers object."""

    client: str
    path: Path
    key_path: tuple[str, ...]


def claude_code(scope: str, cwd: Path, home: Path, path: Path | None = None) -> ConfigFile:
    """Claude Code's servers object of ``scope`` (in ``path`` when given: ``--config``)."""
    if scope == "project":
        return ConfigFile("Claude Code (project)", path or cwd / ".mcp.json", ("mcpServers",))
    if scope == "local":
        return ConfigFile(
            "Claude Code (local)", path or home / ".claude.json", ("projects", str(cwd), "mcpServers")
        )
    return ConfigFile("Claude Code (user)", path or home / ".claude.json", ("mcpServers",))


def candidates(
    cwd: Path | None = None, home: Path | None = None, scope: str | None = None
) -> list[ConfigFile]:
    """Every config we know, project ones first; with ``scope``, only Claude Code's of that scope."""
    cwd = cwd or Path.cwd()
    home = home or Path.home()
    if scope is not None:
        return [claude_code(scope, cwd, home)]
    if sys.platform == "darwin":
        desktop = home / "Library/Application Support/Claude"
    elif sys.platform == "win32":
        desktop = Path(os.environ.get("APPDATA") or home / "AppData/Roaming") / "Claude"
    else:
        desktop = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config") / "Claude"
    return [
        *(claude_code(s, cwd, home) for s in ("project", "local", "user")),
        ConfigFile("Claude Desktop", desktop / "claude_desktop_config.json", ("mcpServers",)),
        ConfigFile("Cursor (project)", cwd / ".cursor" / "mcp.json", ("mcpServers",)),
        ConfigFile("Cursor (user)", home / ".cursor" / "mcp.json", ("mcpServers",)),
        ConfigFile("VS Code (workspace)", cwd / ".vscode" / "mcp.json", ("servers",)),
    ]


def codex_path(home: Path | None = None) -> Path:
    return Path(os.environ.get("CODEX_HOME") or (home or Path.home()) / ".codex") / "config.toml"


def snapshot(path: Path) -> Snapshot:
    """The file's text; ConfigError naming it when it cannot be read as UTF-8."""
    try:
        return read_snapshot(path)
    except FileNotFoundError:
        broken = " (a broken symlink)" if path.is_symlink() else ""
        raise ConfigError(f"{path}: no such file{broken}") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8") from None


def entries(config: ConfigFile) -> dict[str, Any]:
    """The server entries of one place; ConfigError naming the file when it is not a config."""
    text = snapshot(config.path).text
    try:
        return servers(text, config.key_path)
    except ConfigError as exc:
        raise ConfigError(f"{config.path}: {exc}") from None


def named(path: Path, scope: str | None, cwd: Path | None = None) -> list[ConfigFile]:
    """The servers objects of a file given by ``--config``.

    With ``scope``, Claude Code's of that scope. Without, each there is:
    top-level ``mcpServers`` (else VS Code's ``servers``), and Claude Code's
    ``projects[<this directory>].mcpServers``.
    """
    cwd = cwd or Path.cwd()
    if scope is not None:
        return [claude_code(scope, cwd, Path.home(), path)]
    text = snapshot(path).text
    try:
        root = parse(text)
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}") from None
    if not isinstance(root, dict):
        raise ConfigError(f"{path}: the top level is not an object")
    tops = [key for key in ("mcpServers", "servers") if isinstance(root.get(key), dict)]
    found = [ConfigFile("given", path, (key,)) for key in tops[:1]]
    projects = root.get("projects")
    project = projects.get(str(cwd)) if isinstance(projects, dict) else None
    if isinstance(project, dict) and isinstance(project.get("mcpServers"), dict):
        found.append(ConfigFile(f"given (local: {cwd})", path, ("projects", str(cwd), "mcpServers")))
    if not found:
        raise ConfigError(f'{path}: no "mcpServers" or "servers" object')
    return found


def codex_servers(path: Path) -> dict[str, Any]:
    try:
        data = tomllib.loads(snapshot(path).text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    except RecursionError:
        raise ConfigError(f"{path}: nested too deeply to be a config") from None
    found = data.get("mcp_servers", {})
    return found if isinstance(found, dict) else {}
