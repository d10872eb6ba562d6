"""Descriptions tell the truth about defaults: wherever an argument's own text states its default (a
number, a boolean, `all`/`every` for an unbounded listing), it is the default the schema advertises,
and the schema's default is the one the program runs with (the argument record fills every default
before a program reads it: effects.calls). A tool whose description names the default `detail` names
the schema's."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from rea.catalog import CATALOG

STATED = re.compile(r"\bdefault(?:s)?\s*(?:is|to|:|=)?\s*(-?\d[\d_]*|true|false)\b", re.I)
UNBOUNDED = re.compile(r"\bdefault(?:s)?\s*(?:is|to|:|=)?\s*(?:all|every)\b", re.I)


def _arguments(node: Any, path: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    if not isinstance(node, dict):
        return
    if isinstance(node.get("description"), str) and path:
        yield path, node
    for name, sub in node.get("properties", {}).items():
        yield from _arguments(sub, f"{path}.{name}" if path else name)
    for key in ("items", "anyOf", "oneOf"):
        for sub in node.get(key, []) if isinstance(node.get(key), list) else [node.get(key)]:
            yield from _arguments(sub, path)


def test_a_default_stated_in_an_arguments_text_is_the_advertised_default():
    checked = 0
    for contract in CATALOG:
        for path, node in _arguments(contract.input_schema):
            stated = STATED.search(node["description"])
            if stated:
                checked += 1
                assert json.loads(stated.group(1).replace("_", "").lower()) == node.get("default"), (
                    contract.name,
                    path,
                )
            if UNBOUNDED.search(node["description"]):
                checked += 1
                assert node.get("default") is None, (contract.name, path, node.get("default"))
    assert checked > 50


def test_a_detail_default_named_in_a_tool_description_is_the_schemas():
    for contract in CATALOG:
        detail = contract.input_schema.get("properties", {}).get("detail")
        if detail is None:
            continue
        for said in re.findall(r"detail:?\s*\"?(\w+)\"?,? the default", contract.description):
            assert said == detail.get("default"), contract.name
        for said in re.findall(r"the default is (\w+)", contract.description):
            assert said == detail.get("default"), contract.name
