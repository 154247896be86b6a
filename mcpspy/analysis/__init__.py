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
is hot, but code is written plainly unless a measurement says otherwise
(instructions under callgrind, deterministic on a shared machine: BENCHMARKS.md,
"Analysis at 100k messages a second"). The exceptions, each marked where it is:

- Enum members bound to module constants (``REQUEST = Kind.REQUEST``) where
  every line, request or reply reads them: on Python 3.11 ``Kind.REQUEST`` goes
  through ``EnumType.__getattr__``, about 900 instructions against 50 for a
  global. analyzer.py (whose rows are also keyed by the members' values: a
  plain Enum member hashes through a Python call), rules/pairing.py,
  rules/envelope.py, message_fields.py (``fields_of``), rules/legacy.py and
  rules/modern.py (the era, asked four or five times a message), rules/shapes.py.
- The objects made for every line (Parsed, Message, Exchange, LineRecord, Held)
  are made by position: keyword arguments cost about 2,000 instructions a
  construction more (the interpreter builds a dict for them); and they are
  dataclasses that are not frozen, since a frozen one costs 2-6x as much to make.
- schema.py writes each result definition as a Python predicate too (its
  docstring says why and how it is held to the closures' verdict).
- rules/pairing.py tests an id's common type inline before ``valid_id``.
- A call saved on the path of every line, request or reply, where a Python call costs 300-800
  instructions (callgrind), each marked "inline" where it is: ``Replay.feed_read`` does
  ``_advance``'s work, ``Analyzer.feed_read`` walks the rows itself (no ``_protocol``);
  ``Pairing.request`` and ``Pairing.response`` pick their id space themselves (``response`` is
  ``_response``); ``result_of`` in the result hooks of rules/modern.py, mrtr.py and shapes.py
  (modern's ``_result`` folded into ``result``); the common case of ``EraTracker._lacks_meta``,
  ``modern_request`` and ``revision``, and of ``IdSpace.close`` (a retained analysis); the analyzer
  lets a paired reply's Held go after its row (``Pairing.release``'s work: hooks.py's REPLIES);
  schema.py writes a definition's ``$ref``s two deep into its predicate. With ``held_of`` reading
  the version ``request_version`` read, ``meta_keys`` asking ``issuperset`` first, and no hook
  before every message (rules/lifecycle.py asks pairing whether the client asked and the server
  replied): 47,100 instructions a message before, 39,800 after (the 20k TUI capture through
  ``Replay.feed_read``).
- ``analyzer.read_line`` reads a request, notification or result that breaks no rule on its own in
  one pass, every other line through ``classify_line``, ``classify_message`` and ``fields_of``:
  390 ns a message of 2,950 (tests/analysis/test_read_line.py holds the two readings equal). What
  it says of such a message is the one Parsed of its kind (``jsonrpc.CLEAN``), none made: 2,700
  instructions and 280 ns a message more.
- What a retained analysis keeps, for the cyclic garbage collector: each object it keeps is walked
  again at every full collection, and with 100,000 messages kept that walk was more than half of
  ``Analyzer.feed``'s time with the collector on. So a message lets its parsed payload go once
  analysed (``message_fields.LeanMessage``, by a ``__class__`` assignment: its properties read
  the line again when a view asks; the rules read a plain Message's slots, never a property).
  Fed with the collector on: 55,700 messages/s before, 108,700 after (BENCHMARKS.md, "payloads
  let go"). Its slots are written through their descriptors named as class attributes: calling
  a descriptor's ``__set__`` cost 4,800 instructions a message more.

Choices of shape made for speed, not idioms: a message's params and _meta are
read once, as its line is read (``Message.params``, ``Message.meta``); a
message's findings are one shared empty tuple until its first; a caller that
reads no events makes none (``Analyzer(events=False)``, as ``replay_records``
does), and one that has each line already makes no MessageSeen (``seen=False``: 1,700
instructions a message of 40,300); ``check_pending`` looks no further when nothing it
watches can be due.
Nothing else trades clarity for speed.
"""
