"""The profiles read from this package's TOML files (the format: mcpspy/clients/__init__.py)."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from mcpspy.analysis.model import ClientRules
from mcpspy.analysis.rules.tool_schemas import CONSTRUCTS
from mcpspy.clients import chosen, known_names

DROPPING = ("rejects-list", "fails-requests", "drops-tool")
KEEPING = ("degrades", "keeps")
DOES: dict[str, tuple[str, ...]] = {
    **{construct: (*DROPPING, *KEEPING, "unknown") for construct in CONSTRUCTS},
    "stray_stdout": ("skips", "shows-error", "ends-session", "unknown"),
    "request_timeout": ("limit", "none", "unknown"),
    "progress_resets_timeout": ("yes", "no", "unknown"),
    "speaks_2026_07_28": ("yes", "no", "unknown"),
}
BEHAVIOURS = tuple(DOES)
UNKNOWN = "unknown"


@dataclass(frozen=True, slots=True)
class Behaviour:
    does: str
    source: str  # a public URL, or "unknown"
    note: str = ""
    ms: int | None = None  # request_timeout's limit


@dataclass(frozen=True, slots=True)
class Profile:
    name: str
    title: str
    versions: str
    home: str
    behaviours: dict[str, Behaviour]

    def rules(self) -> ClientRules:
        """What the analysis needs of this client."""
        behaviours = self.behaviours
        timeout = behaviours["request_timeout"]
        resets = behaviours["progress_resets_timeout"].does
        return ClientRules(
            self.name,
            self.title,
            frozenset(c for c in CONSTRUCTS if behaviours[c].does in DROPPING),
            frozenset(c for c in CONSTRUCTS if behaviours[c].does in KEEPING),
            timeout.ms / 1000 if timeout.does == "limit" and timeout.ms else None,
            {"yes": True, "no": False}.get(resets),
        )

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "title": self.title,
            "versions": self.versions,
            "home": self.home,
            "behaviours": {
                key: {"does": b.does, "source": b.source, "note": b.note or None, "ms": b.ms}
                for key, b in self.behaviours.items()
            },
        }


class ProfileError(ValueError):
    """A profile file that does not follow the format above (a packaging bug, not user input)."""


def parse(text: str, where: str) -> Profile:
    """One profile file's text; ``where`` names it in errors."""
    data = tomllib.loads(text)
    try:
        behaviours = {key: _behaviour(data[key], key) for key in BEHAVIOURS}
        profile = Profile(data["name"], data["title"], data["versions"], data["home"], behaviours)
    except (KeyError, TypeError, ValueError) as exc:
        raise ProfileError(f"{where}: {exc}") from exc
    extra = set(data) - {"name", "title", "versions", "home", *BEHAVIOURS}
    if extra:
        raise ProfileError(f"{where}: unknown keys {sorted(extra)}")
    return profile


def _behaviour(table: dict[str, Any], key: str) -> Behaviour:
    does, source = table["does"], table["source"]
    if does not in DOES[key]:
        raise ValueError(f"{key}.does is {does!r}, not one of {', '.join(DOES[key])}")
    if not (source == UNKNOWN or source.startswith("https://")):
        raise ValueError(f"{key}.source is {source!r}: a https URL or 'unknown'")
    if does != UNKNOWN and source == UNKNOWN:
        raise ValueError(f"{key} says {does!r} with no source")
    ms = table.get("ms")
    if (does == "limit") != isinstance(ms, int):
        raise ValueError(f"{key}: ms goes with does = 'limit', and only with it")
    return Behaviour(does, source, table.get("note", ""), ms)


@cache
def profiles() -> dict[str, Profile]:
    """Every profile in the package, by name, sorted."""
    found: dict[str, Profile] = {}
    for name in known_names():
        entry = resources.files("mcpspy.clients").joinpath(f"{name}.toml")
        profile = parse(entry.read_text(encoding="utf-8"), entry.name)
        if profile.name != name:
            raise ProfileError(f"{entry.name}: its name is {profile.name!r}, not its file's")
        found[name] = profile
    return dict(sorted(found.items()))


def chosen_rules() -> tuple[ClientRules, ...]:
    """The ClientRules of the profiles this process chose (``--clients``), in that order; else of all."""
    known = profiles()
    return tuple(known[n].rules() for n in chosen() or tuple(known))
