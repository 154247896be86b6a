"""Client profiles: what each real MCP client does with what a server sends, and where that is shown.

One TOML file a client in this package (``claude-code.toml``, ``cursor.toml``,
...). A file has its ``name`` (what ``--clients`` takes), ``title``, the
``versions`` the facts were reported for, the client's ``home`` page, and one
table per behaviour::

    [top_level_composition]
    does = "fails-requests"
    note = "the Anthropic API answers 400 to every request that lists the tool"
    source = "https://github.com/anthropics/claude-code/issues/5319"

Every behaviour table has ``does`` and ``source`` (a public URL: an issue, a
docs page, a changelog, a file of the client's source; or ``"unknown"``, with
``does = "unknown"`` when nothing public says), and may have a ``note``.

The tool-schema constructs (the keys of ``CONSTRUCTS``: ``top_level_composition``
(anyOf/oneOf/allOf at an inputSchema's root), ``nested_composition``, ``ref``,
``dynamic_ref``, ``boolean_subschema``, ``schema_dialect`` (a ``$schema`` other
than 2020-12), ``required_null``, ``non_object_root``, ``tool_name`` (outside 1 to
128 of ``A-Za-z0-9_.-``)) take one of ``DOES``: ``rejects-list`` (the whole
tools/list is refused: every tool of the server is lost), ``fails-requests``
(every model request fails while the tool is listed), ``drops-tool`` (that tool
is left out), ``degrades`` (kept, its schema simplified), ``keeps``, ``unknown``.
The first three count as dropping the tool.

The other behaviours: ``stray_stdout`` (what a non-JSON stdout line does:
``skips``, ``shows-error``, ``ends-session``, ``unknown``), ``request_timeout``
(``limit`` with ``ms``, ``none``, ``unknown``), ``progress_resets_timeout``
and ``speaks_2026_07_28`` (``yes``, ``no``, ``unknown``).

The analysis never reads these files: the caller (replay_policy) hands it the
``ClientRules`` of the profiles chosen with ``--clients`` (every profile by
default), so the analysis stays pure.
"""

from __future__ import annotations

import argparse
from importlib import resources

_chosen: tuple[str, ...] | None = None  # the --clients of this process; None: every profile


def known_names() -> tuple[str, ...]:
    """Every profile's name (its file's), sorted; reads no profile (the proxy starts light)."""
    files = resources.files(__package__).iterdir()
    return tuple(sorted(f.name.removesuffix(".toml") for f in files if f.name.endswith(".toml")))


def parse_names(text: str) -> tuple[str, ...]:
    """``--clients NAME[,NAME...]``; raises ValueError naming an unknown client."""
    names = tuple(dict.fromkeys(n.strip().lower() for n in text.split(",") if n.strip()))
    known = known_names()
    unknown = [n for n in names if n not in known]
    if not names or unknown:
        what = f"unknown client {unknown[0]!r}" if unknown else "no client named"
        raise ValueError(f"{what} (known: {', '.join(known)})")
    return names


def choose(names: tuple[str, ...] | None) -> None:
    """The clients this process judges servers by (the CLI's ``--clients``); None: every profile."""
    global _chosen
    _chosen = names


def chosen() -> tuple[str, ...] | None:
    return _chosen


def add_clients_option(parser: argparse.ArgumentParser) -> None:
    """``--clients NAME[,NAME...]``: which clients' profiles judge the server (default: every one)."""
    parser.add_argument(
        "--clients",
        type=_names_argument,
        metavar="NAME[,NAME...]",
        help="judge tool schemas and timeouts by these clients' profiles (default: every profile; "
        "`mcpspy clients` lists them)",
    )


def choose_from(args: argparse.Namespace) -> None:
    """Take a parsed ``--clients`` (if the command has one) as this process's choice."""
    names = getattr(args, "clients", None)
    if names is not None:
        choose(names)


def _names_argument(text: str) -> tuple[str, ...]:
    try:
        return parse_names(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
