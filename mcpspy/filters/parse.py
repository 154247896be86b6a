"""Tokenizer and precedence parser of the filter language (hand-written: no parser dependency).

    filter := any
    any    := all (("OR" | "|") all)*        lowest: a OR b c  is  a OR (b AND c)
    all    := unary+                         juxtaposition (or "AND") means and
    unary  := ("-" | "!" | "NOT") unary | atom
    atom   := "(" any ")" | key:value | "quoted phrase" | word

OR, AND and NOT may be written in any case; ``"or"`` quoted is the word.
A value may be quoted too (``method:"tools/call"``); inside quotes ``\\"`` and
``\\\\`` stand for themselves. Every error names the column it found.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from mcpspy.filters.terms import FIELDS, All, Any_, FilterError, FreeText, Not, Server, ServerOf, Term

OR_WORDS = ("OR", "|")
NOT_WORDS = ("NOT", "!")


@dataclass(frozen=True, slots=True)
class Token:
    kind: str  # "word", "phrase", "field", "(", ")", "or", "and", "not"
    text: str  # the word, the phrase's text, or the field's key
    column: int  # 1-based, where it starts
    value: str = ""  # a field's value


def _quoted(text: str, start: int) -> tuple[str, int]:
    """The phrase opening with the quote at ``start``, and the index just past its closing quote."""
    out: list[str] = []
    i = start + 1
    while i < len(text):
        char = text[i]
        if char == "\\" and i + 1 < len(text) and text[i + 1] in '"\\':
            out.append(text[i + 1])
            i += 2
            continue
        if char == '"':
            return "".join(out), i + 1
        out.append(char)
        i += 1
    raise FilterError("a quote is not closed", start + 1)


def tokenize(text: str) -> list[Token]:
    tokens: list[Token] = []
    i = 0
    while i < len(text):
        char = text[i]
        if char.isspace():
            i += 1
        elif char in "()|!":
            kind = {"(": "(", ")": ")", "|": "or", "!": "not"}[char]
            tokens.append(Token(kind, char, i + 1))
            i += 1
        elif char == "-" and i + 1 < len(text) and not text[i + 1].isspace():
            tokens.append(Token("not", char, i + 1))
            i += 1
        elif char == '"':
            start = i
            phrase, i = _quoted(text, i)
            tokens.append(Token("phrase", phrase, start + 1))
        else:
            start = i
            while i < len(text) and not text[i].isspace() and text[i] not in '()"':
                i += 1
            word = text[start:i]
            key, colon, value = word.partition(":")
            if colon and key.isalpha():
                if not value and i < len(text) and text[i] == '"':
                    value, i = _quoted(text, i)
                tokens.append(Token("field", key, start + 1, value))
            elif word.upper() in OR_WORDS:  # any case: "or" is what people type
                tokens.append(Token("or", word, start + 1))
            elif word.upper() == "AND":
                tokens.append(Token("and", word, start + 1))
            elif word.upper() in NOT_WORDS:
                tokens.append(Token("not", word, start + 1))
            else:
                tokens.append(Token("word", word, start + 1))
    return tokens


class _Parser:
    def __init__(self, text: str, server_of: ServerOf | None = None) -> None:
        self.server_of = server_of
        self.tokens = tokenize(text)
        self.at = 0
        self.end_column = len(text) + 1

    def peek(self) -> Token | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def take(self) -> Token:
        token = self.tokens[self.at]
        self.at += 1
        return token

    def parse(self) -> Term | None:
        if not self.tokens:
            return None
        term = self.any_()
        extra = self.peek()
        if extra is not None:  # only a ")" stops `any` early
            raise FilterError("a ) with no ( before it", extra.column)
        return term

    def any_(self) -> Term:
        terms = [self.all_()]
        while (token := self.peek()) is not None and token.kind == "or":
            self.take()
            if self.peek() is None or self.peek().kind in ("or", ")"):  # type: ignore[union-attr]
                raise FilterError(f"{token.text} needs a term after it", token.column)
            terms.append(self.all_())
        return terms[0] if len(terms) == 1 else Any_(tuple(terms))

    def all_(self) -> Term:
        terms: list[Term] = []
        while (token := self.peek()) is not None and token.kind not in ("or", ")"):
            if token.kind == "and":
                self.take()
                continue
            terms.append(self.unary())
        if not terms:
            token = self.peek()
            column = token.column if token is not None else self.end_column
            raise FilterError("a term is missing", column)
        return terms[0] if len(terms) == 1 else All(tuple(terms))

    def unary(self) -> Term:
        token = self.take()
        if token.kind == "not":
            if self.peek() is None or self.peek().kind in ("or", ")", "and"):  # type: ignore[union-attr]
                raise FilterError(f"{token.text} needs a term after it", token.column)
            return Not(self.unary())
        if token.kind == "(":
            if self.peek() is not None and self.peek().kind == ")":  # type: ignore[union-attr]
                raise FilterError("empty ( )", token.column)
            inner = self.any_()
            close = self.peek()
            if close is None or close.kind != ")":
                raise FilterError("a ( is not closed", token.column)
            self.take()
            return inner
        if token.kind == "field":
            return self.field(token)
        return FreeText(token.text)

    def field(self, token: Token) -> Term:
        cls = FIELDS.get(token.text)
        if cls is None:
            known = ", ".join(FIELDS)
            raise FilterError(f"unknown field {token.text}: (try {known})", token.column)
        if not token.value:
            raise FilterError(f"{token.text}: needs a value", token.column)
        try:
            term = cls.parse(token.value)
        except FilterError as exc:
            raise FilterError(exc.reason, token.column) from None
        if isinstance(term, Server):
            if self.server_of is None:
                raise FilterError(
                    "server: names a server of the TUI's view; here there is none", token.column
                )
            return replace(term, server_of=self.server_of)
        return term


def parse_term(text: str, server_of: ServerOf | None = None) -> Term | None:
    """The compiled filter, None for an empty one; raises FilterError with the column.

    ``server_of``: the view's name for a message's server, which `server:` reads.
    """
    return _Parser(text, server_of).parse()
