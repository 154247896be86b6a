"""Credentials out of a captured line before it is stored. Pure: no I/O.

A member whose key names a credential, in some object at any depth, has its
value (a string, number, object or array: null and booleans hold no secret)
replaced by a marker string; every other byte of the line stays as it was::

    {"params":{"_meta":{"authorization":"<redacted:string:39:1f0c9a4be27d>"}}}

A key names a credential when it holds one of ``DEFAULT_KEYS``' words after
Unicode case folding and without ``_`` and ``-``: ``auth_token``, ``apiToken``,
``OPENAI_API_KEY``, ``x-auth-token`` and a Kelvin-sign ``to\\u212aen`` do
(``tokens``, counts, and MCP's ``progressToken`` do not). An object under a
name in ``properties`` is the schema of an argument, not a value, but only
inside a schema-bearing field (``inputSchema``, ``outputSchema``,
``requestedSchema``): a tool's ``api_key`` argument keeps its schema, and a
tool argument that happens to be called ``properties`` is redacted as any.

The marker keeps the value's type (``string``, ``number``, ``object``,
``array``), its length (a string's in characters, else its JSON text's in
bytes) and a short keyed hash: HMAC-SHA256 under a key drawn at random for
each session and never written anywhere, cut to 48 bits. Two equal secrets
show the same hash within a session, and nothing in a capture lets anyone
test a guessed password offline.

A string value that is itself a JSON text (a tool's text content often
repeats its structured result) is redacted the same way, inside the string.
A line that is not one JSON text but that many parsers read anyway (a glued
prefix, a byte order mark, trailing text, one line of pretty-printed JSON)
is redacted key by key as found (``Redactor._found_spans``): a value that
goes on past the line's end is hidden to the end (``rest``), a bare word up
to its delimiter (``text``).

Why a pre-check: this runs on the proxy's recording path, for every line, and
parsing every line would cost more than encoding it. A credential key is
rare, so ``may_hold_secret`` folds ASCII case and drops ``_``/``-`` in one C
pass (``bytes.translate``) and runs one regex over the result: a word, the
rest of a key and its closing quote and colon; or a character that only
decoding and Unicode case folding make a letter (``FOLDS_TO_ASCII``, raw or
as a ``\\u`` escape, and any ASCII letter spelled as an escape). Only a line
it flags is tokenized. It errs one way only, towards tokenizing a line that
turns out to hold no credential.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

#: Words that make a key a credential's, as ``canonical`` spells them: a key holding one
#: (``auth_token``, ``OPENAI_API_KEY``, ``x-auth-token``, ``credentials``) holds a credential.
DEFAULT_KEYS = (
    "token",
    "secret",
    "password",
    "passwd",
    "pwd",
    "apikey",
    "privatekey",
    "credential",
    "auth",
    "cookie",
    "sessionid",
    "bearer",
)

#: Keys that hold one of those words and no credential: MCP's own (a progress token pairs progress
#: notifications with their request; the analysis needs it). ``tokens`` counts, never a credential.
NOT_CREDENTIALS = frozenset({"progresstoken"})

#: Keys whose object value is a JSON Schema: only inside one does ``properties`` map names to schemas.
SCHEMA_FIELDS = frozenset({"inputschema", "outputschema", "requestedschema"})

#: Characters outside ASCII whose case folding gives ASCII letters (``\u212a``, the Kelvin sign, is
#: ``k``), in UTF-8 and as JSON ``\u`` escapes (tests/capture/test_redact.py checks it is all of them).
FOLDS_TO_ASCII = (0xDF, 0x17F, 0x1E9E, 0x212A, 0xFB00, 0xFB01, 0xFB02, 0xFB03, 0xFB04, 0xFB05, 0xFB06)
_UNICODE_LETTER = b"|".join(
    [re.escape(chr(c).encode("utf-8")) for c in FOLDS_TO_ASCII]
    # an escaped ASCII letter, or one of those escaped (the line is folded to lower case first)
    + [rb"\\u00[4-7][0-9a-f]", rb"\\u(?:" + b"|".join(b"%04x" % c for c in FOLDS_TO_ASCII) + b")"]
)

HASH_BYTES = 6  # 48 bits: enough to tell a session's secrets apart, short to read
WINDOW = 512  # bytes either side of a cut between two pieces of a line that the pre-check reads across
MAX_EMBEDDING = 8  # JSON in a string in a string...: each level doubles the backslashes anyway

_FOLD = bytes(range(256)).lower()  # ASCII case folding for bytes.translate
_SEPARATORS = b"_-"
_BEFORE_COLON = b" \t\r\n" + _SEPARATORS  # what may stand between a key and its colon, once folded
_QUOTE = ord('"')
#: A line this long (a streamed line's part, a long line's piece), ASCII and with no backslash, is
#: pre-checked only in the strings before its colons, when they are few: a 1 MiB part whose keys are
#: all in its first bytes costs 0.05 ms, not the 15 ms of folding and searching all of it.
KEYS_ONLY_ABOVE = 1 << 16
KEYS_ONLY_COLONS = 64
KEYS_ONLY_SPACE = 64  # bytes between a key's closing quote and its colon, at most, for the cheap way


def _keys_before_colons(line: bytes) -> list[bytes] | None:
    """The strings a colon follows in an ASCII ``line`` with no backslash: where a key word can be.

    In such a line the pre-check's regex can only match a word, the rest of its string, the closing
    quote and a colon (space, ``_`` and ``-`` between: folding drops the last two); so a word found
    in none of these strings, folded, is a word it cannot match. None when there are too many
    colons (or too much space before one) for this to be the cheap way.
    """
    keys: list[bytes] = []
    colon = line.find(b":")
    for _ in range(KEYS_ONLY_COLONS):
        if colon == -1:
            return keys
        end = colon - 1
        while end >= 0 and line[end] in _BEFORE_COLON:
            if colon - end > KEYS_ONLY_SPACE:
                return None
            end -= 1
        if end >= 0 and line[end] == _QUOTE:
            keys.append(line[line.rfind(b'"', 0, end) + 1 : end])
        colon = line.find(b":", colon + 1)
    return keys if colon == -1 else None


def canonical(key: str) -> str:
    """The form keys are compared in: case folded (Unicode's), without ``_`` and ``-``."""
    return key.casefold().replace("_", "").replace("-", "")


def credential_matcher(words: Iterable[str]) -> Callable[[str], bool]:
    """Whether a key holds one of ``words``, the way a credential's key does (see ``DEFAULT_KEYS``)."""
    alternatives = sorted({canonical(w) for w in words} - {""}, key=len, reverse=True)
    if not alternatives:
        return lambda key: False
    search = re.compile(
        "|".join(re.escape(w) + ("(?!s)" if w == "token" else "") for w in alternatives)
    ).search

    def names_credential(key: str) -> bool:
        folded = canonical(key)
        return folded not in NOT_CREDENTIALS and search(folded) is not None

    return names_credential


names_credential = credential_matcher(DEFAULT_KEYS)


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
_PLAIN, _CREDENTIAL, _PROPERTIES, _SCHEMA_FIELD = range(4)  # what a key says about its value
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
    schema_depth: int = -1  # inside a schema-bearing field's object: the stack's depth outside it


class Redactor:
    """Redacts one session's lines; the hash key lives and dies with this object."""

    __slots__ = ("_flag", "_hash_key", "_keys_only", "_names_credential", "_needles", "_window", "_words")

    def __init__(self, keys: Iterable[str] = DEFAULT_KEYS, hash_key: bytes | None = None) -> None:
        self._words = tuple(sorted(frozenset(filter(None, map(canonical, keys)))))
        self._names_credential = credential_matcher(self._words)
        folded = sorted(k.encode("utf-8").translate(_FOLD, _SEPARATORS) for k in self._words)
        trie = _trie_pattern(k.decode("utf-8", "surrogateescape") for k in folded)
        # A word, the rest of its key, the closing quote (escaped, in a JSON text inside a string)
        # and a colon; or a letter spelled so that only decoding and case folding show it.
        key = (
            ("(?:" + trie + ')[^"]*"' + r"[ \t\r\n]*:").encode("utf-8", "surrogateescape")
            if trie
            else b"(?!)"
        )
        self._flag = re.compile(key + b"|" + _UNICODE_LETTER).search
        self._needles = tuple(folded)  # what the key alternative needs, found by bytes' own fast search
        self._keys_only = all(b'"' not in word for word in self._needles)  # see _keys_before_colons
        self._hash_key = os.urandom(32) if hash_key is None else hash_key
        self._window = WINDOW

    def may_hold_secret(self, line: bytes) -> bool:
        """The cheap pre-check: could ``line`` name a credential key? Never wrong when False.

        Most lines hold no key word at all: plain substring searches say so at memory speed (the
        regular expression scans a 64 MiB line at about 11 MB/s), and only an ASCII line with no
        ``\\u`` escape can skip the check for letters spelled so that only decoding shows them.
        Before even those: an ASCII line with no colon and no backslash has no key (every key is
        followed by a colon, and only an escape decodes to one), which three ``memchr``-speed passes
        say (a 1 MiB part of a long line's string: 0.1 ms, where the key words take 7 ms).
        """
        if b":" not in line and line.isascii() and b"\\" not in line:
            return False
        if len(line) >= KEYS_ONLY_ABOVE and self._keys_only and line.isascii() and b"\\" not in line:
            keys = _keys_before_colons(line)
            if keys is not None:
                return any(
                    word in key.translate(_FOLD, _SEPARATORS) for key in keys for word in self._needles
                )
        folded = line.translate(_FOLD, _SEPARATORS)
        if folded.isascii() and b"\\u" not in folded and not any(n in folded for n in self._needles):
            return False
        return self._flag(folded) is not None

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
        if spans is None:  # not one JSON text, but many parsers read such lines: redacted as found
            spans = self._found_spans(line)
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
        state, pos, secret_key, schemas, schema_field = _VALUE, 0, False, False, False
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
                    state, secret_key, schemas, schema_field = _AFTER, False, False, False
                elif char in _OPEN:
                    if secret_key and not (char == ord("{") and stack and stack[-1] == _SCHEMAS):
                        scan.start, scan.depth = start, len(stack)
                    secret_key = False
                    if schema_field and char == ord("{") and scan.schema_depth < 0:
                        scan.schema_depth = len(stack)
                    stack.append(_SCHEMAS if schemas and char == ord("{") else char)
                    state = _FIRST_KEY if char == ord("{") else _FIRST_ITEM
                    schemas = schema_field = False
                elif char == ord("]") and state == _FIRST_ITEM:
                    self._close(stack, data, pos, scan)
                    state = _AFTER
                else:
                    return None
            elif state in (_FIRST_KEY, _KEY):
                if kind == "s":
                    said = _PLAIN if scan.start >= 0 else key_kind(data[start:pos])
                    secret_key = said == _CREDENTIAL  # in a schemas map, unless an object (a schema) follows
                    schemas = said == _PROPERTIES and scan.schema_depth >= 0 and stack[-1] != _SCHEMAS
                    schema_field = said == _SCHEMA_FIELD
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
        if len(stack) == scan.schema_depth:
            scan.schema_depth = -1

    def _found_spans(self, data: bytes) -> list[_Span]:
        """The credential values of a line that is not one JSON text, found key by key.

        A key is a string token followed by a colon, tried at every quote (a
        glued prefix may hold a stray quote); its value is the JSON value that
        follows, else everything up to the next delimiter. A value that does
        not end on this line (pretty-printed JSON) is hidden to the line's end.
        No schema is exempt here, and no JSON text inside a string is looked
        into: such a line is redacted towards hiding.
        """
        spans: list[_Span] = []
        done = 0
        for found in _KEY_AHEAD.finditer(data):
            start = found.end("key")
            if found.start() < done or self._key_kind(data[found.start() : start]) != _CREDENTIAL:
                continue
            span = _value_span(data, start)
            if span is not None:
                spans.append(span)
                done = span.end
        return spans

    def _may_embed_secret(self, token: bytes) -> bool:
        """Whether a string value may be a JSON text naming a credential (its quotes escaped)."""
        return b'\\"' in token and self.may_hold_secret(token)

    def _key_kind(self, token: bytes) -> int:
        try:
            key = canonical(_decode_string(token))
        except ValueError:  # a bad escape, in a line that is not JSON: read it as it is
            key = canonical(token[1:-1].decode("utf-8", "surrogateescape"))
        if key in SCHEMA_FIELDS:
            return _SCHEMA_FIELD
        if self._names_credential(key):
            return _CREDENTIAL
        return _PROPERTIES if key == "properties" else _PLAIN


#: A key, tried at every quote: the string token, and the colon after it (a lookahead: keys overlap).
_KEY_AHEAD = re.compile(rb'(?=(?P<key>"[^"\\]*(?:\\.[^"\\]*)*")[ \t\r\n]*:)')
_UNTIL_DELIMITER = re.compile(rb"[ \t\r\n]*[^,}\]\r\n]*")


def _value_span(data: bytes, colon_search: int) -> _Span | None:
    """The span of the value after the key ending at ``colon_search`` (see ``_found_spans``)."""
    colon = data.index(b":", colon_search) + 1
    token = _TOKEN.match(data, colon)
    if token is None or (token.lastgroup == "p" and data[token.start("p")] not in _OPEN):
        rest = _UNTIL_DELIMITER.match(data, colon)
        assert rest is not None
        end = rest.end()
        start = end - len(rest.group().lstrip())
        return _Span(start, end, "text") if end > start else None
    kind = token.lastgroup
    assert kind is not None
    start = token.start(kind)
    if kind == "l":
        return None
    if kind != "p":
        return _Span(start, token.end(), _TYPE[kind])
    depth, pos = 0, start
    while (token := _TOKEN.match(data, pos)) is not None:
        pos = token.end()
        if token.lastgroup == "p":
            char = data[token.start("p")]
            depth += char in _OPEN
            depth -= char in _CLOSE
            if depth == 0:
                return _Span(start, pos, _TYPE[data[start]])
    return _Span(start, len(data), "rest")


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

    def part(self, stream: object, index: int, data: bytes, plain: bool = False) -> str | None:
        """The marker that stands for this part, or None to store it as it is.

        ``plain``: the part is known to be ASCII with no backslash (its JSON text needed no escape),
        so one with no colon names no key (``Redactor.may_hold_secret``) without two more passes.
        """
        if index == 1:
            self._hiding.discard(stream)
            self._last.pop(stream, None)
        return self._check(stream, data, plain)

    def end(self, stream: object, data: bytes) -> str | None:
        """The same for the line's last piece; the line's state is dropped."""
        marker = self._check(stream, data)
        self._hiding.discard(stream)
        self._last.pop(stream, None)
        return marker

    def _check(self, stream: object, data: bytes, plain: bool = False) -> str | None:
        if stream not in self._hiding:  # once hidden, the rest of the line is hidden unread
            window = self._redactor._window
            joint = self._last.get(stream, b"")[-window:] + data[:window]
            self._last[stream] = data[-window:]
            named = b":" in data if plain else self._redactor.may_hold_secret(data)
            if named and plain:
                named = self._redactor.may_hold_secret(data)
            if not (named or self._redactor.may_hold_secret(joint)):
                return None
            self._hiding.add(stream)
        return f"<redacted:piece:{len(data)}>"
