"""The SPEC grammar, and what the command line says about a bad SPEC or scenario."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mcpspy.inject.catalogue import FAULTS
from mcpspy.inject.scenarios import BUILT_IN, ScenarioError, specs_from
from mcpspy.inject.spec import SpecError, parse_spec
from tests.conftest import MCPSPY


def test_every_part_of_the_grammar() -> None:
    spec = parse_spec("stdout.split@tools/call#3:writes=4,gap=2s")
    assert (spec.fault.id, spec.method, spec.nth, spec.every) == ("stdout.split", "tools/call", 3, False)
    assert spec.params == {"writes": 4, "gap": 2000}
    assert parse_spec("reply.delay@id=7#every:ms=250").id == 7
    assert parse_spec("reply.delay@id=abc").id == "abc"
    chance = parse_spec("stdout.crlf~0.25")
    assert (chance.nth, chance.probability) == (None, 0.25)
    assert parse_spec("stdout.oversized-line:size=4MiB").params["size"] == 4 * 1024 * 1024
    assert parse_spec("stdout.oversized-line:size=64KiB").params["size"] == 64 * 1024
    assert parse_spec("stdout.not-json").params == {"text": "ready"}  # defaults filled in
    assert parse_spec("stdout.not-json").nth == 1  # once, by default


@pytest.mark.parametrize(
    ("text", "column", "says"),
    [
        ("stdout.nope", 1, "no fault 'stdout.nope'"),
        ("", 1, "expected a fault id"),
        ("stdout.crlf@", 13, "expected a method"),
        ("stdout.crlf#0", 13, "#N with N from 1"),
        ("stdout.crlf#x", 13, "#N with N from 1"),
        ("stdout.crlf~2", 13, "probability"),
        ("stdout.crlf!", 12, "unexpected '!'"),
        ("stdout.crlf:x=1", 13, "has no parameter 'x'"),
        ("stdout.split:writes", 14, "expected KEY=VALUE"),
        ("stdout.split:writes=many", 21, "whole number"),
        ("stdout.split:gap=soon", 18, "a duration"),
        ("stdout.oversized-line:size=2GiB", 28, "at most 1GiB"),
        ("server.notification-flood:kind=spam", 32, "one of log, progress, list-changed"),
    ],
)
def test_a_bad_spec_names_its_column(text: str, column: int, says: str) -> None:
    with pytest.raises(SpecError) as caught:
        parse_spec(text)
    assert caught.value.column == column
    assert says in str(caught.value)


@given(st.text(max_size=40))
def test_any_text_parses_or_is_a_spec_error(text: str) -> None:
    try:
        spec = parse_spec(text)
    except SpecError as exc:
        assert 1 <= exc.column <= len(text) + 1
        assert "\n" not in str(exc)
    else:
        assert spec.fault.id in FAULTS


def test_every_catalogue_example_parses_to_its_fault() -> None:
    for fault in FAULTS.values():
        assert parse_spec(fault.example).fault is fault


def test_built_in_scenarios_parse_and_put_the_faults_that_end_a_session_last() -> None:
    for name, scenario in BUILT_IN.items():
        specs = specs_from([name], [])
        assert len(specs) == len(scenario.faults)
        assert len({s.nth for s in specs}) == len(specs)  # each at its own reply
        ending = [
            i for i, s in enumerate(specs) if s.fault.ends_session or s.fault.id.endswith("invalid-utf8")
        ]
        assert ending == list(range(len(specs) - len(ending), len(specs)))


def test_a_scenario_file(tmp_path: Path) -> None:
    path = tmp_path / "suite.toml"
    path.write_text('inject = ["stdout.crlf#2", "pairing.unanswered@tools/call"]\nseed = 4\n')
    assert [s.text for s in specs_from([str(path)], ["stdout.blank-line"])] == [
        "stdout.crlf#2",
        "pairing.unanswered@tools/call",
        "stdout.blank-line",
    ]
    path.write_text('inject = ["stdout.crlf#2", "stdout.crlf@"]\n')
    with pytest.raises(ScenarioError, match=r"inject item 2: bad --inject 'stdout.crlf@' at column 13"):
        specs_from([str(path)], [])
    path.write_text("inject = [\n")
    with pytest.raises(ScenarioError, match="not TOML"):
        specs_from([str(path)], [])
    path.write_text('inject = ["stdout.crlf"]\nfaults = 1\n')
    with pytest.raises(ScenarioError, match="unknown key 'faults'"):
        specs_from([str(path)], [])


@pytest.mark.parametrize(
    ("options", "says"),
    [
        (
            ["--inject", "stdout.nope"],
            "mcpspy: bad --inject 'stdout.nope' at column 1: no fault 'stdout.nope'",
        ),
        (["--inject", "stdout.crlf#0"], "mcpspy: bad --inject 'stdout.crlf#0' at column 13"),
        (["--scenario", "no-such"], "mcpspy: no scenario 'no-such': neither a file nor a built-in"),
    ],
)
def test_bad_input_is_one_line_exit_2_and_nothing_started(
    tmp_path: Path, options: list[str], says: str
) -> None:
    marker = tmp_path / "started"
    proc = subprocess.run(
        [
            *MCPSPY,
            "--capture",
            str(tmp_path / "c.jsonl"),
            *options,
            "--",
            sys.executable,
            "-c",
            f"open({str(marker)!r}, 'w')",
        ],
        capture_output=True,
        timeout=60,
    )
    assert proc.returncode == 2
    assert proc.stdout == b""
    lines = proc.stderr.decode().splitlines()
    assert len(lines) == 1 and lines[0].startswith(says), lines
    assert not marker.exists() and not (tmp_path / "c.jsonl").exists()


def faults(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([*MCPSPY, "faults", *args], capture_output=True, timeout=60)


def test_faults_lists_the_catalogue_as_json_with_the_fields_ci_reads() -> None:
    import json

    listed = json.loads(faults("--json").stdout)
    assert [f["id"] for f in listed] == list(FAULTS)
    for f in listed:
        assert f["direction"] in ("s2c", "c2s")
        assert f["finding"] is None or isinstance(f["finding"], str)
        assert parse_spec(f["example"]).fault.id == f["id"]
    assert {f["direction"] for f in listed} == {"s2c", "c2s"}
    one = json.loads(faults("stdout.split", "--json").stdout)
    assert [p["name"] for p in one["params"]] == ["writes", "gap"]
    text = faults().stdout.decode()
    assert "ID[@METHOD|@id=N][#N|#every|~P][:KEY=VALUE,...]" in text
    scenarios = json.loads(faults("--scenarios", "--json").stdout)
    assert [s["name"] for s in scenarios] == list(BUILT_IN)


def test_faults_with_an_unknown_id_is_one_line_and_exit_2() -> None:
    proc = faults("stdout.spilt")
    assert proc.returncode == 2
    assert proc.stderr.decode().splitlines() == [
        "mcpspy faults: no fault 'stdout.spilt'; did you mean stdout.split, stdout.drip, stdout.crlf, stdin.split?"
    ]
