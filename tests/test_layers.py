"""The package graph of mcpspy is acyclic and layered: a new arrow upward fails with the edge named.

Every import in mcpspy/ (at the top of a module, inside a function, or under
TYPE_CHECKING: each is a dependency a reader must follow) is read with
``ast``. A unit is a package below ``mcpspy`` (``mcpspy.report``) or a
module at the top (``mcpspy.replay_policy``); ``mcpspy`` itself is the
package's ``__init__`` (its version). A unit may import units of its own
layer or of a lower one, and no chain of imports may lead back to where it
started.

A new package or top-level module goes in ``LAYERS`` below, in the lowest
layer whose units it does not need to import upward: what it imports sets the
floor, what imports it sets the ceiling.
"""

from __future__ import annotations

import ast
import itertools
from collections import defaultdict
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "mcpspy"

#: Lowest first. The names are the layers the design speaks of; the units are mcpspy's.
LAYERS: list[tuple[str, frozenset[str]]] = [
    # Pure helpers that know nothing of MCP or captures: terminal-safe text, JSON tools, exit codes.
    (
        "leaves",
        frozenset(
            {
                "mcpspy",
                "terminal",
                "exit_codes",
                "json_text",
                "jsonutil",
                "options",
                "state_dir",
                "early_signals",
                "wire",
            }
        ),
    ),
    # The capture file: records, its reader and writer, sessions, private files, the figures cache.
    ("capture", frozenset({"capture"})),
    # What records mean (pure, sans-IO), and the faults a proxy may inject into them.
    ("analysis", frozenset({"analysis", "inject"})),
    # The one replay policy: a capture becomes an analysis, live or concluded; the data it hands the analysis.
    ("policy", frozenset({"replay_policy", "analysis_data"})),
    # What views show, and the skeletons of the documents they print; client profiles; filters.
    ("model", frozenset({"model", "render", "clients", "filters"})),
    # The live OpenTelemetry exporter (the proxy's sink) and OTLP.
    ("exporters", frozenset({"export"})),
    # The subcommands and their renderers; the proxy; the agent server.
    (
        "commands",
        frozenset({"report", "check", "stats", "drift", "playback", "config", "proxy", "agent"}),
    ),
    # The Textual TUI: the views above, on a screen.
    ("tui", frozenset({"tui"})),
    # Entry points that reach everything: the argument parser, the demo (proxy and TUI at once).
    ("cli", frozenset({"cli", "__main__", "completion", "demo"})),
]

LAYER_OF = {unit: index for index, (_, units) in enumerate(LAYERS) for unit in units}
NAME_OF = [name for name, _ in LAYERS]


def unit_of(module: str) -> str:
    """``mcpspy.report.text`` -> ``report``; ``mcpspy`` -> ``mcpspy``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def module_name(path: Path) -> tuple[str, str]:
    """The module's dotted name, and the package its relative imports start from."""
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    if parts[-1] == "__init__":
        name = ".".join(parts[:-1])
        return name, name
    name = ".".join(parts)
    return name, name.rsplit(".", 1)[0]


def imported_modules(path: Path) -> list[tuple[str, int]]:
    """Every mcpspy module ``path`` imports, with the line of the import."""
    _, package = module_name(path)
    found: list[tuple[str, int]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            if target == "mcpspy":  # ``from mcpspy import json_text`` imports a module; ``__version__`` not
                units = all_units()
                found += [
                    (f"mcpspy.{alias.name}" if alias.name in units else "mcpspy", node.lineno)
                    for alias in node.names
                ]
            else:
                found.append((target, node.lineno))
    return [(m, line) for m, line in found if m == "mcpspy" or m.startswith("mcpspy.")]


def unit_edges() -> dict[tuple[str, str], list[str]]:
    """(importer, imported) between units -> where: ``mcpspy/report/command.py:12``, each place."""
    edges: dict[tuple[str, str], list[str]] = defaultdict(list)
    for path in sorted(PACKAGE.rglob("*.py")):
        name, _ = module_name(path)
        source = unit_of(name)
        for target, line in imported_modules(path):
            imported = unit_of(target)
            if imported != source:
                edges[(source, imported)].append(f"{path.relative_to(PACKAGE.parent)}:{line}")
    return edges


def all_units() -> set[str]:
    units = {"mcpspy"}
    for path in PACKAGE.iterdir():
        if path.is_dir() and (path / "__init__.py").exists():
            units.add(path.name)
        elif path.suffix == ".py" and path.name != "__init__.py":
            units.add(path.stem)
    return units


def test_every_unit_has_a_layer() -> None:
    unknown = sorted(all_units() - LAYER_OF.keys())
    assert not unknown, (
        f"mcpspy.{', mcpspy.'.join(unknown)} has no layer: add it to LAYERS in tests/test_layers.py, "
        "in the lowest layer it may sit in (what it imports sets the floor, what imports it the ceiling)"
    )


def test_no_unit_imports_from_a_layer_above_its_own() -> None:
    upward = [
        f"{source} ({NAME_OF[LAYER_OF[source]]}) imports {target} ({NAME_OF[LAYER_OF[target]]}) at "
        + ", ".join(places)
        for (source, target), places in sorted(unit_edges().items())
        if source in LAYER_OF and target in LAYER_OF and LAYER_OF[target] > LAYER_OF[source]
    ]
    assert not upward, "imports upward:\n" + "\n".join(upward)


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the graph as the path around it, or None."""
    state: dict[str, int] = {}  # 1 on the path, 2 done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for following in sorted(graph.get(node, ())):
            if state.get(following) == 1:
                return [*path[path.index(following) :], following]
            if following not in state and (cycle := visit(following)) is not None:
                return cycle
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)) is not None:
            return cycle
    return None


def test_the_unit_graph_has_no_cycle() -> None:
    edges = unit_edges()
    graph: dict[str, set[str]] = defaultdict(set)
    for source, target in edges:
        graph[source].add(target)
    cycle = find_cycle(graph)
    assert cycle is None, (
        "a cycle of imports: "
        + " -> ".join(cycle)
        + "\n"
        + "\n".join(f"{a} -> {b} at {', '.join(edges[(a, b)])}" for a, b in itertools.pairwise(cycle))
    )


def test_the_check_sees_an_upward_edge_and_a_cycle() -> None:
    """The walk finds what it must: a known downward import, and a cycle when one is made."""
    edges = unit_edges()
    assert ("report", "model") in edges and ("model", "analysis") in edges
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None
