"""Views over analyze_function Evidence (pure: no provider runs)."""

from rea.evidence import Provider, create_evidence
from rea.native.views import native_view

ANGR = Provider(id="angr", name="angr", version="9.2.213")


def dossier(pseudocode: str, callers: int = 3):
    return create_evidence(
        provider=ANGR,
        operation="analyze_function",
        parameters={"procedure": "f"},
        normalized_result={
            "procedure": {"address": "0x10", "name": "f", "kind": "function", "size": 8},
            "pseudocode": pseudocode,
            "pseudocode_length": len(pseudocode),
            "callers": [{"address": f"0x{i:x}", "name": f"c{i}", "kind": "function"} for i in range(callers)],
            "facet_availability": {
                "pseudocode": {"available": True},
                "callers": {"available": True},
                "comments": {"available": False, "reason": "angr keeps none"},
            },
        },
    ).unwrap()


def test_pseudocode_pages_never_split_surrogates_and_cover_the_text():
    text = "int f() { return '😀' + 'x'; } // 😀😀" * 5
    source = dossier(text)
    pages, offset = [], 0
    while offset is not None:
        view = native_view(source, {"facet": "pseudocode", "offset": offset, "limit": 7}).unwrap()
        pages.append(view["text"])
        offset = view["next_offset"]
    assert "".join(pages) == text
    assert view["total"] == len(text.encode("utf-16-le")) // 2


def test_row_pages_digests_and_unavailable_facets():
    source = dossier("x", callers=5)
    first = native_view(source, {"facet": "callers", "offset": 0, "limit": 2}).unwrap()
    second = native_view(source, {"facet": "callers", "offset": 2, "limit": 2}).unwrap()
    assert [c["name"] for c in first["items"]] == ["c0", "c1"] and second["next_offset"] == 4
    assert first["selected_facts_sha256"] != second["selected_facts_sha256"]
    assert first["parent_evidence_id"] == source.evidence_id
    missing = native_view(source, {"facet": "assembly"}).unwrap()
    assert missing["available"] is False and missing["items"] == []
    assert native_view(source, {"facet": "bogus"}).failure().details["field"] == "facet"
