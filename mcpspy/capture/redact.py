"""Credentials out of a captured line before it is stored. Pure: no I/O.

A line is redacted when it is one JSON text in which some object, at any
depth, has a member whose key names a credential. That member's value (a
string, number, object or array: null and booleans hold no secret) is
replaced by a marker string; every other byte of the line stays as it was
(but an object under a name in a JSON Schema's ``properties`` is the schema
of an argument, not a value: a tool's ``api_key`` argument keeps its schema)::

    {"params":{"_meta":{"authorization":"<redacted:string:39:1f0c9a4be27d>"}}}

The marker keeps the value's type (``string``, ``number``, ``object``,
``array``), its length (a string's in characters, else its JSON text's in
bytes) and a short keyed hash: HMAC-SHA256 under a key drawn at random for
each session and never written anywhere, cut to 48 bits. Two equal secrets
show the same hash within a session, and nothing in a capture lets anyone
test a guessed password offline.

Keys match case-insensitively and regardless of ``_`` and ``-``, so
``api_key``, ``apiKey`` and ``API-KEY`` are one key. A string value that is
itself a JSON text (a tool's text content often repeats its structured
result) is redacted the same way, inside the string.

Why a pre-check: this runs on the proxy's recording path, for every line, and
parsing every line would cost more than encoding it. A credential key is
rare, so ``may_hold_secret`` folds case and drops ``_``/``-`` in one C pass
(``bytes.translate``) and runs one regex, a trie of the key names between
quotes, over the result; only a line it flags is tokenized. It errs one way
only, towards tokenizing a line that turns out to hold no credential (a
string value ``"token"``). A key spelled with ``\\u`` escapes is not seen by it:
only whoever owns the secret writes its key, and JSON encoders never escape
letters.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

#: Keys whose values are credentials, as ``canonical`` spells them.
DEFAULT_KEYS = (
    "authorization",
    "proxy-authorization",
    "api_key",
    "apikey",
    "api-key",
    "x-api-key",
    "token",
    "access_token",
    "refresh_token",
    "id_token",
    "password",
    "passwd",
    "secret",
    "client_secret",
    "cookie",
    "set-cookie",
)

HASH_BYTES = 6  # 48 bits: enough to tell a session's secrets apart, short to read
MAX_EMBEDDING = 8  # JSON in a string in a string...: each level doubles the backslashes anyway

_FOLD = bytes(range(256)).lower()  # ASCII case folding for bytes.translate
_SEPARATORS = b"_-"


def canonical(key: str) -> str:
    """The form keys are compared in: lower case, without ``_`` and ``-``."""
    return key.lower().replace("_", "").replace("-", "")


@dataclass(frozen=True, slots=True)
class RedactionPolicy:
    """Whether to redact, and which keys; recorded in the capture's header."""

    enabled: bool = True
    extra_keys: tuple[str, ...] = ()

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys((*DEFAULT_KEYS, *self.extra_keys))) if self.enabled else ()

    def header(self) -> dict[str, object]:
        """What the capture's header says about it."""
        return {"enabled": self.enabled, "keys": list(self.keys)}


DEFAULT_POLICY = RedactionPolicy()


_Trie = dict[str, "_Trie"]


def _trie_pattern(words: Iterable[str]) -> str:
    """One regex alternation that shares prefixes, so a failed match fails on its first byte."""
    trie: _Trie = {}
    for word in words:
        node = trie
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}

    def emit(node: _Trie) -> str:
        branches = [re.escape(char) + emit(child) for char, child in sorted(node.items()) if char]
        if not branches:
            return ""
        ends_here = "" in node
        if len(branches) == 1 and not ends_here:
            return branches[0]
        return "(?:" + "|".join(branches) + ")" + ("?" if ends_here else "")

    return emit(trie)


_WS = rb"[ \t\n\r]*"
_STRING = rb'"[^"\\\x00-\x1f]*(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\x00-\x1f]*)*"'
_NUMBER = rb"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?"
_TOKEN = re.compile(
    _WS + rb"(?:(?P<s>" + _STRING + rb")|(?P<p>[{}\[\]:,])|(?P<n>" + _NUMBER + rb")|(?P<l>true|false|null))"
)
_TRAILING_WS = re.compile(_WS + rb"\Z")

# Parser states: what may come next.
_VALUE, _FIRST_ITEM, _FIRST_KEY, _KEY, _COLON, _AFTER = range(6)
_OPEN, _CLOSE = {ord("{"), ord("[")}, {ord("}"): ord("{"), ord("]"): ord("[")}
_SCHEMAS = ord("(")  # on the stack: an object that maps names to JSON Schemas, not to values
_PLAIN, _CREDENTIAL, _PROPERTIES = range(3)  # what a key says about its value
_TYPE: dict[str | int, str] = {"s": "string", "n": "number", ord("{"): "object", ord("["): "array"}


@dataclass(slots=True)
class _Span:
    start: int
    end: int
    kind: str  # a credential's type, or "embedded": a string holding a JSON text


@dataclass(slots=True)
class _Scan:
    """A credential value being read: where it started, and at what depth."""

    spans: list[_Span] = field(default_factory=list)
    start: int = -1
    depth: int = 0


class Redactor:
    """Redacts one session's lines; the hash key lives and dies with this object."""

    __slots__ = ("_canonical_keys", "_flag", "_hash_key", "_window")

    def __init__(self, keys: Iterable[str] = DEFAULT_KEYS, hash_key: bytes | None = None) -> None:
        self._canonical_keys = frozenset(filter(None, map(canonical, keys)))
        folded = sorted(k.encode("utf-8").translate(_FOLD, _SEPARATORS) for k in self._canonical_keys)
        trie = _trie_pattern(k.decode("utf-8") for k in folded) or "(?!)"
        # The closing quote may be escaped: a key in a JSON text inside a string.
        self._flag = re.compile(('"' + trie + r'\\*"').encode("utf-8")).search
        self._hash_key = os.urandom(32) if hash_key is None else hash_key
        self._window = max(map(len, folded), default=0) * 3 + 2  # "key" with a separator per byte

    def may_hold_secret(self, line: bytes) -> bool:
        """The cheap pre-check: could ``line`` name a credential key? Never wrong when False."""
        return self._flag(line.translate(_FOLD, _SEPARATORS)) is not None

    def pieces_may_hold_secret(self, pieces: Sequence[bytes]) -> bool:
        """``may_hold_secret`` for a line held in pieces, a key cut across two of them included."""
        window = self._window
        for i, piece in enumerate(pieces):
            if self.may_hold_secret(piece):
                return True
            if i and self.may_hold_secret(pieces[i - 1][-window:] + piece[:window]):
                return True
        return False

    def redact(self, line: bytes, depth: int = 0) -> bytes | None:
        """The line with its credential values replaced by markers; None when nothing is."""
        if depth > MAX_EMBEDDING or not self.may_hold_secret(line):
            return None
        spans = self._secret_spans(line)
        if not spans:
            return None
        out: list[bytes] = []
        done = 0
        for span in spans:
            raw = line[span.start : span.end]
            if span.kind != "embedded":
                replacement = self._marker(raw, span.kind)
            elif (
                inner := self.redact(_decode_string(raw).encode("utf-8", "surrogateescape"), depth + 1)
            ) is None:
                continue  # a string that only looked like it might hold a credential
            else:
                replacement = _encode_string(inner.decode("utf-8", "surrogateescape"))
            out += (line[done : span.start], replacement)
            done = span.end
        if not done:
            return None
        out.append(line[done:])
        return b"".join(out)

    def _marker(self, raw: bytes, kind: str) -> bytes:
        if kind == "string":
            text = _decode_string(raw)
            value, length = text.encode("utf-8", "surrogatepass"), len(text)
        else:
            value, length = raw, len(raw)
        digest = hmac.new(self._hash_key, value, hashlib.sha256).hexdigest()[: HASH_BYTES * 2]
        return f'"<redacted:{kind}:{length}:{digest}>"'.encode()

    def _secret_spans(self, data: bytes) -> list[_Span] | None:
        """The credential values of ``data``, or None when it is not one JSON text.

        A strict JSON tokenizer with an explicit stack: no recursion, so no
        nesting is too deep, and no parsed copy of the line is made.
        """
        match, key_kind = _TOKEN.match, self._key_kind
        stack = bytearray()
        scan = _Scan()
        state, pos, secret_key, schemas = _VALUE, 0, False, False
        while (m := match(data, pos)) is not None:
            kind = m.lastgroup
            assert kind is not None
            start, pos = m.start(kind), m.end()
            char = data[start]
            if state in (_VALUE, _FIRST_ITEM):
                if kind != "p":
                    if secret_key and kind != "l":
                        scan.spans.append(_Span(start, pos, _TYPE[kind]))
                    elif kind == "s" and scan.start < 0 and self._may_embed_secret(data[start:pos]):
                        scan.spans.append(_Span(start, pos, "embedded"))
                    state, secret_key, schemas = _AFTER, False, False
                elif char in _OPEN:
                    if secret_key and not (char == ord("{") and stack and stack[-1] == _SCHEMAS):
                        scan.start, scan.depth = start, len(stack)
                    secret_key = False
                    stack.append(_SCHEMAS if schemas and char == ord("{") else char)
                    state = _FIRST_KEY if char == ord("{") else _FIRST_ITEM
                    schemas = False
                elif char == ord("]") and state == _FIRST_ITEM:
                    self._close(stack, data, pos, scan)
                    state = _AFTER
                else:
                    return None
            elif state in (_FIRST_KEY, _KEY):
                if kind == "s":
                    said = _PLAIN if scan.start >= 0 else key_kind(data[start:pos])
                    secret_key = said == _CREDENTIAL  # in a schemas map, unless an object (a schema) follows
                    schemas = said == _PROPERTIES and stack[-1] != _SCHEMAS
                    state = _COLON
                elif char == ord("}") and state == _FIRST_KEY:
                    self._close(stack, data, pos, scan)
                    state = _AFTER
                else:
                    return None
            elif state == _COLON:
                if char != ord(":") or kind != "p":
                    return None
                state = _VALUE
            else:  # _AFTER: a comma or a close, inside a container
                if kind != "p" or not stack:
                    return None
                if char == ord(","):
                    state = _VALUE if stack[-1] == ord("[") else _KEY
                elif _CLOSE.get(char) == (ord("{") if stack[-1] == _SCHEMAS else stack[-1]):
                    self._close(stack, data, pos, scan)
                else:
                    return None
        if state != _AFTER or stack or _TRAILING_WS.match(data, pos) is None:
            return None
        return scan.spans

    @staticmethod
    def _close(stack: bytearray, data: bytes, end: int, scan: _Scan) -> None:
        """A container ends at ``end``: if it is a credential's value, its span is complete."""
        opener = stack.pop()
        if scan.start >= 0 and len(stack) == scan.depth:
            scan.spans.append(_Span(scan.start, end, _TYPE[opener]))
            scan.start = -1

    def _may_embed_secret(self, token: bytes) -> bool:
        """Whether a string value may be a JSON text naming a credential (its quotes escaped)."""
        return b'\\"' in token and self.may_hold_secret(token)

    def _key_kind(self, token: bytes) -> int:
        key = canonical(_decode_string(token))
        if key in self._canonical_keys:
            return _CREDENTIAL
        return _PROPERTIES if key == "properties" else _PLAIN


def _encode_string(text: str) -> bytes:
    """``text`` as a JSON string token, its bytes that were not UTF-8 restored."""
    try:
        return json.dumps(text, ensure_ascii=False).encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a lone surrogate that was escaped: keep it escaped
        return json.dumps(text).encode("ascii")


def _decode_string(token: bytes) -> str:
    """A JSON string token's text; bytes that are not UTF-8 survive as surrogates."""
    if b"\\" not in token:
        return token[1:-1].decode("utf-8", "surrogateescape")
    text: str = json.loads(token.decode("utf-8", "surrogateescape"))
    return text


class StreamedRedaction:
    """Redaction of lines streamed in parts (over ``wire.splitter.PART_AT``), which no one holds whole.

    A part cannot be tokenized alone, so this errs towards hiding: from the
    first part that may name a credential key (a key cut across two parts
    included), that part and every later piece of its line are stored as a
    marker of their length, and the line record says ``redacted``. A line that
    long holding a credential is rare; one stored in the clear is never.
    """

    __slots__ = ("_hiding", "_last", "_redactor")

    def __init__(self, redactor: Redactor) -> None:
        self._redactor = redactor
        self._hiding: set[object] = set()  # the streams whose current line is hidden from here on
        self._last: dict[object, bytes] = {}  # the end of each stream's previous part

    def part(self, stream: object, index: int, data: bytes) -> str | None:
        """The marker that stands for this part, or None to store it as it is."""
        if index == 1:
            self._hiding.discard(stream)
            self._last.pop(stream, None)
        return self._check(stream, data)

    def end(self, stream: object, data: bytes) -> str | None:
        """The same for the line's last piece; the line's state is dropped."""
        marker = self._check(stream, data)
        self._hiding.discard(stream)
        self._last.pop(stream, None)
        return marker

    def _check(self, stream: object, data: bytes) -> str | None:
        window = self._redactor._window
        joint = self._last.get(stream, b"")[-window:] + data[:window]
        self._last[stream] = data[-window:]
        if stream not in self._hiding and (
            self._redactor.may_hold_secret(data) or self._redactor.may_hold_secret(joint)
        ):
            self._hiding.add(stream)
        return f"<redacted:piece:{len(data)}>" if stream in self._hiding else None
