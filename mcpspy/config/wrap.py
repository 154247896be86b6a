"""Put one server entry of a client's MCP config through mcpspy, and back. Pure text work.

The config is the user's file: we edit only the text spans of the entry's
``command`` and ``args`` values and leave every other byte (indentation,
comments, trailing commas: configs are JSONC) as it was. Structure is read
from the blanked text (``jsonc.blank``: same offsets), edits go to the
original. Unwrapping takes the entry's original text from the backup when it
still matches, so a round trip is byte for byte.
"""

from __future__ import annotations

import json
import json.decoder
import re
from typing import Any

from mcpspy.config.jsonc import blank, blank_comments
from mcpspy.jsonutil import span
from mcpspy.jsonutil.span import Member

PROXY = "mcpspy"  # the bare name older versions wrote; recognised by its base name
_WS = " \t\r\n"


class ConfigError(Exception):
    """A config we cannot or must not change; the message says why."""


def members(text: str, start: int) -> list[Member]:
    """The members of the object whose ``{`` is at ``start`` (blanked text: valid JSON)."""
    found = span.members(text, start)
    if found is None:
        raise ConfigError(f"unexpected text in the object at offset {start}")
    return found


def items(text: str, start: int) -> list[tuple[int, int]]:
    """The (start, end) spans of the elements of the array whose ``[`` is at ``start``."""
    found = span.items(text, start)
    if found is None:
        raise ConfigError(f"unexpected text in the array at offset {start}")
    return found


def parse(text: str) -> Any:
    """The value of JSONC ``text`` (comments and trailing commas allowed)."""
    try:
        return json.loads(blank(text))
    except ValueError as exc:
        raise ConfigError(f"not valid JSON: {exc}") from None
    except RecursionError:
        raise ConfigError("nested too deeply to be a config") from None


def _find(text: str, start: int, key: str) -> Member | None:
    found = [m for m in members(text, start) if m.key == key]
    return found[-1] if found else None  # json.loads keeps the last of duplicate keys


def servers_span(text: str, key_path: tuple[str, ...]) -> int | None:
    """Offset of the ``{`` of the servers object at ``key_path`` in blanked text, or None."""
    pos = span.skip_whitespace(text, 0)
    for key in key_path:
        if text[pos] != "{":
            return None
        member = _find(text, pos, key)
        if member is None:
            return None
        pos = member.value_start
    return pos if text[pos] == "{" else None


def servers(text: str, key_path: tuple[str, ...]) -> dict[str, Any]:
    """The servers object at ``key_path`` of JSONC ``text`` ({} when absent)."""
    node: Any = parse(text)
    for key in key_path:
        node = node.get(key) if isinstance(node, dict) else None
    return node if isinstance(node, dict) else {}


def is_wrapped(entry: dict[str, Any], also: str | None = None) -> bool:
    """Whether the entry runs mcpspy: bare ``mcpspy``, any path to it, or ``also`` (--command)."""
    command = entry.get("command")
    args = entry.get("args")
    return (
        isinstance(command, str)
        and (re.split(r"[\\/]", command)[-1] in (PROXY, PROXY + ".exe") or command == also)
        and isinstance(args, list)
        and "--" in args
    )


def check_stdio(name: str, entry: Any) -> dict[str, Any]:
    """The entry, if it is a stdio server mcpspy can sit in front of."""
    if not isinstance(entry, dict):
        raise ConfigError(f"entry {name!r} is not an object")
    if "url" in entry or entry.get("type") in ("http", "sse", "streamable-http"):
        raise ConfigError(f"entry {name!r} is an HTTP server (url); mcpspy sits on stdio and cannot proxy it")
    if not isinstance(entry.get("command"), str):
        raise ConfigError(f"entry {name!r} has no command string")
    args = entry.get("args", [])
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise ConfigError(f"entry {name!r} has args that are not a list of strings")
    return entry


def _entry_member(clean: str, key_path: tuple[str, ...], name: str) -> Member:
    start = servers_span(clean, key_path)
    member = _find(clean, start, name) if start is not None else None
    if member is None:
        raise ConfigError(f"no server entry named {name!r} under {'.'.join(key_path)}")
    return member


def _apply(text: str, edits: list[tuple[int, int, str]]) -> str:
    for start, end, new in sorted(edits, reverse=True):
        text = text[:start] + new + text[end:]
    return text


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _ws_before(text: str, start: int, end: int) -> str:
    """The whitespace that ends ``text[start:end]`` (a comment before it is not copied)."""
    gap = text[start:end]
    return gap[len(gap.rstrip(_WS)) :]


def wrap_text(text: str, key_path: tuple[str, ...], name: str, proxy: str = PROXY) -> str:
    """The config text with entry ``name`` running through ``proxy``; all else unchanged."""
    clean = blank(text)
    entry = check_stdio(name, servers(text, key_path).get(name))
    if is_wrapped(entry, proxy):
        raise ConfigError(f"entry {name!r} is already wrapped")
    spans = {m.key: m for m in members(clean, _entry_member(clean, key_path, name).value_start)}
    command = spans["command"]
    head = _dump(entry["command"])
    edits = [(command.value_start, command.value_end, _dump(proxy))]
    args = spans.get("args")
    if args is None:
        indent = _ws_before(text, 0, command.key_start) or " "
        colon = text[command.key_end : command.value_start]
        if colon != clean[command.key_end : command.value_start]:
            colon = ": "  # a comment around the colon: not copied
        added = f",{indent}{_dump('args')}{colon}{_dump(['--', entry['command']])}"
        edits.append((command.value_end, command.value_end, added))
    else:
        elements = items(clean, args.value_start)
        if not elements:
            edits.append((args.value_start, args.value_end, _dump(["--", entry["command"]])))
        else:
            first = elements[0][0]
            if len(elements) > 1:
                sep = _ws_before(text, elements[0][1], elements[1][0]) or " "
            else:
                lead = _ws_before(text, args.value_start + 1, first)
                sep = lead if "\n" in lead else " "
            edits.append((first, first, f'"--",{sep}{head},{sep}'))
    return _apply(text, edits)


def unwrap_text(
    text: str, key_path: tuple[str, ...], name: str, backup: str | None = None, proxy: str | None = None
) -> str:
    """The config text with entry ``name`` back as it was before ``wrap_text``."""
    clean = blank(text)
    entry = servers(text, key_path).get(name)
    if not isinstance(entry, dict) or not is_wrapped(entry, proxy):
        if isinstance(entry, dict):
            raise ConfigError(f"entry {name!r} is not wrapped")
        _entry_member(clean, key_path, name)
        raise ConfigError(f"entry {name!r} is not an object")
    args: list[str] = entry["args"]
    inner = args[args.index("--") + 1 :]
    if not inner:
        raise ConfigError(f"entry {name!r} runs mcpspy with no server command after --")
    original = {**entry, "command": inner[0], "args": inner[1:]}
    member = _entry_member(clean, key_path, name)
    if backup is not None:
        try:
            old = servers(backup, key_path).get(name)
            old_member = _entry_member(blank(backup), key_path, name)
        except (ConfigError, IndexError):
            old = None
        if isinstance(old, dict) and {"args": [], **old} == original:
            old_text = backup[old_member.value_start : old_member.value_end]
            return _apply(text, [(member.value_start, member.value_end, old_text)])
    spans = {m.key: m for m in members(clean, member.value_start)}
    edits = [(spans["command"].value_start, spans["command"].value_end, _dump(inner[0]))]
    edits.append(_cut_head(text, clean, spans["args"], len(args) - len(inner) + 1))
    return _apply(text, edits)


def _cut_head(text: str, clean: str, args: Member, count: int) -> tuple[int, int, str]:
    """The edit removing the first ``count`` elements of the args array; comments around the rest stay."""
    elements = items(clean, args.value_start)
    if len(elements) > count:
        return (elements[0][0], elements[count][0], "")
    end = elements[-1][1]
    commas = blank_comments(text[end : args.value_end])
    after = span.skip_whitespace(commas, 0)
    if commas[after] == ",":  # a trailing comma (blank in ``clean``) would be left alone in the array
        end += after + 1
    return (elements[0][0], end, "")


def codex_snippet(name: str, entry: dict[str, Any], proxy: str = PROXY) -> str:
    """The ``[mcp_servers.NAME]`` lines to paste into ~/.codex/config.toml."""
    check_stdio(name, entry)
    wrapped = ["--", entry["command"], *entry.get("args", [])]
    key = name if re.fullmatch(r"[A-Za-z0-9_-]+", name) else _dump(name)
    lines = [f"[mcp_servers.{key}]", f"command = {_dump(proxy)}", f"args = {_dump(wrapped)}"]
    for field, value in entry.items():
        if field not in ("command", "args") and isinstance(value, str | int | float | bool):
            lines.append(f"{field} = {_dump(value)}")
    env = entry.get("env")
    if isinstance(env, dict) and env:
        lines += ["", f"[mcp_servers.{key}.env]"] + [f"{k} = {_dump(str(v))}" for k, v in env.items()]
    return "\n".join(lines) + "\n"
