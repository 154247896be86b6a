"""Scenarios: a named, repeatable list of SPECs (``--scenario FILE|NAME``), so a client's CI
runs the same faults every time.

A built-in scenario walks through its faults once each, one every ``SPACING``
replies (each SPEC strikes at its own ``#N``), so that each reaction can be
told apart; the faults that usually end a session (invalid UTF-8, a cut
line, a crash) come last. A file is TOML (read with ``tomllib``)::

    # my-client.toml
    inject = ["stdout.not-json@tools/list", "pairing.duplicate-response#3", "reply.delay:ms=1s"]
    seed = 7          # optional: --seed's default for this scenario

Errors name the file, the place and what is wrong (``ScenarioError``).
"""

from __future__ import annotations

import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from mcpspy.inject.spec import Spec, SpecError, parse_spec

SPACING = 3  # replies between two faults of a built-in scenario
FIRST = 3  # the reply the first one strikes at (the first ones set the session up)


class ScenarioError(ValueError):
    """A scenario that cannot be read: no such name or file, bad TOML, a bad SPEC in it."""


@dataclass(frozen=True, slots=True)
class Scenario:
    name: str
    about: str
    faults: tuple[str, ...]  # SPECs without an occurrence: ``spaced`` gives each its #N

    def specs(self) -> list[str]:
        return spaced(self.faults)


def spaced(faults: Sequence[str]) -> list[str]:
    """Each fault at its own reply: #3, #6, #9... (a SPEC that names its occurrence keeps it)."""
    out = []
    for i, fault in enumerate(faults):
        head, colon, params = fault.partition(":")
        if "#" in head or "~" in head:
            out.append(fault)
        else:
            out.append(f"{head}#{FIRST + i * SPACING}{colon}{params}")
    return out


_FRAMING = (
    "stdout.blank-line",
    "stdout.not-json",
    "stdout.glued-prefix",
    "stdout.crlf",
    "stdout.content-length",
    "stdout.multiline-json",
    "stdout.split",
    "stdout.coalesced:wait=500ms",
    "stdout.drip",
    "stdout.oversized-line:size=4MiB",
)
_PAIRING = (
    "server.ping",
    "server.roots-list",
    "server.sampling",
    "server.elicitation",
    "server.notification-flood:kind=log,count=200",
    "server.notification-flood:kind=list-changed,count=20",
    "reply.wrong-id-type",
    "pairing.unknown-id",
    "pairing.duplicate-response",
    "pairing.out-of-order:wait=500ms",
    "pairing.reply-after-cancel:wait=5s",
    "pairing.unanswered",
)
_SLOW = (
    "reply.delay:ms=1500",
    "stdout.split:writes=5,gap=200ms",
    "stdout.drip:gap=1ms",
    "stderr.flood:size=256KiB",
)
_ENDING = ("stdout.invalid-utf8", "stdout.unterminated", "lifecycle.crash-in-flight")

BUILT_IN: dict[str, Scenario] = {
    s.name: s
    for s in (
        Scenario(
            "framing",
            "every framing fault a server makes on stdout, invalid UTF-8 last",
            (*_FRAMING, _ENDING[0]),
        ),
        Scenario(
            "pairing", "replies and requests out of the usual order, doubled, dropped or unasked", _PAIRING
        ),
        Scenario(
            "slow",
            "a slow server: delays, split and dripped writes, a stderr flood; a crash last",
            (*_SLOW, _ENDING[2]),
        ),
        Scenario(
            "all",
            "framing, pairing and slow in turn; the faults that end a session last",
            (*_FRAMING, *_PAIRING, *_SLOW, *_ENDING),
        ),
    )
}


def load(name_or_path: str) -> tuple[list[str], int | None]:
    """A scenario's SPECs (and its seed, if it names one): a built-in name, else a TOML file."""
    built_in = BUILT_IN.get(name_or_path)
    if built_in is not None:
        return built_in.specs(), None
    path = Path(name_or_path)
    try:
        with path.open("rb") as f:
            data = tomllib.load(f)
    except FileNotFoundError:
        names = ", ".join(BUILT_IN)
        raise ScenarioError(
            f"no scenario {name_or_path!r}: neither a file nor a built-in ({names})"
        ) from None
    except OSError as exc:
        raise ScenarioError(f"cannot read scenario {name_or_path}: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ScenarioError(f"scenario {name_or_path}: not TOML ({exc})") from None
    unknown = sorted(set(data) - {"inject", "seed", "name", "about"})
    if unknown:
        raise ScenarioError(f"scenario {name_or_path}: unknown key {unknown[0]!r} (it has inject, seed)")
    specs = data.get("inject")
    if not isinstance(specs, list) or not specs or not all(isinstance(s, str) for s in specs):
        raise ScenarioError(f"scenario {name_or_path}: inject must be a non-empty list of SPEC strings")
    seed = data.get("seed")
    if seed is not None and (type(seed) is not int):
        raise ScenarioError(f"scenario {name_or_path}: seed must be a whole number")
    return specs, seed


def specs_from(scenarios: Sequence[str], injects: Sequence[str]) -> tuple[Spec, ...]:
    """Every SPEC asked for, scenarios first, each parsed (a SpecError or ScenarioError says where)."""
    out: list[Spec] = []
    for scenario in scenarios:
        texts, _ = load(scenario)
        for index, text in enumerate(texts, 1):
            try:
                out.append(parse_spec(text))
            except SpecError as exc:
                raise ScenarioError(f"scenario {scenario}, inject item {index}: {exc}") from None
    out += (parse_spec(text) for text in injects)
    return tuple(out)


def scenario_seed(scenarios: Sequence[str]) -> int | None:
    """The seed the first scenario file that names one gives."""
    for scenario in scenarios:
        if scenario not in BUILT_IN:
            _, seed = load(scenario)
            if seed is not None:
                return seed
    return None
