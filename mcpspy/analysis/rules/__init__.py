"""The rules, one file per family; each family reports through the one Reporter.

framing.py (stdout.*, stdin.*), envelope.py (jsonrpc.*), pairing.py
(pairing.*, cancel.*), legacy.py (the era; legacy.*), modern.py (2026-07-28:
meta.*, result.*, error.*, direction.*, discover.*, era.*, ping.*, version.*),
the 2026-07-28 DIGEST's rooms mrtr.py, subscriptions.py, deprecations.py and
caching.py (each asks legacy.py's EraTracker whether a message is 2026-07-28
traffic), capabilities.py (capability.*),
progress_logging.py (progress.*, logging.*), shapes.py (schema.*),
tool_schemas.py (tools.*), lifecycle.py (lifecycle.*), requests.py
(request.*, version.* of a sender left waiting), capture_integrity.py
(capture.*: what the capture says it lost). analysis/hooks.py's ``HOOKS``
says which family's method sees a message, in order; rule_ids.py lists every
id and the file raising it; catalogue/ has each family's rows.
"""
