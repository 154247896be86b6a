"""The tools' schemas keep to mcpspy's own tool rules, and any arguments an agent sends are either
taken or refused with one sentence."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mcpspy.agent.schemas import checked
from mcpspy.agent.sessions import ToolInputError
from mcpspy.agent.tools import TOOLS
from mcpspy.agent.untrusted import WARNING

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=12,
)


@pytest.mark.parametrize("tool", TOOLS, ids=lambda t: t.name)
@given(
    arguments=st.dictionaries(st.sampled_from(["session", "filter", "limit", "seq", "command", "x"]), JSON)
    | JSON
)
def test_any_arguments_are_taken_or_refused_in_one_sentence(tool: Any, arguments: Any) -> None:
    try:
        taken = checked(arguments, tool.input_schema)
    except ToolInputError as exc:
        sentence = str(exc)
        assert sentence.endswith(".") and "\n" not in sentence
        return
    assert set(taken) <= set(tool.input_schema["properties"])


def test_each_tool_that_hands_out_captured_data_warns_of_it() -> None:
    for tool in TOOLS:
        definition = tool.definition()
        assert (WARNING in definition["description"]) == (tool.name != "explain_rule"), tool.name
        assert definition["inputSchema"]["type"] == "object"
        assert definition["outputSchema"]["type"] == "object"
