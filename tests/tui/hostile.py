"""A capture whose every string is an attack on the terminal or on Textual's markup.

Escape sequences (OSC 0 retitles the window, OSC 8 links, OSC 52 writes the
clipboard, CSI clears the screen and moves the cursor), a C1 CSI, BEL, a bidi
override, Textual markup (a click action that writes a file, a closing tag with
nothing open, a style) and a 10,000-character method: as methods, ids, params,
a reply's error, stdout junk, stderr lines, the server's name and command.
"""

from __future__ import annotations

from pathlib import Path

import orjson

from mcpspy.capture.format import encode_header, encode_line
from mcpspy.capture.records import Header, Stream

CONTROLS = ("\x1b", "\x9b", "\x07", "\u202e")  # none of these may reach the screen


def click(target: Path) -> str:
    """Markup that, if parsed and clicked, saves a screenshot into ``target``."""
    return f"[@click=app.screenshot('x.svg','{target}')]x[/]"


def hostile_strings(target: Path) -> list[str]:
    return [
        "\x1b]0;PWNED\x07",
        "\x1b]8;;https://evil.example/\x1b\\link\x1b]8;;\x1b\\",
        "\x1b]52;c;cHduZWQ=\x07",
        "\x1b[2J\x1b[H\x1b[10A\x1b[5;5Hmoved",
        "\x9b2Jc1",
        "\x07bell",
        "report\u202etxt.exe",
        click(target),
        "[/]",
        "[bold]bold",
        "mcp[cli]",
        "m" * 10_000,
    ]


def write_hostile_capture(path: Path, target: Path) -> Path:
    """The capture at ``path``; a parsed click action would write into ``target``. No proxy-stopped:
    opened live, its requests stay in flight."""
    strings = hostile_strings(target)
    name = f"{click(target)}[/]\x1b]0;PWNED\x07"
    header = Header(
        "1.0", "hostile", "2026-12-03T00:00:00.000Z", ("node", "mcp[cli]", "[/]"), name, "/", "0.1.0", 1
    )
    meta = {"io.modelcontextprotocol/protocolVersion": "[/]\x1b]0;PWNED\x07"}
    lines: list[tuple[Stream, bytes]] = []
    for n, text in enumerate(strings, 1):
        request = {"jsonrpc": "2.0", "id": n, "method": text, "params": {"text": text, "_meta": meta}}
        lines.append((Stream.C2S, orjson.dumps(request)))
        lines.append((Stream.S2C, orjson.dumps({"jsonrpc": "2.0", "id": text, "result": {"text": text}})))
        error = {"code": -32601, "message": text, "data": text}
        if n % 2:  # half of them answered, with an error; the rest stay in flight
            lines.append((Stream.S2C, orjson.dumps({"jsonrpc": "2.0", "id": n, "error": error})))
        lines.append((Stream.S2C, text.encode()))  # stdout junk: not JSON
        lines.append((Stream.ERR, text.encode()))
    lines.append((Stream.S2C, b"\x9b\xff\x1b[31mnot utf-8"))
    # Tool names and schemas, as the tools.* findings and the header's context cost quote them.
    tools = [
        {"name": t, "description": t, "inputSchema": {"$schema": t, "anyOf": [{"$ref": t}]}} for t in strings
    ]
    lines.append(
        (Stream.C2S, orjson.dumps({"jsonrpc": "2.0", "id": "t", "method": "tools/list", "params": {}}))
    )
    lines.append((Stream.S2C, orjson.dumps({"jsonrpc": "2.0", "id": "t", "result": {"tools": tools}})))
    out = [encode_header(header)]
    out += [encode_line(seq, seq / 1000, stream, data, True) for seq, (stream, data) in enumerate(lines, 1)]
    path.write_bytes(b"".join(out))
    return path
