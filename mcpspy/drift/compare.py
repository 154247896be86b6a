"""Two surfaces compared: every drift, with its kind, item, field and JSON path.

The kinds (``Drift.kind``, stable for ``--json``):

- ``added``, ``removed``: a tool, prompt, resource or template;
- ``description``: an item's description;
- ``schema-tightened``, ``schema-loosened``, ``schema-changed``, ``schema-doc``:
  a tool's inputSchema or outputSchema, or a prompt's arguments (read as a
  schema), by the verdicts of ``drift.schema``;
- ``annotation-risk``: a tool's effective readOnlyHint or destructiveHint
  changed (spec defaults: readOnlyHint false, destructiveHint true), marked
  riskier or safer; ``annotation``: any other annotation;
- ``field``: any other field of an item (title, mimeType, icons, ...);
- ``server-info``: serverInfo, protocolVersion, supportedVersions, instructions;
- ``capability-added``, ``capability-removed``, ``capability-changed``.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from mcpspy.drift.schema import SchemaChange, Verdict, schema_changes
from mcpspy.drift.surface import LISTINGS, Surface
from mcpspy.jsonutil.paths import JsonPath
from mcpspy.jsonutil.structural import MISSING, Change, diff, json_equal


class DriftKind(enum.Enum):
    ADDED = "added"
    REMOVED = "removed"
    DESCRIPTION = "description"
    SCHEMA_TIGHTENED = "schema-tightened"
    SCHEMA_LOOSENED = "schema-loosened"
    SCHEMA_CHANGED = "schema-changed"
    SCHEMA_DOC = "schema-doc"
    ANNOTATION_RISK = "annotation-risk"
    ANNOTATION = "annotation"
    FIELD = "field"
    SERVER_INFO = "server-info"
    CAPABILITY_ADDED = "capability-added"
    CAPABILITY_REMOVED = "capability-removed"
    CAPABILITY_CHANGED = "capability-changed"


SCHEMA_KINDS = {
    Verdict.TIGHTENED: DriftKind.SCHEMA_TIGHTENED,
    Verdict.LOOSENED: DriftKind.SCHEMA_LOOSENED,
    Verdict.CHANGED: DriftKind.SCHEMA_CHANGED,
    Verdict.DOC: DriftKind.SCHEMA_DOC,
}
CAPABILITY_KINDS = {
    Change.ADDED: DriftKind.CAPABILITY_ADDED,
    Change.REMOVED: DriftKind.CAPABILITY_REMOVED,
    Change.CHANGED: DriftKind.CAPABILITY_CHANGED,
}
SCHEMA_FIELDS = ("inputSchema", "outputSchema")
#: Spec defaults of the tool annotations: what an absent hint means.
HINT_DEFAULTS = {
    "readOnlyHint": False,
    "destructiveHint": True,
    "idempotentHint": False,
    "openWorldHint": True,
}


@dataclass(frozen=True, slots=True)
class Drift:
    area: str  # tools, prompts, resources, resourceTemplates, server, capabilities
    item: str | None  # the tool's name, the resource's uri, ...
    kind: DriftKind
    field: str | None  # inputSchema, annotations, serverInfo, ...
    path: JsonPath  # inside the field (the capabilities object, for capabilities)
    what: str  # a few words for a person
    old: Any = MISSING
    new: Any = MISSING


@dataclass(frozen=True, slots=True)
class SurfaceComparison:
    drifts: list[Drift]
    not_compared: list[str]  # what one side never showed: "prompts (not listed in B)"


def compare_surfaces(a: Surface, b: Surface) -> SurfaceComparison:
    drifts: list[Drift] = []
    skipped: list[str] = []
    for d in diff(a.server, b.server):
        field, path = str(d.path[0]), d.path[1:]
        drifts.append(Drift("server", None, DriftKind.SERVER_INFO, field, path, d.change.value, d.old, d.new))
    if a.capabilities is not None and b.capabilities is not None:
        for d in diff(a.capabilities, b.capabilities):
            drifts.append(
                Drift(
                    "capabilities",
                    None,
                    CAPABILITY_KINDS[d.change],
                    None,
                    d.path,
                    d.change.value,
                    d.old,
                    d.new,
                )
            )
    elif (a.capabilities is None) != (b.capabilities is None):
        skipped.append(f"capabilities (not seen in {'A' if a.capabilities is None else 'B'})")
    for listing in LISTINGS:
        before, after = a.items[listing.area], b.items[listing.area]
        if before is None or after is None:
            if (before is None) != (after is None):
                skipped.append(f"{listing.area} (not listed in {'A' if before is None else 'B'})")
            continue
        drifts.extend(_items(listing.area, before, after))
    return SurfaceComparison(drifts, skipped)


def _items(area: str, before: dict[str, Any], after: dict[str, Any]) -> list[Drift]:
    out: list[Drift] = []
    for key, item in before.items():
        if key not in after:
            out.append(Drift(area, key, DriftKind.REMOVED, None, (), "removed", item, MISSING))
    for key, item in after.items():
        if key not in before:
            out.append(Drift(area, key, DriftKind.ADDED, None, (), "added", MISSING, item))
        elif not json_equal(before[key], item):
            out.extend(_item(area, key, before[key], item))
    return out


def _item(area: str, key: str, old: Any, new: Any) -> list[Drift]:
    if not isinstance(old, dict) or not isinstance(new, dict):
        return [Drift(area, key, DriftKind.FIELD, None, (), "changed", old, new)]
    out: list[Drift] = []
    for field in dict.fromkeys([*old, *new]):
        a, b = old.get(field, MISSING), new.get(field, MISSING)
        if json_equal(a, b):
            continue
        if field == "description":
            out.append(Drift(area, key, DriftKind.DESCRIPTION, field, (), "changed", a, b))
        elif field in SCHEMA_FIELDS:
            out.extend(_schema(area, key, field, _absent_as_open(a), _absent_as_open(b)))
        elif field == "arguments" and area == "prompts":
            out.extend(_schema(area, key, field, arguments_schema(a), arguments_schema(b)))
        elif field == "annotations" and area == "tools":
            out.extend(_annotations(area, key, a, b))
        else:
            for d in diff(a, b):
                out.append(Drift(area, key, DriftKind.FIELD, field, d.path, d.change.value, d.old, d.new))
    return out


def _absent_as_open(schema: Any) -> Any:
    """No schema accepts anything."""
    return True if schema is MISSING else schema


def _schema(area: str, key: str, field: str, a: Any, b: Any) -> list[Drift]:
    changes: list[SchemaChange] = schema_changes(a, b)
    return [Drift(area, key, SCHEMA_KINDS[c.verdict], field, c.path, c.what, c.old, c.new) for c in changes]


def arguments_schema(arguments: Any) -> Any:
    """A prompt's argument list as the object schema it amounts to, so the same verdicts apply."""
    if arguments is MISSING:
        return {"type": "object", "properties": {}, "additionalProperties": False}
    if not isinstance(arguments, list):
        return arguments
    properties: dict[str, Any] = {}
    required: list[str] = []
    for argument in arguments:
        if isinstance(argument, dict) and isinstance(argument.get("name"), str):
            name = argument["name"]
            properties[name] = {k: v for k, v in argument.items() if k not in ("name", "required")}
            if argument.get("required") is True:
                required.append(name)
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


def _annotations(area: str, key: str, a: Any, b: Any) -> list[Drift]:
    old = a if isinstance(a, dict) else {}
    new = b if isinstance(b, dict) else {}
    if (a is not MISSING and not isinstance(a, dict)) or (b is not MISSING and not isinstance(b, dict)):
        return [Drift(area, key, DriftKind.ANNOTATION, "annotations", (), "annotations changed", a, b)]
    out: list[Drift] = []
    read_only_before = _effective(old, "readOnlyHint")
    read_only_after = _effective(new, "readOnlyHint")
    for hint in dict.fromkeys([*old, *new]):
        x, y = old.get(hint, MISSING), new.get(hint, MISSING)
        if json_equal(x, y):
            continue
        path = (hint,)
        risky = hint == "readOnlyHint" or (
            hint == "destructiveHint" and not (read_only_before and read_only_after)
        )
        before, after = _effective(old, hint), _effective(new, hint)
        if hint in HINT_DEFAULTS and risky and before != after:
            riskier = (hint == "readOnlyHint" and before) or (hint == "destructiveHint" and after)
            what = _risk_words(hint, bool(riskier))
            out.append(Drift(area, key, DriftKind.ANNOTATION_RISK, "annotations", path, what, x, y))
        else:
            out.append(Drift(area, key, DriftKind.ANNOTATION, "annotations", path, f"{hint} changed", x, y))
    return out


def _effective(annotations: dict[str, Any], hint: str) -> Any:
    value = annotations.get(hint, MISSING)
    return value if isinstance(value, bool) else HINT_DEFAULTS.get(hint)


def _risk_words(hint: str, riskier: bool) -> str:
    if hint == "readOnlyHint":
        return (
            "riskier: no longer read-only (it may now modify its environment)"
            if riskier
            else "safer: now read-only"
        )
    if riskier:
        return "riskier: now destructive (it may delete or overwrite)"
    return "safer: no longer destructive (only additive updates)"
