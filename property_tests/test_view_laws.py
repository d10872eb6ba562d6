"""Laws of inspect_analysis_view paging: following coverage.next_offset partitions every collection exactly.

For native row facets, pseudocode (UTF-16 code units, astral characters
included), inventory facets and module pages: the pages' contents concatenate
to the complete collection, nothing is lost or repeated, `examined` sums to
`total`, and next_offset is null exactly on the last page.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from prop_support import trees as inventory_trees
from rea.artifacts import build_inventory
from rea.artifacts.graph import SECTIONS, page_inventory
from rea.artifacts.model import Limits
from rea.evidence import Evidence, Provider, Subject, create_evidence
from rea.views.programs import project

SUBJECT = Subject(name="t", sha256="d" * 64, format="elf", architecture=None, local_path="/t")
ROW_FACETS = ("assembly", "callers", "incoming_references", "referenced_strings", "basic_blocks", "unresolved_calls")
rows = st.lists(st.integers(0, 10**6).map(lambda i: {"address": hex(i)}), max_size=40)
texts = st.text(st.sampled_from(["a", "\n", "é", "😀", "𝄞", "}"]), max_size=80)
limits = st.integers(1, 9)


def _evidence(operation: str, result: Any) -> Evidence:
    return create_evidence(
        provider=Provider(id="p", name="p", version="1"),
        operation=operation,
        parameters={},
        normalized_result=result,
        subject=SUBJECT,
    ).unwrap()


def walk(read: Callable[[int], dict[str, Any]]) -> tuple[list[Any], list[dict[str, Any]]]:
    """Every page from offset 0, following coverage.next_offset."""
    pages, offset = [], 0
    while offset is not None:
        page = read(offset)
        pages.append(page)
        offset = page["coverage"]["next_offset"]
        assert offset is None or offset > pages[-1]["view"]["offset"]
    assert [p["coverage"]["exhausted"] for p in pages] == [False] * (len(pages) - 1) + [True]
    assert sum(p["coverage"]["examined"] for p in pages) == pages[-1]["coverage"]["total"]
    return pages, [p["coverage"] for p in pages]


@given(st.fixed_dictionaries({f: rows for f in ROW_FACETS}), st.sampled_from(ROW_FACETS), limits)
def test_native_row_pages_partition_the_facet(collections, facet, limit):
    source = _evidence("analyze_function", {"procedure": {"address": "0x1", "name": "f"}, **collections})

    def read(offset: int) -> dict[str, Any]:
        return project(source, {"kind": "native", "facet": facet, "offset": offset, "limit": limit}).unwrap()

    pages, _ = walk(read)
    assert [row for p in pages for row in p["item"]] == collections[facet]
    assert all(len(p["item"]) <= limit for p in pages)


@given(texts, limits)
def test_pseudocode_pages_partition_the_text_without_splitting_a_character(text, limit):
    source = _evidence("analyze_function", {"procedure": {"address": "0x1", "name": "f"}, "pseudocode": text})

    def read(offset: int) -> dict[str, Any]:
        return project(source, {"kind": "native", "facet": "pseudocode", "offset": offset, "limit": limit}).unwrap()

    pages, coverage = walk(read)
    assert "".join(p["item"]["text"] for p in pages) == text
    assert coverage[-1]["total"] == len(text.encode("utf-16-le")) // 2
    assert all(p["item"]["text"] or not text for p in pages)


@given(inventory_trees(), st.sampled_from(SECTIONS), limits)
def test_inventory_pages_partition_every_facet(facts, facet, limit):
    complete = build_inventory(facts, Limits())
    source = _evidence("inventory_artifact", page_inventory(complete, {}))

    def read(offset: int) -> dict[str, Any]:
        return project(source, {"kind": "inventory", "facet": facet, "offset": offset, "limit": limit}).unwrap()

    pages, _ = walk(read)
    assert [item for p in pages for item in p["items"]] == complete[facet]


@given(st.lists(st.sampled_from(["module", "bundled-module", "ipc-channel", "source-module"]), max_size=30), limits)
def test_module_pages_partition_the_modules_of_either_result_shape(kinds, limit):
    nodes = [{"node_id": f"n{i}", "kind": k, "path": f"m{i}.js"} for i, k in enumerate(kinds)]
    modules = [n["node_id"] for n in nodes if n["kind"] != "ipc-channel"]
    for result in (
        {"graph": {"nodes": nodes, "edges": []}, "input_path": "/app", "format": "directory"},
        {"schema": "rea.javascript-application/v1", "nodes": [{**n, "id": n.pop("node_id")} for n in map(dict, nodes)]},
    ):
        source = _evidence("analyze_javascript_application", result)

        def read(offset: int, source: Evidence = source) -> dict[str, Any]:
            view = {"kind": "page", "collection": "modules", "offset": offset, "limit": limit}
            return project(source, view).unwrap()

        pages, _ = walk(read)
        assert [item["node_id"] for p in pages for item in p["items"]] == modules
