"""The catalogue rows of rules/framing.py: stdout.* and stdin.*, one rule a pipe, each in its own words."""

from __future__ import annotations

from typing import NamedTuple

from mcpspy.analysis.catalogue.spec import INFO, REQ, RES, STDIO, E, W
from mcpspy.analysis.model import Rule
from mcpspy.analysis.rule_ids import RuleId


class Pipe(NamedTuple):
    """One pipe's framing rules: each rule has a twin on the other pipe."""

    side: str
    who: str
    example: str
    not_json: RuleId
    glued_prefix: RuleId
    multiline_json: RuleId
    content_length: RuleId
    invalid_utf8: RuleId
    crlf: RuleId
    unterminated: RuleId
    blank_line: RuleId
    oversized_line: RuleId


STDOUT = Pipe(
    side="server's stdout",
    who="server",
    example=RES,
    not_json=RuleId.STDOUT_NOT_JSON,
    glued_prefix=RuleId.STDOUT_GLUED_PREFIX,
    multiline_json=RuleId.STDOUT_MULTILINE_JSON,
    content_length=RuleId.STDOUT_CONTENT_LENGTH,
    invalid_utf8=RuleId.STDOUT_INVALID_UTF8,
    crlf=RuleId.STDOUT_CRLF,
    unterminated=RuleId.STDOUT_UNTERMINATED,
    blank_line=RuleId.STDOUT_BLANK_LINE,
    oversized_line=RuleId.STDOUT_OVERSIZED_LINE,
)
STDIN = Pipe(
    side="server's stdin",
    who="client",
    example=REQ,
    not_json=RuleId.STDIN_NOT_JSON,
    glued_prefix=RuleId.STDIN_GLUED_PREFIX,
    multiline_json=RuleId.STDIN_MULTILINE_JSON,
    content_length=RuleId.STDIN_CONTENT_LENGTH,
    invalid_utf8=RuleId.STDIN_INVALID_UTF8,
    crlf=RuleId.STDIN_CRLF,
    unterminated=RuleId.STDIN_UNTERMINATED,
    blank_line=RuleId.STDIN_BLANK_LINE,
    oversized_line=RuleId.STDIN_OVERSIZED_LINE,
)


def _framing(pipe: Pipe) -> list[Rule]:
    """The framing rules hold for both pipes, each in its own words."""
    side, who, ex = pipe.side, pipe.who, pipe.example
    # A table, one rule a paragraph, as every family's ROWS.
    # fmt: off
    return [
        Rule(pipe.not_json, E,
             f"A line on the {side} is not JSON: the {who} must write nothing there but MCP messages "
             "(a banner, a log line or a print belongs on stderr).",
             f'{STDIO} ("MUST NOT write anything to its stdout that is not a valid MCP message")',
             bad="ready", good="(log to stderr instead)",
             fix=f"Write only MCP messages on the {side}; send banners, logs and prints to stderr."),
        Rule(pipe.glued_prefix, E,
             "Text was written without a newline and glued onto the next message, so that message "
             "no longer parses and the other side drops it.",
             f"{STDIO}; seed \u00a7\"Tom's 'ready', Explained\"",
             bad=f"ready {ex}", good=ex,
             fix=f"End every write on the {side} with a newline, and send any text that is not a message "
             "to stderr."),
        Rule(pipe.multiline_json, E,
             "One message was spread over several lines (pretty-printed): messages are delimited by "
             "newlines and must not contain embedded newlines.",
             f'{STDIO} ("MUST NOT contain embedded newlines")',
             bad='{\n  "jsonrpc": "2.0",\n  ...\n}', good=ex,
             fix="Serialize each message compactly on one line (no indent, no pretty-printing), then "
             "write one \\n."),
        Rule(pipe.content_length, E,
             "LSP-style Content-Length header framing: MCP on stdio is one JSON message per line, "
             "with no headers.",
             STDIO,
             bad="Content-Length: 52", good=ex,
             fix="Drop the Content-Length headers: write each message as one line of JSON ending in \\n."),
        Rule(pipe.invalid_utf8, E,
             "A line is not valid UTF-8: JSON-RPC messages must be UTF-8 encoded.",
             "2026-07-28/basic/transports/index.mdx \u00a7Messages",
             bad="\\xff\\xfe{...}", good=ex,
             fix=f"Encode every message as UTF-8 before writing it on the {side} (JSON escapes can carry "
             "any character)."),
        Rule(pipe.crlf, INFO,
             "The line ends in \\r\\n: most readers strip the \\r, but some keep it in the message.",
             f"{STDIO} (messages are delimited by newlines)",
             bad=ex + "\\r\\n", good=ex + "\\n",
             fix="End each message with \\n alone (on Windows, open the pipe in binary mode so \\n is "
             "not turned into \\r\\n)."),
        Rule(pipe.unterminated, W,
             "The last line ended without a newline: a reader waiting for the newline never sees it.",
             f'{STDIO} (derived: "delimited by newlines")',
             bad=ex + "<EOF>", good=ex + "\\n",
             fix=f"End the last message with a newline and flush before closing the {side}."),
        Rule(pipe.blank_line, INFO,
             "An empty line: not a message; most readers skip it.",
             'seed \u00a7"Reading Lines" (derived)',
             bad="", good=ex,
             fix="Write no empty lines: one message, then one \\n, then the next."),
        Rule(pipe.oversized_line, INFO,
             "A line over 16 MiB: legal (stdio sets no limit), but mcpspy reads only its first and last "
             "64 KiB, so its kind, id and method are found and its content is not checked.",
             f"{STDIO} (no size limit; mcpspy's own cap)",
             bad=f"{ex[:-3]}<16 MiB of content>{ex[-3:]}", good="large content split up, or a resource link",
             fix="Keep each message under 16 MiB: split large content, or return a resource link the "
             "client reads on demand."),
    ]
    # fmt: on


ROWS: list[Rule] = [*_framing(STDOUT), *_framing(STDIN)]
