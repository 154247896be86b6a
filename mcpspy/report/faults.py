"""`mcpspy faults [ID] [--json] [--scenarios]`: the injectable faults, as `mcpspy rules` lists findings."""

from __future__ import annotations

import argparse
import difflib
import shutil
from typing import Any

import orjson

from mcpspy.inject.catalogue import FAULT_LIST, FAULTS, Fault, Unit
from mcpspy.inject.scenarios import BUILT_IN
from mcpspy.terminal import visible_line

GRAMMAR = """\
SPEC: ID[@METHOD|@id=N][#N|#every|~P][:KEY=VALUE,...]
  @METHOD  the server's reply to the client's next METHOD request (a c2s fault, or a crash:
           the request itself); @id=N the reply to (or the request with) id N; neither: any
  #N       the Nth match only (default #1: once); #every every match; ~P each match with
           probability P (0 < P <= 1), drawn from --seed
  KEY=VALUE  durations 250ms or 2s, sizes 512, 64KiB or 4MiB, counts, text (no comma)"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("fault", nargs="?", metavar="ID", help="explain one fault, with its parameters")
    parser.add_argument("--json", action="store_true", help="the catalogue (or the scenarios) as JSON")
    parser.add_argument("--scenarios", action="store_true", help="the built-in scenarios and their SPECs")


def fault_object(fault: Fault) -> dict[str, Any]:
    return {
        "id": fault.id,
        "direction": fault.direction,
        "finding": fault.finding,
        "example": fault.example,
        "imitates": fault.imitates,
        "strikes": "request" if fault.anchor == "request" or fault.direction == "c2s" else "reply",
        "ends_session": fault.ends_session,
        "params": [
            {
                "name": p.name,
                "unit": p.unit.value,
                "default": p.default,
                "help": p.help,
                "choices": list(p.choices),
            }
            for p in fault.params
        ],
    }


def faults_table(width: int) -> str:
    id_w = max(len(f.id) for f in FAULT_LIST)
    head = f"{'ID':<{id_w}}  DIR  FINDING"
    lines = [head]
    for fault in FAULT_LIST:
        finding = fault.finding or "-"
        what = fault.imitates
        room = max(20, width - id_w - 7 - 28)
        what = what if len(what) <= room else what[: room - 1] + "…"
        lines.append(f"{fault.id:<{id_w}}  {fault.direction}  {finding:<26}  {what}")
    lines += [
        "",
        GRAMMAR,
        "",
        f"{len(FAULT_LIST)} faults; `mcpspy faults ID` shows one with its parameters and an example;",
        "`mcpspy faults --scenarios` the built-in scenarios (--scenario NAME)",
    ]
    return "\n".join(lines) + "\n"


def explain_fault(fault: Fault) -> str:
    target = "the client" if fault.direction == "s2c" else "the server"
    lines = [
        fault.id,
        f"direction {fault.direction} (tests {target})",
        f"imitates  {fault.imitates}",
        f"finding   {fault.finding or 'none (the bytes are valid; only their timing or shape changes)'}",
        f"strikes   at {'a client request' if fault.anchor == 'request' else 'a reply to a client request'}",
        f"example   mcpspy --inject '{fault.example}' -- CMD",
    ]
    if fault.ends_session:
        lines.append("ends      what follows is counted as its doing (the session rarely survives it)")
    if fault.params:
        lines += ["", "parameters:"]
        for p in fault.params:
            default = _default_text(p.unit, p.default)
            choices = f" (one of {', '.join(p.choices)})" if p.choices else ""
            lines.append(f"  {p.name:<8} {p.help}{choices}; default {default}")
    return "\n".join(lines) + "\n"


def _default_text(unit: Unit, value: int | str) -> str:
    if unit is Unit.MS:
        return f"{value}ms"
    if unit is Unit.BYTES and isinstance(value, int):
        for size, name in ((1 << 20, "MiB"), (1 << 10, "KiB")):
            if value % size == 0:
                return f"{value // size}{name}"
    return str(value)


def scenarios_text() -> str:
    lines = []
    for scenario in BUILT_IN.values():
        lines += [f"{scenario.name}: {scenario.about}", *(f"  {spec}" for spec in scenario.specs()), ""]
    lines.append("--scenario NAME runs one; a TOML file holds your own: inject = [SPEC, ...], seed = N")
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace) -> int:
    from mcpspy.exit_codes import fail
    from mcpspy.report.command import print_out

    if args.scenarios:
        if args.json:
            objects = [{"name": s.name, "about": s.about, "specs": s.specs()} for s in BUILT_IN.values()]
            print_out(orjson.dumps(objects, option=orjson.OPT_INDENT_2).decode() + "\n")
        else:
            print_out(scenarios_text())
        return 0
    if args.fault is None:
        if args.json:
            print_out(
                orjson.dumps([fault_object(f) for f in FAULT_LIST], option=orjson.OPT_INDENT_2).decode()
                + "\n"
            )
        else:
            print_out(faults_table(shutil.get_terminal_size(fallback=(120, 24)).columns))
        return 0
    fault = FAULTS.get(args.fault)
    if fault is None:
        near = difflib.get_close_matches(args.fault, list(FAULTS), n=4, cutoff=0.5)
        hint = f"; did you mean {', '.join(near)}?" if near else "; `mcpspy faults` lists them all"
        return fail("mcpspy faults", f"no fault {visible_line(args.fault)!r}{hint}")
    if args.json:
        print_out(orjson.dumps(fault_object(fault), option=orjson.OPT_INDENT_2).decode() + "\n")
    else:
        print_out(explain_fault(fault))
    return 0
