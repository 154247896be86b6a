"""The server's command line, directory and name in the capture header: bytes that are not UTF-8, secrets.

Driven through the real executable, with real non-UTF-8 bytes in argv and in
the working directory (``os.fsencode``, bytes argv to ``subprocess``).
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from mcpspy.capture.command_line import header_text, redact_command, redact_text, storable
from tests.conftest import MCPSPY

ECHO_ARGS = (
    "import sys; sys.stdout.buffer.write(b'|'.join(map(__import__('os').fsencode, sys.argv[1:])) + b'\\n')"
)


def run_bytes(argv: list[bytes], cwd: bytes, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [os.fsencode(a) for a in MCPSPY] + argv, cwd=cwd, input=stdin, capture_output=True, timeout=60
    )


def header_of(capture: Path) -> dict[str, object]:
    first = capture.read_bytes().split(b"\n", 1)[0]
    header: dict[str, object] = json.loads(first)
    return header


def test_bytes_that_are_not_utf8_in_argv_cwd_and_name_never_stop_the_server(tmp_path: Path) -> None:
    latin1_dir = os.fsencode(tmp_path) + b"/caf\xe9"
    os.mkdir(latin1_dir)
    capture = tmp_path / "c.jsonl"
    argv = [b"--capture", os.fsencode(capture), b"--name", b"n\xff", b"--"]
    server = [os.fsencode(sys.executable), b"-c", ECHO_ARGS.encode(), b"caf\xe9", b"\xff\xfe"]
    proc = run_bytes(argv + server, cwd=latin1_dir)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == b"caf\xe9|\xff\xfe\n"  # the server got its arguments exactly
    assert proc.stderr == b""
    header = header_of(capture)
    assert header["command"] == [sys.executable, "-c", ECHO_ARGS, "caf\\xe9", "\\xff\\xfe"]
    assert header["cwd"] == os.fsdecode(latin1_dir).encode("utf-8", "surrogateescape").decode(
        "utf-8", "backslashreplace"
    )
    assert header["name"] == "n\\xff" and header["escaped"] == ["command", "cwd", "name"]
    report = subprocess.run([*MCPSPY, "report", str(capture)], capture_output=True, timeout=60)
    assert report.returncode == 1 and b"caf\\xe9" in report.stdout  # 1: its stdout is not JSON


SECRETS = [
    "s3cr3t-flag",
    "hunter2pw",
    "sk-proj-AAAAAAAAAAAAAAAAAAAAAAAA",
    "ghp_BBBBBBBBBBBBBBBBBBBBBBBBBBBB",
    "qwertyuiop-bearer",
]


def test_secrets_on_the_command_line_are_in_no_file_and_no_view(tmp_path: Path) -> None:
    capture = tmp_path / "c.jsonl"
    args = [
        "--api-key",
        SECRETS[0],
        "--password=" + SECRETS[1],
        "OPENAI_API_KEY=" + SECRETS[2],
        "--repo-url=https://x:" + SECRETS[3] + "@github.com/o/r",
        "Authorization: Bearer " + SECRETS[4],
    ]
    digest = hashlib.sha256("\0".join(args).encode()).hexdigest()  # the script must not hold the secrets
    check_args = (
        "import hashlib, sys; "
        f"print('same' if hashlib.sha256(chr(0).join(sys.argv[1:]).encode()).hexdigest() == {digest!r} else 0)"
    )
    server = [sys.executable, "-c", check_args, *args]
    proc = subprocess.run(
        [*MCPSPY, "--capture", str(capture), "--", *server], capture_output=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == b"same\n"  # the server got its arguments as they were
    header = header_of(capture)
    assert header["command"][3:] == [  # type: ignore[index]
        "--api-key",
        "<redacted:11>",
        "--password=<redacted:9>",
        "OPENAI_API_KEY=<redacted:32>",
        "--repo-url=https://<redacted:34>@github.com/o/r",
        "Authorization: Bearer <redacted:17>",
    ]
    views: list[bytes] = []
    for form in ("text", "json", "markdown", "html", "har", "otlp", "junit", "sarif"):
        out = tmp_path / f"report.{form}"
        subprocess.run(
            [*MCPSPY, "report", str(capture), "--format", form, "--out", str(out)],
            capture_output=True,
            timeout=60,
        )
        views.append(out.read_bytes())
    sessions_dir = tmp_path / "home"
    sessions_dir.mkdir(mode=0o700)
    os.link(capture, sessions_dir / "20261204T000000.000Z-x-1.jsonl")
    for command in (["sessions"], ["sessions", "--json"]):
        views.append(
            subprocess.run(
                [*MCPSPY, *command, "--home", str(sessions_dir)], capture_output=True, timeout=60
            ).stdout
        )
    views.append(capture.read_bytes())
    for view in views:
        assert view and not any(secret.encode() in view for secret in SECRETS), view[:2000]


@pytest.mark.parametrize(
    ("argv", "stored"),
    [
        (["--token", "abc"], ["--token", "<redacted:3>"]),
        (["-password", "abc"], ["-password", "<redacted:3>"]),
        (["--client-secret=abc"], ["--client-secret=<redacted:3>"]),
        (["--ssh-key", "abc", "x.js"], ["--ssh-key", "<redacted:3>", "x.js"]),
        (["--token", "--verbose"], ["--token", "--verbose"]),  # a flag follows: nothing to hide
        (["GITHUB_TOKEN=abc", "A=b"], ["GITHUB_TOKEN=<redacted:3>", "A=b"]),
        (["node", "server.js", "--port", "3"], ["node", "server.js", "--port", "3"]),
        (["xoxb-1234567890-abcdef"], ["<redacted:22>"]),
        (["AKIAABCDEFGHIJKLMNOP"], ["<redacted:20>"]),
        (["eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl"], ["<redacted:49>"]),
        (["-H", "authorization: bearer abc.def"], ["-H", "authorization: bearer <redacted:7>"]),
    ],
)
def test_command_line_redaction(argv: list[str], stored: list[str]) -> None:
    assert list(redact_command(argv)) == stored


def test_a_secret_argument_never_names_the_session() -> None:
    assert header_text(["node", "--token", "hunter2", "srv.js"], "/", None).name == "srv"
    assert "hunter2" not in header_text(["uvx", "--api-key=hunter2"], "/", None).name


@given(st.lists(st.binary(max_size=12), max_size=5), st.binary(max_size=20), st.binary(max_size=8))
def test_any_argv_cwd_and_name_bytes_make_a_header_json_can_carry(
    argv: list[bytes], cwd: bytes, name: bytes
) -> None:
    text = header_text([os.fsdecode(a) for a in argv], os.fsdecode(cwd), os.fsdecode(name) or None)
    orjson.dumps([text.command, text.cwd, text.name])
    fields = {
        "command": [os.fsdecode(a) for a in argv],
        "cwd": [os.fsdecode(cwd)],
        "name": [os.fsdecode(name)],
    }
    for field, values in fields.items():
        assert (field in text.escaped) == any(storable(v)[1] for v in values)


@given(st.text(max_size=40))
def test_text_without_a_credential_shape_is_stored_as_it_is(text: str) -> None:
    if "sk-" not in text and "://" not in text and "earer" not in text.casefold() and "eyJ" not in text:
        assert redact_text(text) == text
