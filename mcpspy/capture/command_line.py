"""The server's command line, working directory and name as a capture header stores them. Pure.

Two things stand between what the system hands mcpspy and the header:

- Bytes that are not UTF-8 (an argument of raw bytes, a Latin-1 directory)
  arrive as surrogate escapes, which JSON cannot carry. They are stored as
  ``\\xNN`` and the header lists the fields holding such escapes
  (``escaped``), so a reader knows ``caf\\xe9`` there was four bytes. What is
  forwarded never depends on what can be recorded: the server gets its
  arguments as they were.
- Credentials. The header is shown by every view and exported (HTML, HAR,
  OTLP resource attributes sent to a collector), so a secret on the command
  line is replaced by ``<redacted:N>`` (N: its length in characters) before
  it is stored: the value after a flag whose name says credential
  (``--api-key X``, ``--token=X``, ``-password X``), the value of a
  ``NAME=VALUE`` argument whose name does (``OPENAI_API_KEY=...``), and text
  of a well-known credential shape anywhere (``sk-...``, ``ghp_...``,
  ``xoxb-...``, ``AKIA...``, a JWT, ``Bearer ...``, a URL's password).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from mcpspy.capture.redact import names_credential
from mcpspy.capture.sessions import server_name

MARKER_PREFIX = "<redacted:"

#: Credential shapes, wherever they appear in a stored string.
_SHAPES = re.compile(
    r"""
    (?<![A-Za-z0-9])sk-[A-Za-z0-9_-]{16,}                     # OpenAI, Anthropic: sk-proj-..., sk-ant-...
    | (?<![A-Za-z0-9])gh[pousr]_[A-Za-z0-9]{20,}              # GitHub tokens
    | (?<![A-Za-z0-9])github_pat_[A-Za-z0-9_]{20,}
    | (?<![A-Za-z0-9])xox[bpaesr]-[A-Za-z0-9-]{8,}            # Slack
    | (?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])  # AWS access key ids
    | (?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*  # a JWT
    | \b(?i:bearer)\s+(?P<bearer>[^\s"',;]+)                   # Authorization: Bearer ...
    | (?<=://)[^/\s:@]+:[^/\s@]+(?=@)                         # https://user:password@host
    """,
    re.VERBOSE,
)
_FLAG = re.compile(r"(-{1,2})([A-Za-z0-9][\w.-]*)(?:=(.*))?", re.DOTALL)
_ASSIGNMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_.-]*)=(.+)", re.DOTALL)


def storable(text: str) -> tuple[str, bool]:
    """``text`` as JSON can carry it: bytes that were not UTF-8 as ``\\xNN``; and whether there were any."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace"), True
    return text, False


def marker(secret: str) -> str:
    return f"{MARKER_PREFIX}{len(secret)}>"


def redact_text(text: str) -> str:
    """``text`` with every credential shape in it replaced by a marker."""
    return _SHAPES.sub(_hide_shape, text)


def _hide_shape(match: re.Match[str]) -> str:
    if match.group("bearer") is None:
        return marker(match.group())
    return match.group()[: match.start("bearer") - match.start()] + marker(match.group("bearer"))


def flag_names_credential(name: str) -> bool:
    """A flag such as ``--api-key``, ``--github-token``, ``--client-secret``, ``--ssh-key``."""
    return names_credential(name) or "key" in name.casefold()


def redact_command(command: Sequence[str]) -> tuple[str, ...]:
    """The command line with its credentials replaced by markers."""
    out: list[str] = []
    hide_next = False
    for arg in command:
        if hide_next and not arg.startswith("--"):
            out.append(marker(arg))
            hide_next = False
            continue
        hide_next = False
        flag = _FLAG.fullmatch(arg)
        if flag is not None and flag_names_credential(flag.group(2)):
            if flag.group(3) is None:
                hide_next = True
                out.append(arg)
            else:
                out.append(f"{flag.group(1)}{flag.group(2)}={marker(flag.group(3))}")
            continue
        assignment = _ASSIGNMENT.fullmatch(arg)
        if assignment is not None and flag_names_credential(assignment.group(1)):
            out.append(f"{assignment.group(1)}={marker(assignment.group(2))}")
            continue
        out.append(redact_text(arg))
    return tuple(out)


def is_marker(arg: str) -> bool:
    """An argument that a marker replaced whole (never a name for the session)."""
    return arg.startswith(MARKER_PREFIX) and arg.endswith(">")


@dataclass(frozen=True, slots=True)
class HeaderText:
    """What the header stores of the command line, directory and name; ``escaped``: fields with ``\\xNN``."""

    command: tuple[str, ...]
    cwd: str
    name: str
    escaped: tuple[str, ...]


def header_text(command: Sequence[str], cwd: str | None, name: str | None, redact: bool = True) -> HeaderText:
    """The header's strings, storable and (with ``redact``) without credentials; ``name``: --name, if given.

    ``cwd`` is None when the directory was deleted from under mcpspy (stored as "").

    Without ``--name`` the session is named after the stored command, so a
    secret passed as an argument never names the capture file either.
    """
    escaped: list[str] = []

    def store(field: str, text: str) -> str:
        text, was_escaped = storable(text)
        if was_escaped and field not in escaped:
            escaped.append(field)
        return text

    stored = tuple(store("command", arg) for arg in command)
    stored_cwd = store("cwd", cwd or "")
    if redact:
        stored, stored_cwd = redact_command(stored), redact_text(stored_cwd)
    if name is None:
        name = server_name([arg for arg in stored if not is_marker(arg)], stored_cwd or None)
    else:
        name = store("name", name)
        name = redact_text(name) if redact else name
    return HeaderText(stored, stored_cwd, name, tuple(escaped))
