"""Redaction of credentials in captured lines: the pure logic, with hypothesis where it takes bytes."""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcpspy.capture import redact
from mcpspy.capture.redact import (
    DEFAULT_KEYS,
    FOLDS_TO_ASCII,
    SCHEMA_FIELDS,
    RedactionPolicy,
    Redactor,
    canonical,
    names_credential,
)

MARKER = re.compile(r"<redacted:(string|number|object|array|text|rest):(\d+):([0-9a-f]{12})>")
KEY = b"k" * 32


def redacted(line: bytes, redactor: Redactor | None = None) -> Any:
    out = (redactor or Redactor(hash_key=KEY)).redact(line)
    assert out is not None, line
    return json.loads(out)


def marker(value: object) -> tuple[str, int]:
    assert isinstance(value, str), value
    match = MARKER.fullmatch(value)
    assert match, value
    return match[1], int(match[2])


def test_credentials_at_any_depth_in_params_results_and_errors() -> None:
    request = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"s","arguments":{"api_key":"sk-live-123","q":"hi"},"_meta":{"Authorization":"Bearer abc.def"}}}'
    out = redacted(request)
    assert marker(out["params"]["arguments"]["api_key"]) == ("string", 11)
    assert marker(out["params"]["_meta"]["Authorization"]) == ("string", 14)
    assert out["params"]["arguments"]["q"] == "hi" and out["method"] == "tools/call"
    result = b'{"id":1,"result":{"structuredContent":{"session":{"tokens":[{"access_token":"at","refresh_token":"rt"}]}}}}'
    tokens = redacted(result)["result"]["structuredContent"]["session"]["tokens"][0]
    assert marker(tokens["access_token"]) == ("string", 2) and marker(tokens["refresh_token"])[0] == "string"
    error = b'{"id":1,"error":{"code":-32000,"message":"bad","data":{"password":"hunter2"}}}'
    assert marker(redacted(error)["error"]["data"]["password"]) == ("string", 7)


@pytest.mark.parametrize(
    "key",
    [
        "Authorization",
        "PROXY-AUTHORIZATION",
        "apiKey",
        "API_KEY",
        "x-api-key",
        "X_Api_Key",
        "accessToken",
        "ID_TOKEN",
        "Set-Cookie",
        "clientSecret",
        "passwd",
        "Password",
        "secret",
        "cookie",
        "token",
    ],
)
def test_keys_match_regardless_of_case_and_separators(key: str) -> None:
    line = json.dumps({key: "v4lue", "other": "v4lue"}).encode()
    out = redacted(line)
    assert marker(out[key]) == ("string", 5) and out["other"] == "v4lue"


def test_the_marker_keeps_type_and_length_and_leaves_null_and_booleans() -> None:
    line = (
        b'{"token": 123456, "secret": {"a": [1, 2]}, "cookie": ["x", "y"], "password": null, "apikey": true}'
    )
    out = redacted(line)
    assert marker(out["token"]) == ("number", 6)
    assert marker(out["secret"]) == ("object", len(b'{"a": [1, 2]}'))
    assert marker(out["cookie"]) == ("array", len(b'["x", "y"]'))
    assert out["password"] is None and out["apikey"] is True


def test_a_string_length_is_in_characters_and_escapes_are_decoded() -> None:
    assert marker(redacted(b'{"token": "\\u00e9t\\u00e9\\n"}')["token"]) == ("string", 4)
    assert marker(redacted('{"token": "été😀"}'.encode())["token"]) == ("string", 4)


def test_every_other_byte_of_the_line_is_kept() -> None:
    line = b'{ "id" : 7 ,\t"params":{"token" :"abc" ,  "n":1.50e3}}  '
    out = Redactor(hash_key=KEY).redact(line)
    assert out is not None
    before, after = line.split(b'"abc"')
    assert out.startswith(before) and out.endswith(after)


def test_equal_secrets_look_equal_in_a_session_and_nothing_lets_a_guess_be_tested() -> None:
    session = Redactor()
    first = marker(redacted(b'{"token":"hunter2","password":"hunter2","secret":"other"}', session)["token"])
    again = redacted(b'{"password":"hunter2","secret":"other"}', session)
    digest = MARKER.fullmatch(again["password"])[3]  # type: ignore[index]
    assert (
        first == ("string", 7)
        and digest == MARKER.fullmatch(redacted(b'{"token":"hunter2"}', session)["token"])[3]
    )  # type: ignore[index]
    assert MARKER.fullmatch(again["secret"])[3] != digest  # type: ignore[index]
    other_session = redacted(b'{"token":"hunter2"}', Redactor())["token"]
    assert MARKER.fullmatch(other_session)[3] != digest  # type: ignore[index]  # a new key each session
    assert digest not in (hashlib.sha256(b"hunter2").hexdigest(), hashlib.md5(b"hunter2").hexdigest())


@pytest.mark.parametrize(
    "line",
    [
        b'{"x":"token"}',  # the word as a value: flagged, parsed, nothing to redact
        b'{"max_tokens":100,"progressToken":"p","tokens":"abc"}',  # counts, and MCP's own pairing key
        b'{"token":null,"secret":true}',  # null and booleans hold no secret
        b'not json, and "token" is no key here',
        b"",
    ],
)
def test_what_is_not_a_credential_is_stored_as_it_is(line: bytes) -> None:
    assert Redactor().redact(line) is None


@pytest.mark.parametrize(
    ("line", "kept"),
    [
        (b'not json but "token": "abc"', b'not json but "token": "'),
        (b'{"token":"abc"} trailing', b"} trailing"),
        (b'{"token":"abc"}{"token":"abc"}', b'{"token":"'),
        (b'{"token":"abc",}', b",}"),
        (b'{"token":abc}', b"}"),
        (b'{"token":"abc"', b'{"token":"'),
        (b'\xef\xbb\xbf{"token":"abc"}', b"\xef\xbb\xbf{"),  # a byte order mark
        (b'Loading "config... {"jsonrpc":"2.0","params":{"password":"abc"}}', b"Loading"),  # a glued prefix
        (b'  "api_key": "abc",', b'  "api_key": "'),  # pretty-printed JSON, one line of it
        (b'  "credentials": {"user": "abc",', b'  "credentials": "'),  # its value goes on below
        (b'{"token": ["abc", {"x": "abc"}]} tail', b"} tail"),
    ],
)
def test_lines_that_parsers_read_though_not_one_json_text_are_redacted_too(line: bytes, kept: bytes) -> None:
    out = Redactor(hash_key=KEY).redact(line)
    assert out is not None and b"abc" not in out and kept in out and b"<redacted:" in out


@pytest.mark.parametrize(
    "key",
    [
        "auth_token",
        "apiToken",
        "GITHUB_TOKEN",
        "OPENAI_API_KEY",
        "private_key",
        "session_token",
        "x-auth-token",
        "bearer",
        "credentials",
        "pwd",
        "Session-Id",
        "to\u212aen",  # a Kelvin sign: case folding makes it "token"
        "pa\u00dfword",  # sharp s folds to "ss"
        "ClientSecret",
    ],
)
def test_keys_are_matched_by_the_words_they_hold(key: str) -> None:
    for line in (  # a value that no marker's hex digest can hold by chance (as "abc" could)
        json.dumps({key: "hunter2!"}, ensure_ascii=False).encode(),
        json.dumps({key: "hunter2!"}).encode(),  # non-ASCII as \u escapes
        json.dumps({"a": {key: ["hunter2!"]}}, indent=2).encode(),
    ):
        out = Redactor().redact(line)
        assert out is not None and b"hunter2!" not in out, line


def test_every_character_that_folds_to_ascii_letters_is_known_to_the_pre_check() -> None:
    """``FOLDS_TO_ASCII`` is what a key can hide a credential's word with: all of it."""
    ascii_letters = set("abcdefghijklmnopqrstuvwxyz")
    folds = [c for c in range(128, 0x110000) if set(chr(c).casefold()) <= ascii_letters]
    assert folds == list(FOLDS_TO_ASCII)


def test_the_schema_exemption_holds_only_inside_a_schema_bearing_field() -> None:
    """An argument named "properties" is a value: its credential-named objects are redacted."""
    args = {"properties": {"api_key": {"value": "abc"}}}
    out = redacted(json.dumps({"params": {"name": "t", "arguments": args}}).encode())
    assert marker(out["params"]["arguments"]["properties"]["api_key"])[0] == "object"
    for field in ("inputSchema", "outputSchema", "requestedSchema"):
        schema = {"type": "object", "properties": {"api_key": {"type": "string"}}}
        line = json.dumps({"result": {field: schema}, "token": "abc"}).encode()
        out = redacted(line)
        assert out["result"][field] == schema and marker(out["token"])[0] == "string"


def test_nesting_100k_deep_is_no_problem() -> None:
    line = b"[" * 100_000 + b'{"token":"deep"}' + b"]" * 100_000
    out = Redactor(hash_key=KEY).redact(line)
    assert out is not None and b"deep" not in out and out.count(b"[") == 100_000


def test_json_inside_a_string_is_redacted_inside_it() -> None:
    """A tool's text content often repeats its structured result as JSON text."""
    inner = json.dumps({"access_token": "tok-1", "n": 1}, indent=2)
    twice = json.dumps({"note": json.dumps({"password": "pw-2"})})
    line = json.dumps({"content": [{"type": "text", "text": inner}], "deep": twice}).encode()
    out = redacted(line)
    assert marker(json.loads(out["content"][0]["text"])["access_token"]) == ("string", 5)
    assert marker(json.loads(json.loads(out["deep"])["note"])["password"]) == ("string", 4)
    assert b"tok-1" not in json.dumps(out).encode() and b"pw-2" not in json.dumps(out).encode()


def test_a_tool_schema_naming_an_api_key_argument_keeps_its_schema() -> None:
    """tools/list: "properties" maps argument names to schemas, which are not credentials."""
    schema = {"type": "object", "properties": {"api_key": {"type": "string", "title": "Api Key"}}}
    line = json.dumps({"result": {"tools": [{"name": "t", "inputSchema": schema}]}, "token": "t0k"})
    out = redacted(line.encode())
    assert out["result"]["tools"][0]["inputSchema"] == schema and marker(out["token"])[0] == "string"
    bag = redacted(b'{"properties": {"password": "hunter2", "user": {"token": "t"}}}')["properties"]
    assert marker(bag["password"]) == ("string", 7) and marker(bag["user"]["token"]) == ("string", 1)


def test_keys_spelled_with_escapes_are_redacted_when_the_line_is_flagged() -> None:
    out = redacted(b'{"to\\u006ben":"a","secret":"b"}')
    assert marker(out["token"])[0] == "string" and marker(out["secret"])[0] == "string"


def test_added_keys_and_the_policy_the_header_records() -> None:
    policy = RedactionPolicy(extra_keys=("X-Session",))
    assert policy.header() == {"enabled": True, "keys": [*DEFAULT_KEYS, "X-Session"]}
    assert marker(redacted(b'{"x_session":"s"}', Redactor(policy.keys))["x_session"])[0] == "string"
    assert Redactor().redact(b'{"x_session":"s"}') is None
    assert RedactionPolicy(enabled=False).header() == {"enabled": False, "keys": []}


# --- properties


json_leaves = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=False, allow_infinity=False)
) | st.text(max_size=12)
credential_keys = st.sampled_from(
    [
        *DEFAULT_KEYS,
        "Authorization",
        "apiKey",
        "ACCESS-TOKEN",
        "Cookie",
        "properties",
        "inputSchema",
        "maxTokens",
    ]
)
plain_keys = st.text(max_size=8).filter(lambda k: not names_credential(k))
json_values = st.recursive(
    json_leaves,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.one_of(plain_keys, credential_keys), inner, max_size=4)
    ),
    max_leaves=20,
)
layouts = st.sampled_from(
    [
        {"separators": (",", ":")},
        {},
        {"indent": 1},
        {"ensure_ascii": False, "separators": (" , ", " : ")},
    ]
)


def check_redaction(before: Any, after: Any, schemas: bool = False, in_schema: bool = False) -> None:
    """``after`` is ``before`` with exactly the credential values replaced by right markers.

    ``in_schema``: ``before`` is inside a schema-bearing field (``inputSchema``...).
    ``schemas``: ``before`` is such a schema's ``properties`` object, whose
    object values are schemas of arguments, never redacted themselves.
    """
    if isinstance(before, dict):
        assert isinstance(after, dict) and list(after) == list(before)
        for key, value in before.items():
            if schemas and isinstance(value, dict):
                check_redaction(value, after[key], in_schema=True)
            elif canonical(key) == "properties" and isinstance(value, dict) and in_schema and not schemas:
                check_redaction(value, after[key], schemas=True, in_schema=True)
            elif canonical(key) in SCHEMA_FIELDS and isinstance(value, dict):
                check_redaction(value, after[key], in_schema=True)
            elif names_credential(key) and not isinstance(value, bool | None):
                kind, length = marker(after[key])
                assert kind == {str: "string", dict: "object", list: "array"}.get(type(value), "number")
                if isinstance(value, str | int):
                    assert length == (len(value) if isinstance(value, str) else len(json.dumps(value)))
            else:
                check_redaction(value, after[key], in_schema=in_schema)
    elif isinstance(before, list):
        assert isinstance(after, list) and len(after) == len(before)
        for x, y in zip(before, after, strict=True):
            check_redaction(x, y, in_schema=in_schema)
    elif isinstance(before, str) and before != after:
        check_redaction(json.loads(before), json.loads(after))  # JSON text in a string
    else:
        assert after == before or (before != before and after != after)


@settings(max_examples=400, deadline=None)
@given(json_values, layouts)
def test_any_json_line_comes_out_as_json_with_exactly_the_credentials_replaced(
    value: Any, layout: Any
) -> None:
    line = json.dumps(value, **layout).encode("utf-8", "surrogatepass")
    out = Redactor().redact(line)
    if out is None:
        check_redaction(value, value)  # nothing to redact means: no credential with a value
    else:
        check_redaction(value, json.loads(out))


JSON_CHARS = ['"', "{", "}", "[", "]", ",", ":", "\\", "1", "0", " ", "-", ".", "e", "x", "u", "n", "\x01"]


@st.composite
def mutated(draw: st.DrawFn, text: str) -> str:
    """``text`` with up to three characters inserted, deleted or replaced, anywhere (the end too)."""
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, len(text)))
        char = draw(st.sampled_from(JSON_CHARS))
        text = draw(
            st.sampled_from(
                [text[:at] + char + text[at:], text[:at] + text[at + 1 :], text[:at] + char + text[at + 1 :]]
            )
        )
    return text


def strict_json(text: str) -> bool:
    def refuse(name: str) -> None:
        raise ValueError(name)

    try:
        json.loads(text, parse_constant=refuse)
    except (ValueError, RecursionError):
        return False
    return True


@settings(max_examples=600, deadline=None)
@given(json_values.map(lambda v: json.dumps({"token": "t", "v": v})).flatmap(mutated))
def test_a_broken_line_still_has_its_credentials_redacted(text: str) -> None:
    """One JSON text is redacted exactly; a broken one (what the json module refuses) as found."""
    out = Redactor().redact(text.encode("utf-8", "surrogatepass"))
    if not strict_json(text):
        assert '"token": "t"' not in text or (out is not None and b'"token": "t"' not in out)
    elif isinstance(value := json.loads(text), dict) and isinstance(value.get("token"), str):
        assert out is not None and marker(json.loads(out)["token"]) == ("string", len(value["token"]))


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200), st.sampled_from([b'"token"', b'"Authorization":', b'{"apiKey":"', b""]))
def test_any_bytes_never_raise(noise: bytes, key: bytes) -> None:
    for line in (noise, key + noise, noise + key, b"{" + key + noise, key + b'"s3cret"' + noise):
        out = Redactor().redact(line)
        assert out is None or isinstance(out, bytes)
    if key.endswith(b":"):
        out = Redactor().redact(key + b'"s3cret"' + noise)
        assert out is not None and b"s3cret" not in out


PRE_CHECK_PIECES = st.sampled_from(
    [
        b'"',
        b":",
        b" ",
        b"\\",
        b"\\u0074",
        b"To",
        b"KEN",
        b"_",
        b"-",
        b"auth",
        b"x",
        b"\xe2\x84\xaa",
        b"\xc3\x9f",
    ]
)


@settings(max_examples=500, deadline=None)
@given(st.lists(PRE_CHECK_PIECES | st.binary(max_size=4), max_size=24).map(b"".join))
def test_the_pre_checks_shortcuts_say_what_its_regular_expression_says(line: bytes) -> None:
    """The substring and colon shortcuts only skip the regex where it could not match (never wrong)."""
    redactor = Redactor()
    folded = line.translate(bytes(range(256)).lower(), b"_-")
    assert redactor.may_hold_secret(line) == (redactor._flag(folded) is not None)


@settings(max_examples=500, deadline=None)
@given(
    st.lists(
        PRE_CHECK_PIECES | st.binary(max_size=4) | st.sampled_from([b"_:", b'" _-\t:', b' ":']), max_size=24
    ).map(b"".join),
    st.sampled_from([(), ("apiKey",), ("token", "tok")]),
)
def test_the_keys_only_pre_check_of_long_lines_says_what_the_regular_expression_says(
    line: bytes, more_keys: tuple[str, ...]
) -> None:
    """A long ASCII line is pre-checked only before its colons: never where the regex would differ.

    The length from which that is done is lowered to 0 here, so short lines take that way too.
    """
    redactor = Redactor((*DEFAULT_KEYS, *more_keys))
    folded = line.translate(bytes(range(256)).lower(), b"_-")
    with mock.patch.object(redact, "KEYS_ONLY_ABOVE", 0):
        assert redactor.may_hold_secret(line) == (redactor._flag(folded) is not None)


def test_a_long_part_is_pre_checked_before_its_colons_only() -> None:
    """The 1 MiB first part of a long line: its keys looked at, not its megabyte of value."""
    redactor = Redactor()
    head = b'{"jsonrpc":"2.0","method":"tools/call","params":{"data":"'
    assert redact._keys_before_colons(head + b"x" * (1 << 20)) == [b"jsonrpc", b"method", b"params", b"data"]
    assert not redactor.may_hold_secret(head + b"x" * (1 << 20))
    assert redactor.may_hold_secret(b'{"params":{"api_Key"  :"' + b"x" * (1 << 20))
    assert redactor.may_hold_secret(b'{"x":"' + b"y" * (1 << 20) + b'","Auth-Token":"s"}')
    assert redact._keys_before_colons(b":" * 65) is None  # too many colons: the whole line is searched
    assert redactor.may_hold_secret(b'{"token"' + b" " * 100 + b":1," + b"x" * (1 << 16) + b"}")
