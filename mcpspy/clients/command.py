"""``mcpspy clients [NAME] [--json]``: the client profiles, each behaviour with its public source."""

from __future__ import annotations

import argparse
import sys

import orjson

from mcpspy.clients import known_names, parse_names
from mcpspy.clients.profiles import BEHAVIOURS, Profile, profiles
from mcpspy.exit_codes import EXIT_UNREADABLE


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("name", nargs="?", help=f"one client: {', '.join(known_names())}")
    p.add_argument("--json", action="store_true", help="the profiles as JSON")


def run(args: argparse.Namespace) -> int:
    known = profiles()
    if args.name is None:
        chosen = list(known.values())
    else:
        try:
            (name,) = parse_names(args.name)
        except ValueError as exc:
            print(f"mcpspy clients: {exc}", file=sys.stderr)
            return EXIT_UNREADABLE
        chosen = [known[name]]
    if args.json:
        sys.stdout.buffer.write(
            orjson.dumps([p.as_json() for p in chosen], option=orjson.OPT_INDENT_2) + b"\n"
        )
        return 0
    sys.stdout.write("\n".join(text(p) for p in chosen))
    return 0


def text(profile: Profile) -> str:
    lines = [f"{profile.title} ({profile.name}), versions {profile.versions}", f"  {profile.home}"]
    for key in BEHAVIOURS:
        b = profile.behaviours[key]
        does = f"{b.does} {b.ms} ms" if b.ms is not None else b.does
        lines.append(f"  {key.replace('_', ' '):26} {does}")
        if b.note:
            lines.append(f"  {'':26}   {b.note}")
        if b.source != "unknown":
            lines.append(f"  {'':26}   {b.source}")
    return "\n".join(lines) + "\n"
