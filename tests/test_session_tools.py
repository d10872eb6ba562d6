import orjson
from returns.pipeline import is_successful
from returns.result import Failure, Success

from rea.bundle import bundle_chunks, bundle_json, parse_bundle
from rea.canonical_json import canonicalize
from rea.errors import ReaError
from rea.program import IdentifyTarget, PublishAtomically, PublishReceipt, TargetFacts
from rea.session import Session, resolve
from rea.workflows import session_tools as tools
from scripted import drive
from support import ledger, make_evidence


def _bundle_tree(session):
    return orjson.loads(b"".join(bundle_chunks(session)))


def test_streamed_bundle_equals_canonical_bundle():
    session = ledger(25)
    assert b"".join(bundle_chunks(session)) == canonicalize(bundle_json(session))


def test_import_merges_exactly_and_is_idempotent():
    source = ledger(10)
    tree = _bundle_tree(source)
    outcome, _ = drive(tools.import_evidence_bundle, Session(), {"path": "b.json"}, lambda e: Success(tree))
    assert outcome.reply.unwrap()["result"] == {"imported": 10, "unknowns_added": 0, "total": 10}
    assert set(outcome.session.evidence) == set(source.evidence)
    again, _ = drive(tools.import_evidence_bundle, outcome.session, {"path": "b.json"}, lambda e: Success(tree))
    assert again.reply.unwrap()["result"]["imported"] == 0


def _import(session, tree):
    return drive(tools.import_evidence_bundle, session, {"path": "b.json"}, lambda e: Success(tree))[0]


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

    outcome, effects = drive(tools.open_binary, session, {"path": "/bin/x"}, answer)
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

    from scripted import CTX
    import attrs

    env_ctx = attrs.evolve(CTX, analysis_provider="angr")
    by_env = drive(tools.open_binary, Session(), {"path": "/bin/x"}, answer, ctx=env_ctx)[0]
    assert by_env.reply.unwrap()["result"]["analysis_provider_binding"]["selection_source"] == "environment"
    by_request = drive(tools.open_binary, Session(), {"path": "/bin/x", "provider_id": "angr"}, answer, ctx=env_ctx)[0]
    assert by_request.reply.unwrap()["result"]["analysis_provider_binding"]["selection_source"] == "request"
    for provider, code, status in (
        ("ghidra", "provider_unavailable", "unavailable"),
        ("hopper", "provider_unavailable", "unavailable"),
        ("radare", "capability_unavailable", "unknown_provider"),
    ):
        refused = drive(tools.open_binary, Session(), {"path": "/bin/x", "provider_id": provider}, answer)[0]
        err = refused.reply.failure()
        assert err.code == code and err.details["selection"]["status"] == status, provider
        assert refused.session == Session()
    text = TargetFacts(path="/etc/x.txt", kind="file", sha256="b" * 64, size=3, format="file")
    unbound = drive(
        tools.open_binary,
        Session(),
        {"path": "/etc/x.txt"},
        lambda e: Success(text) if isinstance(e, IdentifyTarget) else Success("run-3"),
    )[0]
    result = unbound.reply.unwrap()["result"]
    assert result["analysis_provider_binding"] is None and "ELF, PE or Mach-O" in result["limitations"][0]
    explicit = drive(
        tools.open_binary,
        Session(),
        {"path": "/etc/x.txt", "provider_id": "angr"},
        lambda e: Success(text) if isinstance(e, IdentifyTarget) else Success("run-4"),
    )[0]
    assert explicit.reply.failure().details["selection"]["status"] == "target_format_unsupported"


def test_open_binary_failure_leaves_session_unchanged():
    session = ledger(1)
    err = ReaError(code="target_unavailable", message="gone")
    outcome, _ = drive(tools.open_binary, session, {"path": "/nope"}, lambda e: Failure(err))
    assert outcome.session is session and outcome.reply.failure() is err


def test_close_binary_clears_everything_and_works_without_target():
    outcome, _ = drive(tools.close_binary, ledger(3), {})
    assert outcome.session == Session()
    assert outcome.reply.unwrap()["result"]["cleared"]["records"] == 3
    empty, _ = drive(tools.close_binary, Session(), {})
    assert empty.reply.unwrap()["result"]["closed_target"] is None


def test_summary_filters_are_exact_and_require_summary_detail():
    session = ledger(6)
    target = make_evidence(4)
    outcome, _ = drive(
        tools.get_evidence_bundle, session, {"detail": "summary", "filters": {"procedure_address": "0x401004"}}
    )
    rows = outcome.reply.unwrap()["result"]["records"]
    assert [r["evidence_id"] for r in rows] == [target.evidence_id]
    assert rows[0]["analysis_profile_digest"] == target.analysis_profile.digest
    assert rows[0]["procedure"] == {"address": "0x401004", "name": "fn_4"}
    by_sha, _ = drive(
        tools.get_evidence_bundle, session, {"detail": "summary", "filters": {"target_sha256": "1".zfill(64)}}
    )
    assert by_sha.reply.unwrap()["result"]["total"] == 2
    refused, _ = drive(tools.get_evidence_bundle, session, {"filters": {"operation": "x"}})
    assert refused.reply.failure().details["field"] == "filters"


def test_export_program_publishes_the_streamed_bundle():
    session = ledger(4)
    seen = {}

    def answer(effect):
        assert isinstance(effect, PublishAtomically)
        seen["bytes"] = b"".join(effect.chunks())
        return Success(PublishReceipt(path="/tmp/x.json", bytes=len(seen["bytes"]), sha256="0" * 64))

    outcome, _ = drive(tools.export_evidence_bundle, session, {"path": "/tmp/x.json"}, answer)
    assert seen["bytes"] == canonicalize(bundle_json(session))
    assert outcome.reply.unwrap()["result"]["records"] == 4
    assert parse_bundle(orjson.loads(seen["bytes"])).unwrap().records


def test_unknown_lifecycle_and_revision_conflict():
    session = ledger(2)
    support_id = next(iter(session.evidence))
    recorded, _ = drive(
        tools.record_unknown,
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
    duplicate, _ = drive(
        tools.record_unknown,
        recorded.session,
        {"question": "Does it phone home?", "domain": "network", "severity": "low"},
    )
    assert duplicate.reply.failure().code == "revision_conflict" and duplicate.session is recorded.session
    updated, _ = drive(
        tools.update_unknown,
        recorded.session,
        {"unknown_id": first["unknown_id"], "expected_revision": 1, "status": "investigating"},
    )
    second = updated.reply.unwrap()["result"]
    assert second["revision"] == 2 and second["previous_revision_digest"] == first["revision_digest"]
    assert second["supporting_evidence_ids"] == [support_id]
    stale, _ = drive(
        tools.update_unknown,
        updated.session,
        {"unknown_id": first["unknown_id"], "expected_revision": 1, "status": "blocked"},
    )
    err = stale.reply.failure()
    assert err.code == "revision_conflict" and err.retryable and err.details["current_revision"] == 2
    assert stale.session is updated.session
    listed, _ = drive(tools.list_unknowns, updated.session, {})
    assert [u["revision"] for u in listed.reply.unwrap()["result"]["items"]] == [2]
    # bundles carry every revision and import verifies the chain
    tree = _bundle_tree(updated.session)
    assert len(tree["unknowns"]) == 2
    assert is_successful(parse_bundle(tree))
    tree["unknowns"][1]["status"] = "resolved"
    assert parse_bundle(tree).failure().details["path"] == "$.unknowns[1].revision_digest"


def test_unknown_rules_are_enforced():
    session = ledger(1)
    missing_ref, _ = drive(
        tools.record_unknown,
        session,
        {"question": "q", "domain": "d", "severity": "low", "supporting_evidence_ids": ["ev_" + "1" * 64]},
    )
    assert missing_ref.reply.failure().details["reason"] == "missing"
    recorded, _ = drive(tools.record_unknown, session, {"question": "q", "domain": "d", "severity": "low"})
    uid = recorded.reply.unwrap()["result"]["unknown_id"]
    no_resolution, _ = drive(
        tools.update_unknown, recorded.session, {"unknown_id": uid, "expected_revision": 1, "status": "resolved"}
    )
    assert no_resolution.reply.failure().details["field"] == "resolution"
    missing, _ = drive(tools.update_unknown, session, {"unknown_id": uid, "expected_revision": 1})
    assert missing.reply.failure().details["reason"] == "missing"


def test_list_unknowns_pages_partition_filtered_heads():
    session = ledger(1)
    for i in range(7):
        session = drive(
            tools.record_unknown, session, {"question": f"q{i}", "domain": "a" if i % 2 else "b", "severity": "low"}
        )[0].session
    everything = drive(tools.list_unknowns, session, {"domain": "b"})[0].reply.unwrap()["result"]
    assert everything["total"] == 4 and everything["next_offset"] is None
    ids, offset = [], 0
    while offset is not None:
        page = drive(tools.list_unknowns, session, {"domain": "b", "offset": offset, "limit": 3})[0].reply.unwrap()[
            "result"
        ]
        ids += [u["unknown_id"] for u in page["items"]]
        offset = page["next_offset"]
    assert ids == [u["unknown_id"] for u in everything["items"]] == sorted(ids)


def test_binary_session_reports_identity_groups_and_alignment():
    outcome, _ = drive(tools.binary_session, ledger(2), {"expected_package_version": "9.9.9"})
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
    aligned = drive(tools.binary_session, Session(), {"expected_catalog_digest": digest})[0].reply.unwrap()["result"]
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
