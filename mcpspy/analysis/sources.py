"""A rule's spec source, as a user can follow it: the spec's public pages (mcpspy's rules: its docs).

The catalogue cites sources as the spec repository lays them out
("2026-07-28/basic/transports/stdio.mdx §Shutdown", "schema/<rev>/schema.json")
and sometimes the seed lesson mcpspy grew from. ``public_source`` rewrites
such a citation for people: each page becomes its address on
modelcontextprotocol.io (the section name kept beside it), each schema the
file in the public spec repository, and a seed reference the stdio transport
page it derives from. Pure: no I/O.
"""

from __future__ import annotations

import re

SPEC_SITE = "https://modelcontextprotocol.io/specification/"
SCHEMA_REPO = "https://github.com/modelcontextprotocol/modelcontextprotocol/blob/main/schema/"
LATEST = "2026-07-28"
STDIO_PAGE = SPEC_SITE + LATEST + "/basic/transports/stdio"

_REVISION = r"\d{4}-\d{2}-\d{2}|draft|<rev>"
# "2025-11-25/server/tools.mdx", "<rev>/client/{sampling,roots}.mdx"; a bare "prompts.mdx" after one of them
_PAGE = re.compile(rf"(?:(?P<rev>{_REVISION})/(?P<dir>(?:[\w{{}},.-]+/)*))?(?P<name>[\w{{}},.-]+?)\.mdx")
_SCHEMA_FILE = re.compile(rf"schema/(?P<rev>{_REVISION})(?:/schema\.json)?")
_SCHEMA_WORD = re.compile(r"\bschema (?=[A-Z]\w*)")  # "schema JSONRPCMessage": a definition, no revision
_SEED = re.compile(r'seed\s*\u00a7\s*"[^"]*"(?:\s*\(derived\))?')
_DATED = re.compile(r"\d{4}-\d{2}-\d{2}")
_LINK = re.compile(r"https://[^\s,;()]+")


def spec_page(revision: str, path: str) -> str:
    """The public address of a spec page: ``2026-07-28``, ``basic/index.mdx`` -> .../2026-07-28/basic."""
    path = path.removesuffix(".mdx")
    path = path.removesuffix("/index") if path != "index" else ""
    return SPEC_SITE + revision + ("/" + path if path else "")


def schema_file(revision: str) -> str:
    return f"{SCHEMA_REPO}{revision}/schema.json"


def public_source(source: str) -> str:
    """``source`` with every page, schema and seed reference turned into a public link."""
    dated = _DATED.findall(source)
    revision = max(dated) if dated else LATEST  # what "<rev>" (the revision in force) links to
    seeded = bool(_SEED.search(source))
    text = _SEED.sub("", source) if seeded else source
    text = _SCHEMA_FILE.sub(lambda m: schema_file(_rev(m["rev"], revision)), text)
    text = _SCHEMA_WORD.sub(lambda m: f"{schema_file(revision)} ", text)
    text = _pages(text, revision)
    text = re.sub(r"(;\s*)+$", "", re.sub(r";\s*;", ";", text.strip())).strip()
    if seeded and STDIO_PAGE not in text:
        derived = f"derived from {STDIO_PAGE} (messages are newline-delimited lines)"
        text = f"{text}; {derived}" if text else derived
    return text


def source_links(source: str) -> list[str]:
    """The public addresses ``public_source`` gives, in order, each once."""
    links: list[str] = []
    for link in _LINK.findall(public_source(source)):
        link = link.rstrip(".")
        if link not in links:
            links.append(link)
    return links


def _rev(written: str, in_force: str) -> str:
    return in_force if written == "<rev>" else written


def _pages(text: str, revision: str) -> str:
    """Each page reference, left to right; a bare name is in the directory of the page before it."""
    where = [revision, ""]  # the revision and directory of the last full reference

    def link(m: re.Match[str]) -> str:
        if m["rev"] is not None:
            where[0], where[1] = _rev(m["rev"], revision), m["dir"] or ""
        names = _expand(m["name"])
        return ", ".join(spec_page(where[0], where[1] + name) for name in names)

    return _PAGE.sub(link, text)


def _expand(name: str) -> list[str]:
    """``{sampling,roots}`` -> ``sampling``, ``roots``."""
    braces = re.fullmatch(r"\{([^}]*)\}", name)
    return [part.strip() for part in braces[1].split(",")] if braces else [name]
