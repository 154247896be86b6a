"""The rules, one file per family; each family reports through the one Reporter.

framing.py (stdout.*, stdin.*), envelope.py (jsonrpc.*), pairing.py
(pairing.*, cancel.*), legacy.py (the era; legacy.*), modern.py (2026-07-28:
meta.*, result.*, cache.*, direction.*, ping.*, version.*, error.*),
capabilities.py (capability.*), progress_logging.py (progress.*, logging.*),
shapes.py (schema.*), lifecycle.py (lifecycle.*),
requests.py (request.*, version.* of a sender left waiting). analysis/analyzer.py hands
each line to the families; rule_ids.py lists every id and the file raising it.
"""
