"""`mcpspy wrap` / `mcpspy unwrap`: find a client's config, edit one entry, back it up."""

from __future__ import annotations

import argparse
import difflib
import os
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcpspy.config.safefile import (
    ConfigChanged,
    LockTimeout,
    Snapshot,
    create_backup,
    locked,
    read_snapshot,
    real_path,
    replace,
)
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
ATTEMPTS = 5  # reads of a config that keeps changing under us before giving up


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


def _snapshot(path: Path) -> Snapshot:
    try:
        return read_snapshot(path)
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path} is not UTF-8") from None


def _read(path: Path) -> str:
    return _snapshot(path).text


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
    except RecursionError:
        raise ConfigError(f"{path}: nested too deeply to be a config") from None
    found = data.get("mcp_servers", {})
    return found if isinstance(found, dict) else {}


def _existing(config_path: str | None) -> list[ConfigFile]:
    if config_path:
        return [_named_config(Path(config_path))]
    return [c for c in candidates() if c.path.is_file()]


def _holding(name: str, configs: list[ConfigFile]) -> list[ConfigFile]:
    return [c for c in configs if name in servers(_read(c.path), c.key_path)]


def _diff(path: Path, old: str, new: str) -> str:
    lines = difflib.unified_diff(
        old.splitlines(keepends=True), new.splitlines(keepends=True), str(path), str(path)
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def _error(message: str) -> int:
    print(f"mcpspy: {message}", file=sys.stderr)
    return 2


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
    real = real_path(target.path)
    if args.dry_run:
        text = _read(real)
        sys.stdout.write(_diff(target.path, text, _edited(text, target, args.name, wrapping, real)))
        return 0
    try:
        with locked(real):
            backed_up = _edit(real, target, args.name, wrapping)
    except LockTimeout:
        raise ConfigError(f"another mcpspy is editing {real}; try again") from None
    except OSError as exc:
        raise ConfigError(f"cannot write {real}: {exc.strerror or exc}") from None
    verb = "wrapped" if wrapping else "unwrapped"
    where = f"{target.path}" + (f" (a symlink: edited {real})" if target.path.is_symlink() else "")
    print(f"{verb} {args.name!r} in {where} ({target.client})")
    if wrapping:
        kept = "" if backed_up else " (kept from an earlier wrap)"
        print(f"backup: {_backup(real)}{kept}; restart the client to pick up the change")
    return 0


def _backup(real: Path) -> Path:
    return real.with_name(real.name + BACKUP_SUFFIX)


def _edited(text: str, target: ConfigFile, name: str, wrapping: bool, real: Path) -> str:
    if wrapping:
        return wrap_text(text, target.key_path, name)
    backup = _backup(real)
    return unwrap_text(text, target.key_path, name, _read(backup) if backup.is_file() else None)


def _edit(real: Path, target: ConfigFile, name: str, wrapping: bool) -> bool:
    """Under the lock: read, change, back up (once), replace; again if the file changed meanwhile.

    Returns whether this wrap made the backup (False: one was there already).
    """
    backed_up = False
    for _ in range(ATTEMPTS):
        read = _snapshot(real)
        new = _edited(read.text, target, name, wrapping, real)
        backed_up = (wrapping and create_backup(_backup(real), read.text, read.mode)) or backed_up
        try:
            replace(real, new, read)
        except ConfigChanged:
            continue
        backup = _backup(real)
        if not wrapping and backup.is_file() and _read(backup) == new:
            backup.unlink()  # back where it started: the backup has done its job
        return backed_up
    raise ConfigError(f"{real} keeps changing while mcpspy edits it; try again")


def _guarded(args: argparse.Namespace, wrapping: bool) -> int:
    """Every bad config or unwritable place is one line and exit 2, never a traceback."""
    try:
        return _run(args, wrapping)
    except ConfigError as exc:
        return _error(str(exc))
    except OSError as exc:
        return _error(f"{exc.filename or 'config'}: {exc.strerror or exc}")


def run_wrap(args: argparse.Namespace) -> int:
    return _guarded(args, wrapping=True)


def run_unwrap(args: argparse.Namespace) -> int:
    return _guarded(args, wrapping=False)


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
