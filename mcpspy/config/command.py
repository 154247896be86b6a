"""`mcpspy wrap` / `mcpspy unwrap`: find a client's config, edit one entry, back it up."""

from __future__ import annotations

import argparse
import difflib
import os
import sys
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcpspy.config.wrap import (
    ConfigError,
    codex_snippet,
    is_wrapped,
    parse,
    servers,
    unwrap_text,
    wrap_text,
)

BACKUP_SUFFIX = ".mcpspy-backup"


@dataclass(frozen=True, slots=True)
class ConfigFile:
    """One place a client keeps its servers: a file and the keys down to the servers object."""

    client: str
    path: Path
    key_path: tuple[str, ...]


def candidates(cwd: Path | None = None, home: Path | None = None) -> list[ConfigFile]:
    """Every config file we know, project ones first, in the order we search them."""
    cwd = cwd or Path.cwd()
    home = home or Path.home()
    if sys.platform == "darwin":
        desktop = home / "Library/Application Support/Claude"
    elif sys.platform == "win32":
        desktop = Path(os.environ.get("APPDATA") or home / "AppData/Roaming") / "Claude"
    else:
        desktop = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config") / "Claude"
    return [
        ConfigFile("Claude Code (project)", cwd / ".mcp.json", ("mcpServers",)),
        ConfigFile("Claude Code (local)", home / ".claude.json", ("projects", str(cwd), "mcpServers")),
        ConfigFile("Claude Code (user)", home / ".claude.json", ("mcpServers",)),
        ConfigFile("Claude Desktop", desktop / "claude_desktop_config.json", ("mcpServers",)),
        ConfigFile("Cursor (project)", cwd / ".cursor" / "mcp.json", ("mcpServers",)),
        ConfigFile("Cursor (user)", home / ".cursor" / "mcp.json", ("mcpServers",)),
        ConfigFile("VS Code (workspace)", cwd / ".vscode" / "mcp.json", ("servers",)),
    ]


def codex_path(home: Path | None = None) -> Path:
    return Path(os.environ.get("CODEX_HOME") or (home or Path.home()) / ".codex") / "config.toml"


def _read(path: Path) -> str:
    try:
        return path.read_bytes().decode("utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path} is not UTF-8") from None


def _named_config(path: Path) -> ConfigFile:
    """The servers object of a file given by --config: `mcpServers`, else VS Code's `servers`."""
    root = parse(_read(path))
    if not isinstance(root, dict):
        raise ConfigError(f"{path}: the top level is not an object")
    for key in ("mcpServers", "servers"):
        if isinstance(root.get(key), dict):
            return ConfigFile("given", path, (key,))
    raise ConfigError(f'{path}: no "mcpServers" or "servers" object')


def _codex_servers(path: Path) -> dict[str, Any]:
    try:
        data = tomllib.loads(_read(path))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    found = data.get("mcp_servers", {})
    return found if isinstance(found, dict) else {}


def _existing(config_path: str | None) -> list[ConfigFile]:
    if config_path:
        return [_named_config(Path(config_path))]
    return [c for c in candidates() if c.path.is_file()]


def _holding(name: str, configs: list[ConfigFile]) -> list[ConfigFile]:
    return [c for c in configs if name in servers(_read(c.path), c.key_path)]


def _write(path: Path, text: str) -> None:
    """Replace the file atomically, keeping its permissions."""
    mode = path.stat().st_mode & 0o7777
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(text.encode("utf-8"))
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _diff(path: Path, old: str, new: str) -> str:
    lines = difflib.unified_diff(
        old.splitlines(keepends=True), new.splitlines(keepends=True), str(path), str(path)
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def _error(message: str) -> int:
    print(f"mcpspy: {message}", file=sys.stderr)
    return 2


def _wrapped_anywhere(text: str) -> bool:
    """Whether any entry of any servers object in the file is already wrapped."""
    root = parse(text)
    objects: list[Any] = [root.get("mcpServers"), root.get("servers")] if isinstance(root, dict) else []
    projects = root.get("projects") if isinstance(root, dict) else None
    if isinstance(projects, dict):
        objects += [p.get("mcpServers") for p in projects.values() if isinstance(p, dict)]
    return any(
        isinstance(e, dict) and is_wrapped(e) for o in objects if isinstance(o, dict) for e in o.values()
    )


def _list(args: argparse.Namespace) -> int:
    configs = _existing(args.config)
    shown = 0
    for c in configs:
        entries = servers(_read(c.path), c.key_path)
        for name, entry in entries.items():
            state = _state(entry)
            print(f"{name:<24} {state:<10} {c.client:<22} {c.path}")
            shown += 1
    codex = codex_path()
    if not args.config and codex.is_file():
        for name, entry in _codex_servers(codex).items():
            state = _state(entry) if isinstance(entry, dict) else "?"
            print(f"{name:<24} {state:<10} {'Codex':<22} {codex}  (wrap --codex prints a snippet)")
            shown += 1
    if not shown:
        print(
            "no MCP server entries found (looked in: "
            + ", ".join(dict.fromkeys(str(c.path) for c in candidates()))
            + f", {codex})",
            file=sys.stderr,
        )
    return 0


def _state(entry: Any) -> str:
    if not isinstance(entry, dict):
        return "?"
    if "url" in entry:
        return "http"
    return "wrapped" if is_wrapped(entry) else "-"


def _codex(name: str) -> int:
    path = codex_path()
    entry = _codex_servers(path).get(name) if path.is_file() else None
    if not isinstance(entry, dict):
        return _error(f"no [mcp_servers.{name}] in {path}")
    if is_wrapped(entry):
        print(f"{name} in {path} already runs through mcpspy", file=sys.stderr)
        return 0
    print(f"# mcpspy does not edit TOML; replace [mcp_servers.{name}] in {path} with:\n", file=sys.stderr)
    sys.stdout.write(codex_snippet(name, entry))
    return 0


def _target(name: str, config_path: str | None) -> ConfigFile | None:
    holding = _holding(name, _existing(config_path))
    if len(holding) > 1:
        where = "\n  ".join(f"{c.client}: {c.path}" for c in holding)
        raise ConfigError(f"{name!r} is in more than one config; pick one with --config:\n  {where}")
    return holding[0] if holding else None


def _run(args: argparse.Namespace, wrapping: bool) -> int:
    if wrapping and args.list:
        return _list(args)
    if not args.name:
        return _error(f"give the server entry's name: mcpspy {'wrap' if wrapping else 'unwrap'} NAME")
    if wrapping and args.codex:
        return _codex(args.name)
    target = _target(args.name, args.config)
    if target is None:
        codex = codex_path()
        if not args.config and codex.is_file() and args.name in _codex_servers(codex):
            return _codex(args.name) if wrapping else _error(f"{args.name!r} is in {codex}: edit it by hand")
        return _error(
            f"no server entry named {args.name!r} in "
            + (args.config or ", ".join(dict.fromkeys(str(c.path) for c in candidates())))
        )
    text = _read(target.path)
    backup = target.path.with_name(target.path.name + BACKUP_SUFFIX)
    if wrapping:
        new = wrap_text(text, target.key_path, args.name)
    else:
        new = unwrap_text(text, target.key_path, args.name, _read(backup) if backup.is_file() else None)
    if args.dry_run:
        sys.stdout.write(_diff(target.path, text, new))
        return 0
    if wrapping and (not backup.is_file() or not _wrapped_anywhere(text)):
        backup.write_bytes(text.encode("utf-8"))
        os.chmod(backup, target.path.stat().st_mode & 0o7777)
    _write(target.path, new)
    verb = "wrapped" if wrapping else "unwrapped"
    print(f"{verb} {args.name!r} in {target.path} ({target.client})")
    if not wrapping and backup.is_file() and _read(backup) == new:
        backup.unlink()
    elif wrapping:
        print(f"backup: {backup}; restart the client to pick up the change")
    return 0


def run_wrap(args: argparse.Namespace) -> int:
    try:
        return _run(args, wrapping=True)
    except ConfigError as exc:
        return _error(str(exc))


def run_unwrap(args: argparse.Namespace) -> int:
    try:
        return _run(args, wrapping=False)
    except ConfigError as exc:
        return _error(str(exc))


def add_wrap_arguments(parser: argparse.ArgumentParser) -> None:
    _add_entry_arguments(parser)
    parser.add_argument("--list", action="store_true", help="list the entries found and which are wrapped")
    parser.add_argument("--codex", action="store_true", help="print the Codex config.toml snippet")


def add_unwrap_arguments(parser: argparse.ArgumentParser) -> None:
    _add_entry_arguments(parser)


def _add_entry_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", nargs="?", help="the server entry's name")
    parser.add_argument("--config", metavar="PATH", help="the config file (default: found)")
    parser.add_argument("--dry-run", action="store_true", help="show the change as a diff, change nothing")
