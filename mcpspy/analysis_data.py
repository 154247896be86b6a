"""The data the analysis is handed by its callers: the result definitions of each revision.

The analysis does no I/O (analysis/__init__.py): this module reads the packaged
result_schemas.json (cut from the spec by tests/analysis/make_result_schemas.py),
once a process, for the replay policy and anyone else who builds an Analyzer.
"""

from __future__ import annotations

import functools
from pathlib import Path

import orjson

from mcpspy.analysis.schema import ResultSchemas

PACKAGED = Path(__file__).with_name("result_schemas.json")


@functools.cache
def result_schemas() -> ResultSchemas:
    """The packaged result definitions, compiled on demand and shared by every analysis of the process."""
    return ResultSchemas(orjson.loads(PACKAGED.read_bytes())["revisions"])
