"""`mcpspy wrap` / `mcpspy unwrap`: find a client's config, edit one entry, back it up."""

from __future__ import annotations

import argparse
import difflib
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcpspy.capture.private import CaptureRefused, ensure_private_dir
from mcpspy.config.backups import backup_path, legacy_backup_path
from mcpspy.config.places import (
    SCOPES,
    ConfigFile,
    candidates,
    codex_path,
    codex_servers,
    entries,
    named,
    snapshot,
)
from mcpspy.config.safefile import (
    ConfigChanged,
    LockTimeout,
    LockUnusable,
    create_backup,
    locked,
    real_path,
    replace,
)
from mcpspy.config.self_path import running_mcpspy
from mcpspy.config.wrap import ConfigError, codex_snippet, is_wrapped, unwrap_text, wrap_text
from mcpspy.exit_codes import fail
from mcpspy.terminal import visible, visible_line

ATTEMPTS = 5  # reads of a config that keeps changing under us before giving up


@dataclass(frozen=True, slots=True)
class Found:
    """A place that could be read, and its server entries."""

    config: ConfigFile
    entries: dict[str, Any]


PROG = "mcpspy"


def _gather(args: argparse.Namespace) -> tuple[list[Found], list[str]]:
    """Every place that could be read, and one line for each that could not (never blocking the rest)."""
    if args.config:
        configs = named(Path(args.config), args.scope)
    else:
        configs = [c for c in candidates(scope=args.scope) if os.path.lexists(c.path)]
    found: list[Found] = []
    problems: list[str] = []
    for config in configs:
        try:
            found.append(Found(config, entries(config)))
        except ConfigError as exc:
            if str(exc) not in problems:
                problems.append(str(exc))
    if args.config and problems:
        raise ConfigError(problems[0])  # the one file asked for: that is the answer
    return found, problems


def _note(problems: list[str]) -> None:
    for problem in problems:
        print(f"mcpspy: skipped {visible_line(problem)}", file=sys.stderr)


def _proxy(args: argparse.Namespace) -> str:
    """What wrap writes as the command: --command, else the running mcpspy's absolute path."""
    if args.proxy_command:
        return str(args.proxy_command)
    found = running_mcpspy()
    if found is None:
        raise ConfigError("cannot find this mcpspy's executable to write; give it with --command PATH")
    return found


def _diff(path: Path, old: str, new: str) -> str:
    lines = difflib.unified_diff(
        old.splitlines(keepends=True), new.splitlines(keepends=True), str(path), str(path)
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def _write_config_text(text: str) -> None:
    """A diff or snippet of a config (a cloned project's may hold anything): exact into a pipe or file,
    for patch or an editor; its controls made visible on a terminal."""
    sys.stdout.write(visible(text) if sys.stdout.isatty() else text)


def _list(args: argparse.Namespace) -> int:
    """Every entry that can be read; a note for each file that cannot. Exit 0: the listing is complete."""
    found, problems = _gather(args)
    shown = 0
    for place in found:
        for name, entry in place.entries.items():
            state = _state(entry, args.proxy_command)
            path = visible_line(str(place.config.path))
            print(f"{visible_line(name):<24} {state:<10} {place.config.client:<22} {path}")
            shown += 1
    codex = codex_path()
    if not args.config and args.scope is None and os.path.lexists(codex):
        try:
            listed = codex_servers(codex)
        except ConfigError as exc:
            problems.append(str(exc))
            listed = {}
        for name, entry in listed.items():
            state = _state(entry, args.proxy_command)
            print(
                f"{visible_line(name):<24} {state:<10} {'Codex':<22} {codex}  (wrap --codex prints a snippet)"
            )
            shown += 1
    _note(problems)
    if not shown and not problems:
        looked = [str(c.path) for c in candidates(scope=args.scope)] + [str(codex)]
        places = ", ".join(dict.fromkeys(looked))
        print(visible_line(f"no MCP server entries found (looked in: {places})"), file=sys.stderr)
    return 0


def _state(entry: Any, proxy: str | None) -> str:
    if not isinstance(entry, dict):
        return "?"
    if "url" in entry:
        return "http"
    return "wrapped" if is_wrapped(entry, proxy) else "-"


def _codex(name: str, proxy: str) -> int:
    path = codex_path()
    entry = codex_servers(path).get(name) if os.path.lexists(path) else None
    if not isinstance(entry, dict):
        return fail(PROG, f"no [mcp_servers.{name}] in {path}")
    if is_wrapped(entry, proxy):
        print(visible_line(f"{name} in {path} already runs through mcpspy"), file=sys.stderr)
        return 0
    said = visible_line(f"# mcpspy does not edit TOML; replace [mcp_servers.{name}] in {path} with:")
    print(f"{said}\n", file=sys.stderr)
    _write_config_text(codex_snippet(name, entry, proxy))
    return 0


def _target(args: argparse.Namespace) -> ConfigFile | None:
    """The one place holding the entry; notes each unreadable place on the way."""
    found, problems = _gather(args)
    _note(problems)
    holding = [place.config for place in found if args.name in place.entries]
    if len(holding) > 1:
        where = "; ".join(f"{c.client}: {c.path}" for c in holding)
        claude = all(c.client.startswith(("Claude Code", "given")) for c in holding)
        pick = "--scope local|project|user or --config PATH" if claude else "--config PATH"
        raise ConfigError(f"{args.name!r} is in more than one config ({where}); pick one with {pick}")
    if holding:
        return holding[0]
    if not args.config and args.scope is None:
        codex = codex_path()
        try:
            if os.path.lexists(codex) and args.name in codex_servers(codex):
                return None
        except ConfigError as exc:
            problems.append(str(exc))
            _note(problems[-1:])
    looked = args.config or ", ".join(dict.fromkeys(str(c.path) for c in candidates(scope=args.scope)))
    unread = f"; {len(problems)} could not be read (above)" if problems else ""
    raise ConfigError(f"no server entry named {args.name!r} in {looked}{unread}")


def _run(args: argparse.Namespace, wrapping: bool) -> int:
    if wrapping and args.list:
        return _list(args)
    if not args.name:
        return fail(PROG, f"give the server entry's name: mcpspy {'wrap' if wrapping else 'unwrap'} NAME")
    proxy = _proxy(args) if wrapping else args.proxy_command
    if wrapping and args.codex:
        return _codex(args.name, proxy)
    target = _target(args)
    if target is None:  # only in Codex's TOML
        return (
            _codex(args.name, proxy)
            if wrapping
            else fail(PROG, f"{args.name!r} is in {codex_path()}: edit it by hand")
        )
    real = real_path(target.path)
    if args.dry_run:
        text = snapshot(real).text
        _write_config_text(_diff(target.path, text, _edited(text, target, args.name, proxy, wrapping, real)))
        return 0
    try:
        with locked(real):
            backup, made = _edit(real, target, args.name, proxy, wrapping)
    except LockTimeout:
        raise ConfigError(f"another mcpspy is editing {real}; try again") from None
    except LockUnusable as exc:
        raise ConfigError(f"cannot take the edit lock {exc}; remove it if no mcpspy is running") from None
    except OSError as exc:
        raise ConfigError(f"cannot write {real}: {exc.strerror or exc}") from None
    verb = "wrapped" if wrapping else "unwrapped"
    where = f"{target.path}" + (f" (a symlink: edited {real})" if target.path.is_symlink() else "")
    print(visible_line(f"{verb} {args.name!r} in {where} ({target.client})"))
    if wrapping:
        print(visible_line(f"command: {proxy}"))
        kept = "" if made else " (kept from an earlier wrap)"
        print(visible_line(f"backup: {backup}{kept}; restart the client to pick up the change"))
    elif backup is not None:
        print(visible_line(f"removed the backup {backup}: the file is as it was before wrap"))
    return 0


def _read_backup(path: Path) -> str | None:
    """A backup's text, never through a symlink; None when there is none to read."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        with os.fdopen(fd, "rb") as f:
            return f.read().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _backups(real: Path) -> list[Path]:
    """Where a backup of ``real`` may be: the state dir's, then an older version's beside it."""
    return [backup_path(real), legacy_backup_path(real)]


def _edited(text: str, target: ConfigFile, name: str, proxy: str | None, wrapping: bool, real: Path) -> str:
    if wrapping:
        return wrap_text(text, target.key_path, name, proxy or "mcpspy")
    texts = [t for t in map(_read_backup, _backups(real)) if t is not None]
    return unwrap_text(text, target.key_path, name, texts[0] if texts else None, proxy)


def _make_backup(path: Path, text: str) -> bool:
    try:
        ensure_private_dir(path.parent)
    except (CaptureRefused, OSError) as exc:
        raise ConfigError(f"cannot keep a backup in {path.parent}: {exc}") from None
    return create_backup(path, text, 0o600)


def _edit(
    real: Path, target: ConfigFile, name: str, proxy: str | None, wrapping: bool
) -> tuple[Path | None, bool]:
    """Under the lock: read, change, back up (once), replace; again if the file changed meanwhile.

    Wrap returns the backup and whether this wrap made it (False: one was
    there already); unwrap, the backup it removed (the file is back as it was).
    """
    made = False
    for _ in range(ATTEMPTS):
        read = snapshot(real)
        new = _edited(read.text, target, name, proxy, wrapping, real)
        if wrapping:
            made = _make_backup(backup_path(real), read.text) or made
        try:
            replace(real, new, read)
        except ConfigChanged:
            continue
        if wrapping:
            return backup_path(real), made
        for backup in _backups(real):
            if _read_backup(backup) == new:
                backup.unlink()  # back where it started: the backup has done its job
                return backup, False
        return None, False
    raise ConfigError(f"{real} keeps changing while mcpspy edits it; try again")


def _guarded(args: argparse.Namespace, wrapping: bool) -> int:
    """Every bad config or unwritable place is one line and exit 2, never a traceback."""
    try:
        return _run(args, wrapping)
    except ConfigError as exc:
        return fail(PROG, str(exc))
    except OSError as exc:
        return fail(PROG, f"{exc.filename or 'config'}: {exc.strerror or exc}")


def run_wrap(args: argparse.Namespace) -> int:
    return _guarded(args, wrapping=True)


def run_unwrap(args: argparse.Namespace) -> int:
    return _guarded(args, wrapping=False)


def add_wrap_arguments(parser: argparse.ArgumentParser) -> None:
    _add_entry_arguments(parser)
    parser.add_argument("--list", action="store_true", help="list the entries found and which are wrapped")
    parser.add_argument("--codex", action="store_true", help="print the Codex config.toml snippet")
    parser.add_argument(
        "--command",
        dest="proxy_command",
        metavar="NAME",
        help="the command to write (default: this mcpspy's absolute path, found whatever the client's PATH)",
    )


def add_unwrap_arguments(parser: argparse.ArgumentParser) -> None:
    _add_entry_arguments(parser)
    parser.add_argument(
        "--command",
        dest="proxy_command",
        metavar="NAME",
        help="also recognise entries that run NAME as mcpspy",
    )


def _add_entry_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", nargs="?", help="the server entry's name")
    parser.add_argument("--config", metavar="PATH", help="the config file (default: found)")
    parser.add_argument(
        "--scope",
        choices=SCOPES,
        help="Claude Code's scope: local (~/.claude.json, this directory), project (./.mcp.json), user",
    )
    parser.add_argument("--dry-run", action="store_true", help="show the change as a diff, change nothing")
