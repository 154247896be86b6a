"""Cut the official schema.json of each revision down to the result shapes mcpspy checks.

    python -m tests.analysis.make_result_schemas [SPEC_DIR]

writes mcpspy/result_schemas.json (read by mcpspy/analysis_data.py): for each revision, the result
definitions of shapes.RESULT_DEFS and every definition they reference, with
descriptions dropped and "$ref"s reduced to the definition's name. The spec
directory defaults to ../shared/spec next to the checkout (see SOURCE.md there).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from mcpspy.analysis.rules.shapes import RESULT_DEFS
from mcpspy.analysis.schema import REVISIONS
from mcpspy.analysis_data import PACKAGED

SPEC_DIR = Path(__file__).resolve().parents[3] / "shared" / "spec"
SOURCE = (
    "modelcontextprotocol/modelcontextprotocol schema/<revision>/schema.json at "
    "b0f60ba5409db7a6582440a7b473cc0398890f15 (MIT licence); descriptions removed"
)
DROPPED = frozenset({"description", "$comment", "default", "examples", "title", "$schema", "format"})


def _strip(node: Any) -> Any:
    """The node without prose, its refs reduced to bare names.

    Loosened where the generated schema is narrower than schema.ts, so that
    nothing legal is flagged: a union's "integer" stands for TypeScript's
    `number` (ElicitResult content, JSONValue), so it becomes "number".
    """
    if isinstance(node, list):
        return [_strip(item) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "$ref":
            out[key] = value.rsplit("/", 1)[-1]
        elif key == "type" and isinstance(value, list):
            out[key] = ["number" if kind == "integer" else kind for kind in value]
        elif key in ("properties", "$defs", "definitions"):
            out[key] = {name: _strip(sub) for name, sub in value.items()}
        elif key not in DROPPED:
            out[key] = _strip(value)
    return out


def _refs(node: Any, found: set[str]) -> None:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                found.add(value)
            else:
                _refs(value, found)
    elif isinstance(node, list):
        for item in node:
            _refs(item, found)


def cut(schema: dict[str, Any]) -> dict[str, Any]:
    """The result definitions and their closure under $ref."""
    defs = {name: _strip(body) for name, body in (schema.get("$defs") or schema["definitions"]).items()}
    if "JSONValue" in defs:
        defs["JSONValue"] = {}  # generated without null and fractional numbers; any JSON value is meant
    wanted = [name for name in sorted(set(RESULT_DEFS.values())) if name in defs]
    kept: dict[str, Any] = {}
    while wanted:
        name = wanted.pop()
        if name in kept:
            continue
        kept[name] = defs[name]
        found: set[str] = set()
        _refs(defs[name], found)
        wanted.extend(sorted(found - kept.keys()))
    return dict(sorted(kept.items()))


def build(spec_dir: Path) -> bytes:
    revisions = {rev: cut(json.loads((spec_dir / rev / "schema.json").read_bytes())) for rev in REVISIONS}
    document = {"source": SOURCE, "revisions": revisions}
    return json.dumps(document, sort_keys=True, separators=(",", ":")).encode() + b"\n"


def main(argv: list[str]) -> int:
    spec_dir = Path(argv[0]) if argv else SPEC_DIR
    PACKAGED.write_bytes(build(spec_dir))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
