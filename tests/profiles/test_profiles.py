"""Client profiles (issue 27): sourced data, read by --clients, judging each tool by the clients named."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from importlib import resources
from pathlib import Path
from typing import Any

import orjson
import pytest

from mcpspy.analysis.rules.tool_schemas import CONSTRUCTS
from mcpspy.clients import known_names, parse_names
from mcpspy.clients.profiles import BEHAVIOURS, DROPPING, ProfileError, parse, profiles
from tests.analysis.steps import CALL_RESULT, TOOLS_RESULT, build, c2s, req, res, s2c, wait
from tests.conftest import MCPSPY
from tests.export.collector import running_collector

REQUIRED_CLIENTS = {
    "claude-code",
    "claude-desktop",
    "cursor",
    "vscode",
    "codex",
    "gemini-cli",
    "python-sdk",
    "typescript-sdk",
}
URL = re.compile(r"https://[^\s\"'<>]+")


def raw_profiles() -> dict[str, dict[str, Any]]:
    files = resources.files("mcpspy.clients").iterdir()
    return {f.name: tomllib.loads(f.read_text()) for f in files if f.name.endswith(".toml")}


def test_every_required_client_has_a_profile() -> None:
    assert REQUIRED_CLIENTS <= set(profiles()) == set(known_names())


@pytest.mark.parametrize("file", sorted(raw_profiles()))
def test_every_behaviour_has_a_source_url_or_says_unknown(file: str) -> None:
    data = raw_profiles()[file]
    assert data["name"] == file.removesuffix(".toml") and data["versions"] and URL.fullmatch(data["home"])
    for key in BEHAVIOURS:
        behaviour = data[key]
        if behaviour["source"] == "unknown":
            assert behaviour["does"] == "unknown" or key == "boolean_subschema", (file, key)
        else:
            assert URL.fullmatch(behaviour["source"]), (file, key, behaviour["source"])
        if behaviour["does"] != "unknown":
            assert behaviour["source"] != "unknown", (file, key)


@pytest.mark.parametrize(
    ("change", "error"),
    [
        (('[ref]\ndoes = "drops-tool"\nsource = "unknown"', "with no source")),
        (('[ref]\ndoes = "drops-tool"\nsource = "somewhere"', "a https URL")),
        (('[ref]\ndoes = "explodes"\nsource = "unknown"', "not one of")),
    ],
)
def test_a_profile_without_a_source_does_not_load(change: tuple[str, str], error: str) -> None:
    text = (resources.files("mcpspy.clients") / "cursor.toml").read_text()
    broken = re.sub(r'\[ref\]\ndoes = "[^"]*"\nsource = "[^"]*"', lambda _: change, text)
    assert broken != text
    with pytest.raises(ProfileError, match=error):
        parse(broken, "cursor.toml")


def test_client_names_are_checked() -> None:
    assert parse_names("Cursor, codex,cursor") == ("cursor", "codex")
    with pytest.raises(ValueError, match="unknown client 'zed'"):
        parse_names("cursor,zed")
    bad = subprocess.run([*MCPSPY, "report", "--clients", "zed", "x.jsonl"], capture_output=True, text=True)
    assert bad.returncode == 2 and "unknown client 'zed'" in bad.stderr and "Traceback" not in bad.stderr


def test_the_clients_command_prints_every_profile_with_its_sources() -> None:
    shown = subprocess.run([*MCPSPY, "clients", "--json"], capture_output=True, timeout=60)
    listed = {p["name"]: p for p in orjson.loads(shown.stdout)}
    assert set(listed) == set(profiles())
    for name, profile in profiles().items():
        for key, behaviour in profile.behaviours.items():
            assert listed[name]["behaviours"][key]["source"] == behaviour.source
    text = subprocess.run([*MCPSPY, "clients", "cursor"], capture_output=True, text=True, timeout=60).stdout
    assert (
        text.startswith("Cursor (cursor)") and profiles()["cursor"].behaviours["required_null"].source in text
    )


# One tool a construct: which tools a client drops follows from its profile alone.
CONSTRUCT_TOOLS: dict[str, dict[str, Any]] = {
    "top_level_composition": {"type": "object", "anyOf": [{"required": ["a"]}, {"required": ["b"]}]},
    "nested_composition": {"type": "object", "properties": {"a": {"oneOf": [{"type": "string"}, {}]}}},
    "ref": {"type": "object", "properties": {"a": {"$ref": "#/$defs/a"}}, "$defs": {"a": {}}},
    "dynamic_ref": {"type": "object", "properties": {"a": {"$dynamicRef": "#a"}}},
    "boolean_subschema": {"type": "object", "properties": {"a": True}},
    "schema_dialect": {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object"},
    "required_null": {"type": "object", "required": None},
    "non_object_root": {"type": "array"},
}


def constructs_capture(tmp_path: Path) -> Path:
    tools = [{"name": construct, "inputSchema": schema} for construct, schema in CONSTRUCT_TOOLS.items()]
    tools.append({"name": "x" * 129, "inputSchema": {"type": "object"}})  # tool_name
    path = tmp_path / "constructs.jsonl"
    path.write_bytes(build([c2s(req(1, "tools/list")), s2c(res(1, {**TOOLS_RESULT, "tools": tools}))], "c"))
    return path


def dropped_tools(path: Path, clients: str) -> tuple[int, dict[str, set[str]]]:
    """The report's exit code, and per tool-schema rule finding: the tool named, and who drops it."""
    done = subprocess.run(
        [*MCPSPY, "report", "--json", "--clients", clients, str(path)], capture_output=True, timeout=60
    )
    dropped: dict[str, set[str]] = {}
    for finding in orjson.loads(done.stdout)["findings"]:
        if finding["dropped_by"] is None:
            continue
        match = re.match(r"tool (?:name )?'([^']+)'", finding["message"])
        assert match, finding["message"]
        tool = "tool_name" if match.group(1).startswith("xxx") else match.group(1)
        assert finding["severity"] == ("error" if finding["dropped_by"] else "info")
        dropped.setdefault(tool, set()).update(finding["dropped_by"])
    return done.returncode, dropped


def test_cursor_and_codex_drop_the_tools_their_profiles_say(tmp_path: Path) -> None:
    path = constructs_capture(tmp_path)
    for client in ("cursor", "codex", "gemini-cli", "typescript-sdk"):
        code, dropped = dropped_tools(path, client)
        behaviours = profiles()[client].behaviours
        expected = {c for c in CONSTRUCTS if behaviours[c].does in DROPPING}
        assert {tool for tool, who in dropped.items() if client in who} == expected, client
        assert set(dropped) == set(CONSTRUCTS)  # every construct is named, judged for this client
        assert code == (1 if expected else 0)
    _, by_cursor = dropped_tools(path, "cursor")
    _, by_codex = dropped_tools(path, "codex")
    cursor = {t for t, who in by_cursor.items() if who}
    codex = {t for t, who in by_codex.items() if who}
    assert cursor != codex and {"top_level_composition", "nested_composition", "required_null"} <= cursor


def test_the_sentence_says_who_drops_and_who_keeps(tmp_path: Path) -> None:
    path = constructs_capture(tmp_path)
    done = subprocess.run(
        [*MCPSPY, "report", "--clients", "cursor,codex", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "'nested_composition'" in done.stdout and "dropped by Cursor; kept by Codex" in done.stdout


def test_every_profile_judges_by_default(tmp_path: Path) -> None:
    path = constructs_capture(tmp_path)
    _, dropped = dropped_tools(path, ",".join(known_names()))
    done = subprocess.run([*MCPSPY, "report", "--json", str(path)], capture_output=True, timeout=60)
    default = {f["message"]: f["dropped_by"] for f in orjson.loads(done.stdout)["findings"]}
    expected = {c for c in CONSTRUCTS if any(p.behaviours[c].does in DROPPING for p in profiles().values())}
    assert {t for t, who in dropped.items() if who} == expected
    assert sum(1 for who in default.values() if who) == len(expected)


def test_a_long_call_is_a_warning_naming_the_clients_that_give_up(tmp_path: Path) -> None:
    path = tmp_path / "slow.jsonl"
    call = req(1, "tools/call", name="export")
    path.write_bytes(build([c2s(call), wait(90.0), s2c(res(1, CALL_RESULT))], "slow"))

    def warned(clients: str) -> list[str]:
        done = subprocess.run(
            [*MCPSPY, "report", "--json", "--clients", clients, str(path)], capture_output=True, timeout=60
        )
        findings = orjson.loads(done.stdout)["findings"]
        return [f["message"] for f in findings if f["id"] == "request.no-progress-token"]

    (said,) = warned("codex,cursor")
    assert "Codex gives up after 60s" in said and "Cursor" not in said
    assert warned("cursor") == []  # its timeout is unknown: nothing to hold the call to
    assert warned("gemini-cli") == []  # 600 s: the call ended in time


NESTED_SERVER = """
import json, sys
tool = {"name": "nested", "inputSchema": {"type": "object", "properties": {"a": {"anyOf": [{"type": "string"}]}}}}
for line in sys.stdin:
    message = json.loads(line)
    if "id" in message:
        print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": {"tools": [tool]}}), flush=True)
"""


@pytest.mark.parametrize(("client", "severity"), [("cursor", "error"), ("codex", "info")])
def test_the_proxys_clients_judge_in_its_live_sink_too(tmp_path: Path, client: str, severity: str) -> None:
    """--clients on the proxy reaches the --log/OTLP child: its findings are the named client's verdicts."""
    server = tmp_path / "nested.py"
    server.write_text(NESTED_SERVER)
    request = b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}\n'
    with running_collector() as collector:
        done = subprocess.run(
            [*MCPSPY, "--home", str(tmp_path / "home"), "--clients", client, "--otlp-endpoint", collector.url,
             "--", sys.executable, str(server)],
            input=request, capture_output=True, timeout=60,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        points = collector.received.sum_points("mcpspy.finding.count")
    judged = {
        p["attributes"]["mcpspy.finding.severity"]
        for p in points
        if p["attributes"]["mcpspy.rule.id"] == "tools.schema-nested-combinator"
    }
    assert judged == {severity}
