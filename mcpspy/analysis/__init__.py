"""The analysis: pure, sans-IO. Fed capture records, it says what each line is,
which exchange it belongs to, and what is wrong with it.

- analyzer.py: the facade, ``Analyzer.feed(record)``; it keeps no rule of its
  own. hooks.py: the table of which family's method judges a message, in
  order, by its kind and pipe (``HOOKS``, and ``REPLIES`` by the request's method).
- rules/: one file per family of rules (see rules/__init__.py); each reports
  through the one ``Reporter`` (reporter.py).
- rule_ids.py: every rule id as a ``RuleId`` member; ``grep -rn MEMBER
  mcpspy/analysis/rules`` finds the one place that raises it.
- catalogue/: the one table of rules (``mcpspy rules``), its rows beside their
  family: catalogue/pairing.py holds the rows of rules/pairing.py.

Adding a rule touches four files and a fixture: its member in rule_ids.py,
its check in its family's rules/ file (and a row of hooks.py only if it needs
a message no hook of that family sees yet), its row in catalogue/, its
scenario and expected findings in tests/analysis/ (which build its fixture in
fixtures/), and the rule count in docs/report.md.
- context_cost.py: what lists and tool results cost a model's context;
  sources.py: a rule's source as the spec's public pages.
- model.py: what the views consume; jsonrpc.py: what a line is, read alone,
  and how an untrusted value is quoted in a sentence (never raising, however
  deep); message_fields.py: readers of a message's fields; schema.py: the
  validator of the result definitions, which the caller hands in
  (mcpspy/analysis_data.py reads the packaged ones: the analysis reads no file).
- brackets.py: where the JSON value that ends a text begins, in one pass (glued
  and pretty-printed messages); line_edges.py: the envelope of a line over the
  16 MiB that is parsed whole, read from its two ends.

Speed policy. The analysis replays 100,000-message captures, so a line's path
is hot, but code is written plainly unless a measurement says otherwise. One
idiom is kept, in three files: Enum members bound to module constants
(``REQUEST = Kind.REQUEST``), because on Python 3.11 ``Kind.REQUEST`` goes
through ``EnumType.__getattr__`` (0.27 us, against 0.02 us for a global).
Measured as instructions per record over a 20,000-message capture
(valgrind, deterministic on a shared machine), each file's constants save:
analyzer.py (the dispatch of every line; its rows are also keyed by the
values of Kind and Stream, whose members hash through a Python call) 6.7%, rules/pairing.py (every request
and reply) 2.9%, rules/envelope.py (every line that parses) 1.7%. The era's
checks in rules/legacy.py and rules/modern.py would save 1.1% each and stay
plain, as does every other file. Two choices of shape, not idioms, were made
for speed too: a message's params and _meta are read once, as its line is read
(``Message.params``, ``Message.meta``), where each family read them again (six
times a 2026-07-28 request); and the objects made for every line (LineRecord,
Held, MessageSeen, ExchangeUpdated) are dataclasses that are not frozen, since
a frozen one costs 2-6x as much to make (0.6 us, not 0.3, for one field; 1.9,
not 0.3, for Held's eight), and nothing changes them once made. Nothing else
trades clarity for speed.
"""
