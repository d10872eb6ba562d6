"""Views over analyze_function Evidence (pure: no provider runs), against the 6.x dossier's field names."""

from rea.evidence import Provider, Subject, create_evidence
from rea.views.programs import project, view_evidence
from rea.views.records.requests import AnalysisViewArgs
from rea.wire.convert import with_defaults

ANGR = Provider(id="angr", name="angr", version="9.2.213")
SUBJECT = Subject(name="pie", sha256="c" * 64, format="elf", architecture="x86_64", local_path="/bin/pie")


def dossier(pseudocode: str | None = "int f(void) { return 1; }", callers: int = 3, **extra):
    body = {
        "procedure": {"address": "0x10", "name": "f", "kind": "function", "size": 8},
        "pseudocode": pseudocode,
        "assembly": ["push rbp", "mov rbp, rsp", "pop rbp", "ret"],
        "comments": [],
        "callers": [{"address": f"0x{i:x}", "name": f"c{i}"} for i in range(callers)],
        "callees": [],
        "incoming_references": [
            {
                "source_address": "0x40",
                "target_address": "0x10",
                "source_procedure": {"address": "0x40", "name": "main"},
                "target_procedure": {"address": "0x10", "name": "f"},
                "kind": {"available": True, "value": "call"},
            }
        ],
        "outgoing_references": [],
        "referenced_strings": [{"address": "0x2000", "value": "hello", "source_address": "0x14"}],
        "referenced_names": [],
        "basic_blocks": [{"start": "0x10", "end": "0x18", "successors": []}],
        "unresolved_calls": [],
        "native_api": None,
        "native_value_flow": {"available": False, "reason": "angr data-flow is not wired"},
        "limitations": ["angr recovers no comments"],
        "facet_availability": {
            "pseudocode": {"available": pseudocode is not None, **({} if pseudocode else {"reason": "no decompiler"})},
            "comments": {"available": False, "reason": "angr keeps none"},
            "callers": {"available": True},
            "references": {"available": True},
            "strings_names": {"available": True},
            "cfg": {"available": True},
        },
        **extra,
    }
    return create_evidence(
        provider=ANGR,
        operation="analyze_function",
        parameters={"procedure": "f"},
        normalized_result=body,
        subject=SUBJECT,
    ).unwrap()


def view(source, **spec):
    args = with_defaults(
        {"source": {"kind": "inline", "evidence": {}}, "view": {"kind": "native", **spec}}, AnalysisViewArgs
    )
    return project(source, args.unwrap()["view"])


def test_pseudocode_pages_never_split_surrogates_and_cover_the_text():
    text = "int f() { return '😀' + 'x'; } // 😀😀" * 5
    source = dossier(text)
    pages, offset = [], 0
    while offset is not None:
        result = view(source, facet="pseudocode", offset=offset, limit=7).unwrap()
        assert result["item"]["unit"] == "utf16-code-units"
        pages.append(result["item"]["text"])
        offset = result["coverage"]["next_offset"]
    assert "".join(pages) == text
    assert result["coverage"]["total"] == len(text.encode("utf-16-le")) // 2 and result["coverage"]["exhausted"]
    inside_pair = text.encode("utf-16-le").decode("utf-16-le").index("😀") + 1
    assert view(source, facet="pseudocode", offset=inside_pair).failure().details["issues"][0]["path"] == [
        "view",
        "offset",
    ]


def test_row_pages_carry_the_reference_fields_and_digests():
    source = dossier(callers=5)
    first = view(source, facet="callers", offset=0, limit=2).unwrap()
    second = view(source, facet="callers", offset=2, limit=2).unwrap()
    assert [c["name"] for c in first["item"]] == ["c0", "c1"] and second["coverage"]["next_offset"] == 4
    assert first["coverage"] == {"status": "page", "examined": 2, "total": 5, "next_offset": 2, "exhausted": False}
    assert first["view_digest"] != second["view_digest"]
    assert first["kind"] == "native" and first["view"] == {
        "kind": "native",
        "facet": "callers",
        "offset": 0,
        "limit": 2,
    }
    assert first["parent_evidence_id"] == source.evidence_id and first["parent_operation"] == "analyze_function"
    assert first["parent_digest"] == source.evidence_id[3:] and first["procedure_address"] == "0x10"
    assert first["artifact"] == {"path": "/bin/pie", "sha256": "c" * 64}
    assert first["limitations"] == ["angr recovers no comments"]
    assert "native_value_flow unavailable: angr data-flow is not wired" in first["unknowns"]
    refs = view(source, facet="incoming_references").unwrap()
    assert refs["item"][0]["source_procedure"] == {"address": "0x40", "name": "main"}
    assert view(source, facet="referenced_strings").unwrap()["item"][0]["value"] == "hello"
    assert view(source, facet="assembly", offset=3).unwrap()["item"] == ["ret"]
    past = view(source, facet="assembly", offset=99).unwrap()["coverage"]
    assert past["status"] == "empty" and past["next_offset"] is None and past["exhausted"]


def test_unobserved_facets_say_so_instead_of_an_empty_page():
    source = dossier(pseudocode=None)
    comments = view(source, facet="comments").unwrap()
    assert comments["item"] == {"available": False, "reason": "angr keeps none"}
    assert "comments unavailable: angr keeps none" in comments["unknowns"]
    assert view(source, facet="pseudocode").unwrap()["item"] == {"available": False, "reason": "no decompiler"}
    flow = view(source, facet="value_flow_operations").unwrap()["item"]
    assert flow == {"available": False, "reason": "angr data-flow is not wired"}
    assert view(source, facet="value_flow_summary").unwrap()["item"]["available"] is False
    assert view(source, facet="native_api").unwrap()["item"] == {"available": False, "reason": "not recorded"}
    assert view(source, facet="procedure").unwrap()["item"]["name"] == "f"
    assert view(source, facet="procedure", offset=1).failure().code == "invalid_request"


def test_native_parents_take_native_and_summary_views_and_the_view_is_retained_evidence():
    source = dossier()
    summary = project(source, {"kind": "summary"}).unwrap()["summary"]
    assert summary["operation"] == "analyze_function" and summary["procedure"]["name"] == "f"
    counts = {c["facet"]: c["total"] for c in summary["collections"]}
    assert counts["callers"] == len(source.normalized_result["callers"])
    ev = view_evidence(source, {"kind": "native", "facet": "callers", "offset": 0, "limit": 64}).unwrap()
    assert ev.operation == "inspect_analysis_view" and ev.evidence_links == (source.evidence_id,)
    assert ev.parameters["source"] == {"kind": "retained-evidence", "evidence_id": source.evidence_id}
    assert ev.provider.id == "rea-views" and ev.confidence == "derived"


def test_views_of_parents_this_server_cannot_produce_name_the_producer():
    source = dossier()
    for spec, producer in (
        ({"kind": "wasm", "facet": "exports", "offset": 0, "limit": 64}, "inspect_wasm_artifact"),
        ({"kind": "macho", "facet": "exports", "offset": 0, "limit": 64}, "inspect_macho"),
        ({"kind": "facet", "facet": "mitigations"}, "inspect_binary_layout"),
        ({"kind": "item", "collection": "sections", "selector": {"name": ".text"}}, "inspect_binary_layout"),
    ):
        refused = project(source, spec).failure()
        assert refused.code == "invalid_request" and refused.details["required_operation"] == producer
