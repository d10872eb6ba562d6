import typing

import attrs
import jsonschema
import orjson
from returns.pipeline import is_successful
from returns.result import Failure, Success

from rea.bundle import bundle_chunks, bundle_json, parse_bundle
from rea.canonical_json import canonicalize
from rea.catalog import BY_NAME
from rea.catalog.contract import ClientFeature, Surface, ToolAnnotation, ToolEffect
from rea.errors import ReaError
from rea.evidence import SubjectFormat
from rea.native.effects import DiscoverProviders
from rea.native.providers import RejectionCode
from rea.program import IdentifyTarget, PublishAtomically, PublishReceipt, TargetFacts
from rea.session import Session, header_architecture, resolve, target_kind
from rea.session_tools.programs.bundles import export_evidence_bundle, get_evidence_bundle, import_evidence_bundle
from rea.session_tools.programs.status import NATIVE_OPERATIONS, binary_session
from rea.session_tools.programs.target import close_binary, open_binary
from rea.session_tools.programs.unknowns import list_unknowns, record_unknown, update_unknown
from rea.session_tools.records import vocabulary as w
from rea.session_tools.records.status import AnalysisActivity
from scripted import CTX, drive_tool
from support import ledger, make_evidence


def _bundle_tree(session):
    return orjson.loads(b"".join(bundle_chunks(session)))


def test_streamed_bundle_equals_canonical_bundle():
    session = ledger(25)
    assert b"".join(bundle_chunks(session)) == canonicalize(bundle_json(session))


def test_import_merges_exactly_and_is_idempotent():
    source = ledger(10)
    tree = _bundle_tree(source)
    outcome, _ = drive_tool(import_evidence_bundle, Session(), {"path": "/b.json"}, lambda e: Success(tree))
    assert outcome.reply.unwrap()["result"] == {"imported": 10, "unknowns_added": 0, "total": 10}
    assert set(outcome.session.evidence) == set(source.evidence)
    again, _ = drive_tool(import_evidence_bundle, outcome.session, {"path": "/b.json"}, lambda e: Success(tree))
    assert again.reply.unwrap()["result"]["imported"] == 0


def _import(session, tree):
    return drive_tool(import_evidence_bundle, session, {"path": "/b.json"}, lambda e: Success(tree))[0]


def test_unsupported_fields_are_rejected_before_ids_and_nothing_changes():
    base = ledger(3)
    for mutate, path in [
        (lambda t: t.update(signature="x"), "$.signature"),
        (lambda t: t["providers"][0].update(extra=1), "$.providers[0].extra"),
        (lambda t: t["records"][2].update(approved=True), "$.records[2].approved"),
        (lambda t: t["records"][0]["subject"].update(owner="me"), "$.records[0].subject.owner"),
        (
            lambda t: t["records"][1]["analysis_profile"]["provider"].update(build=1),
            "$.records[1].analysis_profile.provider.build",
        ),
    ]:
        tree = _bundle_tree(ledger(5))
        tree["records"][0]["operation"] = "tampered"  # an id problem exists too, but fields are checked first
        mutate(tree)
        outcome = _import(base, tree)
        assert outcome.session is base
        err = outcome.reply.failure()
        assert err.code == "evidence_integrity_mismatch" and err.details["path"] == path, err


def test_tampered_record_or_manifest_is_rejected_atomically():
    base = ledger(2)
    tree = _bundle_tree(ledger(6))
    tree["records"][4]["normalized_result"]["score"] = 99
    outcome = _import(base, tree)
    assert outcome.session is base and "evidence_id" in outcome.reply.failure().message
    tree = _bundle_tree(ledger(6))
    tree["artifacts"].pop()
    assert _import(base, tree).reply.failure().details["path"] == "$.artifacts"
    tree = _bundle_tree(ledger(6))
    tree["bundle_version"] = 1
    assert _import(base, tree).reply.failure().details["path"] == "$.bundle_version"


def test_retained_reference_resolution():
    session = ledger(2)
    some_id = next(iter(session.evidence))
    assert (
        resolve(session, {"kind": "retained-evidence", "evidence_id": some_id}, "left").unwrap().evidence_id == some_id
    )
    missing = "ev_" + "e" * 64
    err = resolve(session, {"kind": "retained-evidence", "evidence_id": missing}, "left").failure()
    assert err.code == "evidence_integrity_mismatch"
    assert err.details == {"reason": "missing", "evidence_id": missing, "expected": "retained Evidence", "actual": None}
    inline = resolve(session, make_evidence(7).to_json(), "left")
    assert is_successful(inline)


def test_open_binary_binds_target_and_new_run_but_keeps_ledger():
    session = ledger(2)
    facts = TargetFacts(path="/bin/x", kind="file", sha256="a" * 64, size=10, format="elf")

    def answer(effect):
        return Success(facts) if isinstance(effect, IdentifyTarget) else Success("run-1")

    outcome, effects = drive_tool(open_binary, session, {"path": "/bin/x"}, answer)
    assert [type(e).__name__ for e in effects if not type(e).__name__ == "ReportProgress"] == [
        "IdentifyTarget",
        "DiscoverProviders",
        "ReleaseNative",
        "NewRunId",
    ]
    assert outcome.session.evidence == session.evidence
    assert outcome.session.run_id == "run-1"
    result = outcome.reply.unwrap()["result"]
    assert result["analysis_run"]["process_lineage"] == {"status": "not_observed"}
    binding = result["analysis_provider_binding"]
    assert binding["provider"] == {"id": "angr", "name": "angr", "version": "9.2.213"}
    assert binding["selection_source"] == "auto-single-candidate"
    assert binding["analysis_profile"]["provider"] == binding["provider"]


def test_open_binary_selection_precedence_and_refusals():
    facts = TargetFacts(path="/bin/x", kind="file", sha256="a" * 64, size=10, format="elf")

    def answer(effect):
        return Success(facts) if isinstance(effect, IdentifyTarget) else Success("run-2")

    env_ctx = attrs.evolve(CTX, analysis_provider="angr")
    by_env = drive_tool(open_binary, Session(), {"path": "/bin/x"}, answer, ctx=env_ctx)[0]
    assert by_env.reply.unwrap()["result"]["analysis_provider_binding"]["selection_source"] == "environment"
    by_request = drive_tool(open_binary, Session(), {"path": "/bin/x", "provider_id": "angr"}, answer, ctx=env_ctx)[0]
    assert by_request.reply.unwrap()["result"]["analysis_provider_binding"]["selection_source"] == "request"
    for provider, code, status in (
        ("ghidra", "provider_unavailable", "unavailable"),
        ("hopper", "provider_unavailable", "unavailable"),
        ("radare", "capability_unavailable", "unknown_provider"),
    ):
        refused = drive_tool(open_binary, Session(), {"path": "/bin/x", "provider_id": provider}, answer)[0]
        err = refused.reply.failure()
        assert err.code == code and err.details["selection"]["status"] == status, provider
        assert refused.session == Session()
    text = TargetFacts(path="/etc/x.txt", kind="file", sha256="b" * 64, size=3, format="file")
    unbound = drive_tool(
        open_binary,
        Session(),
        {"path": "/etc/x.txt"},
        lambda e: Success(text) if isinstance(e, IdentifyTarget) else Success("run-3"),
    )[0]
    result = unbound.reply.unwrap()["result"]
    assert result["analysis_provider_binding"] is None and "ELF, PE or Mach-O" in result["limitations"][0]
    explicit = drive_tool(
        open_binary,
        Session(),
        {"path": "/etc/x.txt", "provider_id": "angr"},
        lambda e: Success(text) if isinstance(e, IdentifyTarget) else Success("run-4"),
    )[0]
    assert explicit.reply.failure().details["selection"]["status"] == "target_format_unsupported"


def test_open_binary_failure_leaves_session_unchanged():
    session = ledger(1)
    err = ReaError(code="target_unavailable", message="gone")
    outcome, _ = drive_tool(open_binary, session, {"path": "/nope"}, lambda e: Failure(err))
    assert outcome.session is session and outcome.reply.failure() is err


def test_close_binary_clears_everything_and_works_without_target():
    outcome, _ = drive_tool(close_binary, ledger(3), {})
    assert outcome.session == Session()
    reply = outcome.reply.unwrap()
    assert reply["result"] is None  # the reference's result without a snapshot
    assert reply["closed"]["cleared"]["records"] == 3
    assert reply["closed"]["cleanup"] == {"status": "complete", "owned_resources": []}
    empty, _ = drive_tool(close_binary, Session(), {"overwrite": False})
    assert empty.reply.unwrap() == {
        "result": None,
        "closed": {
            "target": None,
            "cleared": {"records": 0, "unknowns": 0},
            "cleanup": {"status": "complete", "owned_resources": []},
        },
    }


def test_close_binary_refuses_a_snapshot_and_closes_nothing():
    session = ledger(2)
    refused, effects = drive_tool(close_binary, session, {"snapshot_path": "/tmp/snap.json", "overwrite": True})
    err = refused.reply.failure()
    assert err.code == "capability_unavailable" and err.details == {
        "reason": "snapshot_path_unsupported",
        "field": "snapshot_path",
    }
    assert refused.session is session and effects == []


def test_summary_filters_are_exact_and_require_summary_detail():
    session = ledger(6)
    target = make_evidence(4)
    outcome, _ = drive_tool(
        get_evidence_bundle, session, {"detail": "summary", "filters": {"procedure_address": "0x401004"}}
    )
    result = outcome.reply.unwrap()["result"]
    rows = result["records"]
    assert result["kind"] == "evidence-bundle-summary" and result["filters"] == {"procedure_address": "0x401004"}
    assert (result["total_retained_records"], result["matching_records"], result["unknown_revisions"]) == (6, 1, 0)
    assert [r["evidence_id"] for r in rows] == [target.evidence_id]
    assert rows[0]["analysis_profile_digest"] == target.analysis_profile.digest
    assert rows[0]["native_dossier"] == {
        "available": True,
        "procedure_address": "0x401004",
        "procedure_name": "fn_4",
        "value_flow": {"status": "not-recorded"},
    }
    assert rows[0]["subject"] == target.subject.to_json() and rows[0]["limitation_count"] == 0
    by_sha, _ = drive_tool(
        get_evidence_bundle, session, {"detail": "summary", "filters": {"target_sha256": "1".zfill(64)}}
    )
    assert by_sha.reply.unwrap()["result"]["matching_records"] == 2
    refused, _ = drive_tool(get_evidence_bundle, session, {"filters": {"operation": "x"}})
    assert refused.reply.failure().details["field"] == "filters"


def test_export_program_publishes_the_streamed_bundle():
    session = ledger(4)
    seen = {}

    def answer(effect):
        assert isinstance(effect, PublishAtomically)
        seen["bytes"] = b"".join(effect.chunks())
        return Success(PublishReceipt(path="/tmp/x.json", bytes=len(seen["bytes"]), sha256="0" * 64))

    outcome, _ = drive_tool(export_evidence_bundle, session, {"path": "/tmp/x.json"}, answer)
    assert seen["bytes"] == canonicalize(bundle_json(session))
    assert outcome.reply.unwrap()["result"]["records"] == 4
    assert parse_bundle(orjson.loads(seen["bytes"])).unwrap().records


def test_unknown_lifecycle_and_revision_conflict():
    session = ledger(2)
    support_id = next(iter(session.evidence))
    recorded, _ = drive_tool(
        record_unknown,
        session,
        {
            "question": "Does  it  phone home?",
            "domain": "network",
            "severity": "high",
            "supporting_evidence_ids": [support_id],
        },
    )
    first = recorded.reply.unwrap()["result"]
    assert first["question"] == "Does it phone home?" and first["revision"] == 1 and first["status"] == "open"
    assert first["mutation_evidence_ids"][0] in recorded.session.evidence
    duplicate, _ = drive_tool(
        record_unknown,
        recorded.session,
        # the same question about the same subject (the Evidence it cites says which)
        {
            "question": "Does it phone home?",
            "domain": "network",
            "severity": "low",
            "supporting_evidence_ids": [support_id],
        },
    )
    assert duplicate.reply.failure().code == "revision_conflict" and duplicate.session is recorded.session
    updated, _ = drive_tool(
        update_unknown,
        recorded.session,
        {"unknown_id": first["unknown_id"], "expected_revision": 1, "status": "investigating"},
    )
    second = updated.reply.unwrap()["result"]
    assert second["revision"] == 2 and second["previous_revision_digest"] == first["revision_digest"]
    assert second["supporting_evidence_ids"] == [support_id]
    stale, _ = drive_tool(
        update_unknown,
        updated.session,
        {"unknown_id": first["unknown_id"], "expected_revision": 1, "status": "blocked"},
    )
    err = stale.reply.failure()
    assert err.code == "revision_conflict" and err.retryable and err.details["current_revision"] == 2
    assert stale.session is updated.session
    listed, _ = drive_tool(list_unknowns, updated.session, {})
    assert [u["revision"] for u in listed.reply.unwrap()["result"]["items"]] == [2]
    # bundles carry every revision and import verifies the chain
    tree = _bundle_tree(updated.session)
    assert len(tree["unknowns"]) == 2
    assert is_successful(parse_bundle(tree))
    tree["unknowns"][1]["status"] = "resolved"
    assert parse_bundle(tree).failure().details["path"] == "$.unknowns[1].revision_digest"


def test_unknown_rules_are_enforced():
    session = ledger(1)
    missing_ref, _ = drive_tool(
        record_unknown,
        session,
        {"question": "q", "domain": "d", "severity": "low", "supporting_evidence_ids": ["ev_" + "1" * 64]},
    )
    assert missing_ref.reply.failure().details["reason"] == "missing"
    recorded, _ = drive_tool(record_unknown, session, {"question": "q", "domain": "d", "severity": "low"})
    uid = recorded.reply.unwrap()["result"]["unknown_id"]
    no_resolution, _ = drive_tool(
        update_unknown, recorded.session, {"unknown_id": uid, "expected_revision": 1, "status": "resolved"}
    )
    assert no_resolution.reply.failure().details["field"] == "resolution"
    missing, _ = drive_tool(update_unknown, session, {"unknown_id": uid, "expected_revision": 1})
    assert missing.reply.failure().details["reason"] == "missing"


def test_list_unknowns_pages_partition_filtered_heads():
    session = ledger(1)
    for i in range(7):
        session = drive_tool(
            record_unknown, session, {"question": f"q{i}", "domain": "a" if i % 2 else "b", "severity": "low"}
        )[0].session
    everything = drive_tool(list_unknowns, session, {"domain": "b"})[0].reply.unwrap()["result"]
    assert everything["total"] == 4 and everything["next_offset"] is None
    ids, offset = [], 0
    while offset is not None:
        page = drive_tool(list_unknowns, session, {"domain": "b", "offset": offset, "limit": 3})[0].reply.unwrap()[
            "result"
        ]
        ids += [u["unknown_id"] for u in page["items"]]
        offset = page["next_offset"]
    assert ids == [u["unknown_id"] for u in everything["items"]] == sorted(ids)


def test_binary_session_reports_identity_groups_and_alignment():
    outcome, _ = drive_tool(binary_session, ledger(2), {"expected_package_version": "9.9.9"})
    result = outcome.reply.unwrap()["result"]
    names = sorted(n for g in result["tool_availability"]["groups"] for n in g["names"])
    from rea.catalog import BY_NAME

    assert names == sorted(BY_NAME)
    candidates = result["analysis_provider_candidates"]
    assert [c["provider"]["id"] for c in candidates] == ["angr", "ghidra", "hopper", "ida"]
    assert [c["availability"]["status"] for c in candidates] == [
        "available",
        "unavailable",
        "unavailable",
        "unavailable",
    ]
    assert all(c["target_support"]["status"] == "unknown" and not c["selected"] for c in candidates)
    assert result["server_identity"]["alignment"]["state"] == "mcp_server_restart_required"
    assert result["server_identity"]["alignment"]["reasons"] == ["package_version_mismatch"]
    digest = result["server_identity"]["catalog"]["digests"]["combined_sha256"]
    aligned = drive_tool(binary_session, Session(), {"expected_catalog_digest": digest})[0].reply.unwrap()["result"]
    assert aligned["server_identity"]["alignment"]["state"] == "aligned"
    assert aligned["analysis_run"] is None and aligned["ledger"] == {"records": 0, "unknowns": 0}
    for group in result["tool_availability"]["groups"]:
        assert set(group["effects"]) <= {
            "accessesNetwork",
            "changesUiState",
            "executesForeignCode",
            "idempotent",
            "launchesProcess",
            "mayDiscardData",
            "mutatesDevice",
            "mutatesSession",
            "mutatesTarget",
            "writesFilesystem",
        }


# ------------------------------------------------------------ REA 6.x wire shapes


def _conforms(name, reply):
    """A program's reply validates against the tool's advertised output schema."""
    jsonschema.validate(reply, BY_NAME[name].output_schema)
    return reply["result"]


def _elf_facts(path="/bin/x", architecture="x86_64"):
    return TargetFacts(path=path, kind="file", sha256="a" * 64, size=10, format="elf", architecture=architecture)


def _answer(facts):
    return lambda e: (
        Success(facts) if isinstance(e, IdentifyTarget) else Success("0f0e0d0c-0000-4000-8000-000000000000")
    )


def test_open_binary_puts_the_reference_target_fields_at_the_top():
    outcome, _ = drive_tool(open_binary, Session(), {"path": "/bin/x"}, _answer(_elf_facts()))
    result = _conforms("open_binary", outcome.reply.unwrap())
    assert {k: result[k] for k in ("path", "format", "kind", "loaderArgs", "sha256", "architecture")} == {
        "path": "/bin/x",
        "format": "elf",
        "kind": "executable",
        "loaderArgs": [],
        "sha256": "a" * 64,
        "architecture": "x86_64",
    }
    assert result["target"] == {"path": "/bin/x", "name": "x", "sha256": "a" * 64, "size": 10, "format": "elf"} | {
        "kind": "file"
    }
    binding = result["analysis_provider_binding"]
    assert binding["selection_source"] == "auto-single-candidate" and binding["selection_detail"] == "single-candidate"


def test_open_binary_embedded_default_maps_onto_the_reference_auto_source():
    import scripted

    ghidra_bindable = [dict(p) for p in scripted.HOST_PROVIDERS]
    ghidra_bindable[1] = {"id": "ghidra", "available": True, "version": "11.3", "bindable": True}
    original = scripted.SESSION_EFFECTS[DiscoverProviders]
    scripted.SESSION_EFFECTS[DiscoverProviders] = lambda e: Success(ghidra_bindable)
    try:
        outcome, _ = drive_tool(open_binary, Session(), {"path": "/bin/x"}, _answer(_elf_facts()))
    finally:
        scripted.SESSION_EFFECTS[DiscoverProviders] = original
    binding = _conforms("open_binary", outcome.reply.unwrap())["analysis_provider_binding"]
    assert binding["provider"]["id"] == "angr"
    assert binding["selection_source"] == "auto-single-candidate" and binding["selection_detail"] == "embedded-default"


def test_known_providers_are_refused_with_reference_selection_details():
    for provider in ("ghidra", "hopper", "ida"):
        refused, effects = drive_tool(
            open_binary, Session(), {"path": "/bin/x", "provider_id": provider}, _answer(_elf_facts())
        )
        details = refused.reply.failure().details
        assert refused.reply.failure().code == "provider_unavailable", provider
        assert details["operation"] == "open_binary" and details["selection_reason"] == "provider_unavailable"
        assert details["requested_provider_id"] == provider
        assert details["candidate_ids"] == ["angr", "ghidra", "hopper", "ida"]
        assert {r["provider_id"]: r["code"] for r in details["rejections"]} == {
            "ghidra": "not_configured",
            "hopper": "unsupported_host",
            "ida": "unsupported_host",
        }
        assert details["selection"]["candidates"][0] == {"provider_id": "angr", "available": True, "code": None}
        assert details["selection"]["status"] == "unavailable" and not any(
            type(e).__name__ == "ReleaseNative" for e in effects
        )
    # target support is checked before availability, as the reference does
    text = TargetFacts(path="/t.txt", kind="file", sha256="b" * 64, size=3, format="file")
    refused = drive_tool(open_binary, Session(), {"path": "/t.txt", "provider_id": "ghidra"}, _answer(text))[0]
    err = refused.reply.failure()
    assert err.code == "capability_unavailable" and err.details["selection_reason"] == "target_unsupported"
    assert {r["code"] for r in err.details["rejections"]} == {"target_format_unsupported"}


def test_open_binary_refuses_options_it_cannot_honour_before_reading_anything():
    session = ledger(1)
    for args, field in (
        ({"path": "/bin/x", "existing_project": {"project_name": "p", "program": "x"}}, "existing_project"),
        ({"path": "/bin/x", "snapshot_path": "/tmp/s.json"}, "snapshot_path"),
    ):
        refused, effects = drive_tool(open_binary, session, args, _answer(_elf_facts()))
        err = refused.reply.failure()
        assert err.code == "capability_unavailable" and err.details["field"] == field and effects == []
        assert refused.session is session and err.action


def test_open_binary_dos_com_interpretation():
    com = TargetFacts(path="/h.com", kind="file", sha256="c" * 64, size=14, format="file")
    outcome, _ = drive_tool(open_binary, Session(), {"path": "/h.com", "format": "dos-com"}, _answer(com))
    result = _conforms("open_binary", outcome.reply.unwrap())
    assert (result["format"], result["kind"], result["architecture"]) == ("dos-com", "executable", "x86")
    assert result["analysis_provider_binding"] is None and "dos-com" in result["limitations"][0]
    big = attrs.evolve(com, size=0xFF01)
    refused = drive_tool(open_binary, Session(), {"path": "/h.com", "format": "dos-com"}, _answer(big))[0]
    assert refused.reply.failure().details["field"] == "format"


def test_binary_session_reference_fields_closed_and_open():
    closed = _conforms("binary_session", drive_tool(binary_session, Session(), {})[0].reply.unwrap())
    assert closed["open"] is False and "path" not in closed and closed["architecture"] is None
    assert closed["provider"] == {"id": "angr", "name": "angr", "version": "9.2.213"}
    assert closed["providers"] == [closed["provider"]]
    (route,) = closed["capabilities"]
    by_op = {op: g for g in route["groups"] for op in g["operations"]}
    assert sorted(by_op) == sorted(NATIVE_OPERATIONS)  # every operation exactly once
    group = by_op["analyze_function"]
    assert group["available"] and group["availability_code"] is None
    assert route["shared_limitations"] and by_op["list_procedures"]["limitations"] == []
    assert by_op["current_address"]["available"] is False and "headless" in by_op["current_address"]["reason"]
    assert closed["analysis_activity"] == {"status": "not_observed", "providers": []}
    assert closed["client_features"] == dict.fromkeys(
        ("elicitation_form", "elicitation_url", "roots", "sampling"), False
    )
    identity = closed["server_identity"]
    assert set(identity["sdk"]) >= {"server", "client_test", "core"} and identity["skill"]["name"] == "rea"
    assert identity["package"]["build_commit"] is None and "root_path" in identity["package"]
    assert identity["protocol_features"]["elicitation"] is False
    ghidra = next(c for c in closed["analysis_provider_candidates"] if c["provider"]["id"] == "ghidra")
    (ghidra_set,) = ghidra["capabilities"]
    assert ghidra_set["groups"][0]["available"] is False
    assert ghidra_set["groups"][0]["availability_code"] == "not_configured"
    assert ghidra["target_support"]["diagnostics"] == {} and ghidra["availability"]["diagnostics"] == {}

    opened = drive_tool(open_binary, Session(), {"path": "/bin/x"}, _answer(_elf_facts()))[0].session
    ctx = attrs.evolve(CTX, server=attrs.evolve(CTX.server, client_features=frozenset({"roots"})))
    state = _conforms("binary_session", drive_tool(binary_session, opened, {}, ctx=ctx)[0].reply.unwrap())
    assert {k: state[k] for k in ("open", "path", "format", "kind", "sha256", "architecture")} == {
        "open": True,
        "path": "/bin/x",
        "format": "elf",
        "kind": "executable",
        "sha256": "a" * 64,
        "architecture": "x86_64",
    }
    assert state["client_features"]["roots"] is True and state["client_features"]["sampling"] is False
    assert state["provider"] == state["analysis_provider_binding"]["provider"]
    supports = {c["provider"]["id"]: c["target_support"]["status"] for c in state["analysis_provider_candidates"]}
    assert supports == {"angr": "supported", "ghidra": "supported", "hopper": "supported", "ida": "supported"}
    assert [c["selected"] for c in state["analysis_provider_candidates"]] == [True, False, False, False]


def test_header_architecture_and_target_kind():
    elf = bytearray(64)
    elf[:6] = b"\x7fELF\x02\x01"
    elf[18:20] = (183).to_bytes(2, "little")
    assert header_architecture(bytes(elf), "elf") == "arm64"
    pe = bytearray(256)
    pe[:2] = b"MZ"
    pe[0x3C:0x40] = (0x80).to_bytes(4, "little")
    pe[0x80:0x86] = b"PE\0\0" + (0x14C).to_bytes(2, "little")
    assert header_architecture(bytes(pe), "pe") == "x86"
    assert header_architecture(b"\xcf\xfa\xed\xfe" + (0x01000007).to_bytes(4, "little"), "mach-o") == "x86_64"
    assert header_architecture(b"\xfe\xed\xfa\xce" + (12).to_bytes(4, "big"), "mach-o") == "arm"
    assert header_architecture(b"MZ" + bytes(100), "pe") is None and header_architecture(b"", "zip") is None
    kinds = {f: target_kind(f) for f in ("elf", "mach-o-universal", "dos-com", "apk", "tar", "directory", "file")}
    assert kinds == {
        "elf": "executable",
        "mach-o-universal": "executable",
        "dos-com": "executable",
        "apk": "archive",
        "tar": "archive",
        "directory": "artifact",
        "file": "artifact",
    }


def test_bundle_paths_must_be_absolute():
    from rea.catalog import BY_NAME
    from rea.validation import validate_arguments

    for name in ("export_evidence_bundle", "import_evidence_bundle"):
        err = validate_arguments(name, BY_NAME[name].input_schema, {"path": "evidence.json"}).failure()
        assert err.code == "invalid_request" and err.details["field"] == "path"
        assert "absolute local path" in err.details["accepted"] and "relative" in err.message
    assert (
        drive_tool(
            import_evidence_bundle,
            Session(),
            {"path": "C:\\rea\\b.json"},
            lambda e: Failure(ReaError(code="invalid_request", message="missing")),
        )[0]
        .reply.failure()
        .message
        == "missing"
    )  # a Windows absolute path reaches the reader


def test_complete_bundle_is_the_result_and_summary_dossiers_follow_the_reference():
    from rea.evidence import create_evidence

    session = ledger(3)
    complete = _conforms("get_evidence_bundle", drive_tool(get_evidence_bundle, session, {})[0].reply.unwrap())
    assert complete == bundle_json(session)
    flows = {
        "observed": {"available": True, "truncated": True, "known_omitted_edges": 2},
        "unavailable": {"available": False, "reason": "no p-code"},
        "unknown": {"available": "maybe"},
    }
    extra = []
    for i, flow in enumerate(flows.values()):
        base = make_evidence(10 + i)
        extra.append(
            create_evidence(
                provider=base.provider,
                operation="analyze_function",
                parameters={"i": i},
                normalized_result={"procedure": {"address": f"0x50{i}", "name": None}, "native_value_flow": flow},
                subject=base.subject,
                analysis_profile=base.analysis_profile,
            ).unwrap()
        )
    other = make_evidence(20, operation="procedure_info")  # has procedure.address, but is not a dossier
    broken = create_evidence(
        provider=other.provider, operation="analyze_function", parameters={}, normalized_result={"procedure": 3}
    ).unwrap()
    from rea.session import record

    session = record(session, [*extra, other, broken])
    rows = {
        r["evidence_id"]: r
        for r in _conforms(
            "get_evidence_bundle", drive_tool(get_evidence_bundle, session, {"detail": "summary"})[0].reply.unwrap()
        )["records"]
    }
    statuses = [rows[e.evidence_id]["native_dossier"]["value_flow"] for e in extra]
    assert statuses == [
        {
            "status": "observed",
            "truncated": True,
            "omitted_operations_lower_bound": None,
            "known_omitted_inputs": None,
            "known_omitted_edges": 2,
        },
        {"status": "unavailable", "reason": "no p-code"},
        {"status": "unknown", "reason": "Value-flow metadata has an incompatible representation."},
    ]
    assert rows[other.evidence_id]["native_dossier"] == {"available": False, "reason": "different-operation"}
    assert rows[broken.evidence_id]["native_dossier"]["reason"] == "not-recorded-or-incompatible"
    by_address = drive_tool(
        get_evidence_bundle,
        session,
        {"detail": "summary", "filters": {"procedure_address": other.normalized_result["procedure"]["address"]}},
    )[0].reply.unwrap()["result"]
    assert by_address["matching_records"] == 0  # procedure_address matches analyze_function records only


def test_update_unknown_null_clears_and_omission_keeps():
    recorded = drive_tool(
        record_unknown,
        Session(),
        {"question": "q", "domain": "d", "severity": "low", "required_authority": "shipped-artifact"},
    )[0]
    uid = recorded.reply.unwrap()["result"]["unknown_id"]
    kept = drive_tool(update_unknown, recorded.session, {"unknown_id": uid, "expected_revision": 1})[0]
    assert kept.reply.unwrap()["result"]["required_authority"] == "shipped-artifact"
    cleared = drive_tool(
        update_unknown, recorded.session, {"unknown_id": uid, "expected_revision": 1, "required_authority": None}
    )[0]
    assert _conforms("update_unknown", cleared.reply.unwrap())["required_authority"] is None


def test_closed_vocabularies_match_the_code():
    from rea.artifacts.model import ZIP_FORMATS
    from rea.catalog.contract import ANNOTATIONS, CLIENT_FEATURES, EFFECTS, SURFACES
    from rea.evidence import ARCHITECTURES, AUTHORITY, CONFIDENCE, ISOLATION, SUBJECT_FORMATS
    from rea.native.providers import PROVIDER_EFFECTS, PROVIDER_REJECTION_CODES
    from rea.unknowns import SEVERITIES, STATUSES

    def values(tp):
        return typing.get_args(tp)

    assert values(SubjectFormat) == SUBJECT_FORMATS and values(w.Architecture) == ARCHITECTURES
    assert values(w.Authority) == AUTHORITY and values(w.Confidence) == CONFIDENCE
    assert values(w.Isolation) == ISOLATION and values(w.Severity) == SEVERITIES
    assert values(w.UnknownStatus) == STATUSES and values(RejectionCode) == PROVIDER_REJECTION_CODES
    assert values(w.ProviderEffect) == PROVIDER_EFFECTS and values(ClientFeature) == CLIENT_FEATURES
    assert values(ToolEffect) == EFFECTS and values(ToolAnnotation) == ANNOTATIONS
    assert values(Surface) == SURFACES
    detected = {*ZIP_FORMATS, "ar", "tar", "asar", "pkg", "dmg", "elf", "pe", "mach-o", "mach-o-universal"}
    detected |= {"wasm", "plist", "javascript", "source-map", "file", "directory", "dos-com"}
    assert detected <= set(values(w.TargetFormat))


def test_analysis_activity_reports_the_engine_request_in_flight(tmp_path):
    import types

    import anyio

    from effects.native import runtime as native_runtime
    from effects.progress import Progress
    from rea.native.effects import NativeActivity

    runtime = native_runtime.NativeRuntime(cache_root=tmp_path)
    call = Progress(None, native=runtime)  # the connection's engines travel with the call
    idle_before = anyio.run(native_runtime._activity, NativeActivity(), call).unwrap()
    provider = {"id": "angr", "name": "angr", "version": "9.2.213"}
    runtime.worker = types.SimpleNamespace(process=object(), provider=provider)
    idle = anyio.run(native_runtime._activity, NativeActivity(), call).unwrap()
    with runtime.tracked("decompile"), runtime.tracked("disassemble"):
        busy = anyio.run(native_runtime._activity, NativeActivity(), call).unwrap()
    after = anyio.run(native_runtime._activity, NativeActivity(), call).unwrap()
    assert idle_before == {"status": "not_observed", "providers": []}
    assert (
        idle == after == {"status": "idle", "providers": [{"provider": provider, "active": None, "queued_requests": 0}]}
    )
    (entry,) = busy["providers"]
    assert busy["status"] == "busy" and entry["queued_requests"] == 1
    assert entry["active"]["operation"] == "decompile" and entry["active"]["caller_state"] == "waiting"
    assert entry["active"]["request_id"] == 1 and entry["active"]["elapsed_ms"] >= 0
    jsonschema.validate(busy, jsonschema_of(AnalysisActivity))


def jsonschema_of(tp):
    from rea.wire.schema import schema_of

    return schema_of(tp)
