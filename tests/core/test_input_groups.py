"""Union tools (a root anyOf in the reference) are advertised as one object: the root description states
the accepted input groups (the compact profile keeps it), and every advertised example is an input the
tool accepts, through a real MCP client (refused only for the Evidence the example points at, never for
its shape)."""

from __future__ import annotations

import json
import re

import anyio

from mcp_client import connect
from rea.catalog import BY_NAME
from rea.catalog.input_groups import INPUT_GROUPS
from rea.catalog.schemas import compact_input


def test_every_group_description_names_real_properties_and_survives_the_compact_profile():
    for name, text in INPUT_GROUPS.items():
        schema = BY_NAME[name].input_schema
        assert schema["description"] == text
        assert compact_input(schema)["description"] == text
        named = set(re.findall(r"\b[a-z]+(?:_[a-z]+)+\b", text)) - set(BY_NAME)  # tool names name results
        assert named <= set(schema["properties"]), (name, named - set(schema["properties"]))


def test_advertised_examples_of_union_tools_pass_the_tools_own_checks():
    async def main():
        replies = []
        async with connect() as s:
            for name in INPUT_GROUPS:
                for example in BY_NAME[name].input_schema.get("examples", []):
                    replies.append((name, example, await s.call_tool(name, example)))
            refused = await s.call_tool("compare_web_captures", {})
        return replies, refused

    replies, refused = anyio.run(main)
    assert replies, "union tools advertise examples"
    for name, example, reply in replies:
        body = json.loads(reply.content[0].text)
        # the examples point at retained Evidence this fresh session does not hold: that is the only refusal
        assert body.get("error", {}).get("code") in (None, "evidence_integrity_mismatch"), (name, example, body)
    assert "examples" not in BY_NAME["compare_web_captures"].input_schema  # only inline captures are accepted
    assert json.loads(refused.content[0].text)["error"]["code"] == "invalid_request"
